package create

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/zkwatch"
)

func view(e *env) string { return ansi.Strip(e.m.View()) }

// fill types a valid request: name, 12 partitions, RF 3.
func fill(e *env, name string) {
	e.typeText(name)
	e.press("tab")
	e.clearField()
	e.typeText("12")
	e.press("tab")
	e.clearField()
	e.typeText("3")
}

func TestOpensOnEmptyFocusedName(t *testing.T) {
	e := newEnv(t, 80, 22)
	if e.m.Stage() != "form" || e.m.form.focus != fName || e.m.form.in[fName].Value() != "" || !e.m.Capturing() {
		t.Fatalf("stage %s focus %d %q", e.m.Stage(), e.m.form.focus, e.m.form.in[fName].Value())
	}
	// Defaults from the cluster: two partitions per live broker, RF 3.
	if p, rf := e.m.form.in[fPartitions].Value(), e.m.form.in[fRF].Value(); p != "12" || rf != "3" {
		t.Fatalf("defaults %s %s", p, rf)
	}
	// An untouched empty name shows no error yet.
	if strings.Contains(view(e), "empty string") {
		t.Fatal("error before typing")
	}
}

func TestTabOrder(t *testing.T) {
	e := newEnv(t, 80, 22)
	want := []field{fPartitions, fRF, fRack, fConfigs, fManual, fName}
	for i, w := range want {
		e.press("tab")
		if e.m.form.focus != w {
			t.Fatalf("tab %d: focus %d want %d", i+1, e.m.form.focus, w)
		}
	}
	for _, w := range []field{fManual, fConfigs, fRack} {
		e.press("shift+tab")
		if e.m.form.focus != w {
			t.Fatalf("shift+tab: focus %d want %d", e.m.form.focus, w)
		}
	}
	e.press("space")
	if !e.m.form.rackOff {
		t.Fatal("space toggles the rack mode")
	}
	e.press("right")
	if e.m.form.rackOff {
		t.Fatal("→ toggles back")
	}
	e.press("up", "up")
	if e.m.form.focus != fPartitions {
		t.Fatalf("↑ moves up: %d", e.m.form.focus)
	}
	e.press("ctrl+u")
	if e.m.form.in[fPartitions].Value() != "" {
		t.Fatal("ctrl+u clears the field")
	}
	// Keys the shell binds globally are text here.
	e.press("shift+tab")
	e.typeText("q?1c")
	if e.m.form.in[fName].Value() != "q?1c" {
		t.Fatalf("typed %q", e.m.form.in[fName].Value())
	}
}

// TestInvalidNames: Kafka's messages as the name is typed, and on enter.
func TestInvalidNames(t *testing.T) {
	long := strings.Repeat("x", 250)
	for _, tc := range []struct{ name, want string }{
		{".", "Topic name is invalid: '.' is not allowed"},
		{"..", "Topic name is invalid: '..' is not allowed"},
		{"bad/name", "Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
		{long, "Topic name is invalid: the length of '" + long + "' is longer than the max allowed length 249"},
		{"orders", "Topic 'orders' already exists."},
		{"metrics.raw", "Topic 'metrics.raw' collides with existing topics: metrics_raw"},
	} {
		t.Run(tc.name[:min(len(tc.name), 12)], func(t *testing.T) {
			e := newEnv(t, 400, 30)
			e.typeText(tc.name)
			if got := e.m.form.errs[fName]; got != tc.want {
				t.Fatalf("as typed: %q\nwant %q", got, tc.want)
			}
			if !strings.Contains(view(e), tc.want) {
				t.Fatalf("not shown whole:\n%s", view(e))
			}
			e.press("tab", "enter")
			if e.m.Stage() != "form" || e.m.form.msg != "Cannot preview: "+tc.want || e.m.form.focus != fName {
				t.Fatalf("enter: stage %s msg %q focus %d", e.m.Stage(), e.m.form.msg, e.m.form.focus)
			}
		})
	}
	// Emptied name: the message appears once touched.
	e := newEnv(t, 100, 30)
	e.typeText("a")
	e.press("backspace")
	if !strings.Contains(view(e), "Topic name is invalid: the empty string is not allowed") {
		t.Fatalf("empty:\n%s", view(e))
	}
	// A name with '.' or '_' and no collision gets kafka-topics' warning.
	e.typeText("orders.v2")
	if e.m.form.errs[fName] != "" || e.m.form.warns[fName] != cluster.CollisionWarning {
		t.Fatalf("warning %q err %q", e.m.form.warns[fName], e.m.form.errs[fName])
	}
}

func TestNumbersAndRacks(t *testing.T) {
	e := newEnv(t, 120, 30)
	e.typeText("n")
	for _, tc := range []struct {
		f         field
		value     string
		errField  field
		want      string
		rackOff   bool
		wantRacks bool
	}{
		{fPartitions, "abc", fPartitions, "Cannot parse argument 'abc' of option partitions", false, false},
		{fPartitions, "0", fPartitions, "Number of partitions must be larger than 0.", false, false},
		{fRF, "0", fRF, "Replication factor must be larger than 0.", false, false},
		{fRF, "7", fRF, "Replication factor: 7 larger than available brokers: 6.", false, false},
		{fRF, "x", fRF, "Cannot parse argument 'x' of option replication-factor", false, false},
	} {
		e.m.form.focusField(tc.f)
		e.clearField()
		e.typeText(tc.value)
		if got := e.m.form.errs[tc.errField]; got != tc.want {
			t.Errorf("%s=%s: %q want %q", labels[tc.f], tc.value, got, tc.want)
		}
		e.clearField()
		e.typeText(map[field]string{fPartitions: "12", fRF: "3"}[tc.f])
	}
	if e.m.form.errs != [nFields]string{} {
		t.Fatalf("valid again: %q", e.m.form.errs)
	}
}

// TestPartitionsTooBig: a count no topic znode can hold is the Partitions
// field's error, never ticked ✓ (it was, with the error under the Manual
// assignment); a count whose assignment turns out too big at enter puts
// the cursor and the error on Partitions.
func TestPartitionsTooBig(t *testing.T) {
	e := newEnv(t, 120, 30)
	e.typeText("n")
	e.press("tab", "ctrl+u")
	e.typeText("200000")
	f := &e.m.form
	if !strings.Contains(f.errs[fPartitions], "200000 partitions cannot fit in a topic znode") || f.ok[fPartitions] != "" || f.errs[fManual] != "" {
		t.Fatalf("partitions: error %q ✓ %q; manual: error %q", f.errs[fPartitions], f.ok[fPartitions], f.errs[fManual])
	}
	v := lines(ansi.Strip(e.m.View()))
	i := slices.IndexFunc(v, func(l string) bool { return strings.Contains(l, "Partitions") })
	if i < 0 || i+1 >= len(v) || !strings.Contains(v[i+1], "200000 partitions cannot fit") || strings.Contains(strings.Join(v, "\n"), "✓ 600000") {
		t.Fatalf("the error is not under Partitions:\n%s", strings.Join(v, "\n"))
	}
	e.press("ctrl+u")
	e.typeText("100000") // within the bound, but RF 3's assignment is too big
	if f.errs[fPartitions] != "" {
		t.Fatalf("100000: %q", f.errs[fPartitions])
	}
	e.press("tab", "tab", "tab", "tab", "enter")
	if e.m.Stage() != "form" || f.focus != fPartitions || !strings.Contains(f.errs[fPartitions], "partitions fit") || f.errs[fManual] != "" {
		t.Fatalf("stage %s, focus %s, partitions %q, manual %q", e.m.Stage(), labels[f.focus], f.errs[fPartitions], f.errs[fManual])
	}
}

// TestPartialRacks: with some brokers lacking a rack, Enforced fails with
// AdminZkClient's message; disabling rack awareness lets it through.
func TestPartialRacks(t *testing.T) {
	e := newEnv(t, 200, 30)
	reg := cluster.NewBrokerRegistration(5, []cluster.BrokerEndpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "h", Port: 1}}, -1, "", 1, nil)
	data := cluster.EncodeBroker(reg)
	e.apply(zkEvent(cluster.BrokerIDPath(7), data))
	e.typeText("t")
	if got := e.m.form.errs[fRack]; got != cluster.MessageNotAllBrokersHaveRack {
		t.Fatalf("rack error %q", got)
	}
	e.m.form.focusField(fRack)
	e.press("space")
	if e.m.form.errs[fRack] != "" {
		t.Fatal(e.m.form.errs[fRack])
	}
	e.press("enter")
	if e.m.Stage() != "preview" || e.m.Plan().Result.RackAware {
		t.Fatalf("stage %s", e.m.Stage())
	}
}

func TestConfigs(t *testing.T) {
	e := newEnv(t, 200, 30)
	e.typeText("c")
	e.m.form.focusField(fConfigs)
	e.typeText("retention.m")
	if !strings.Contains(e.m.form.hints[fConfigs], "retention.ms") {
		t.Fatalf("hint %q", e.m.form.hints[fConfigs])
	}
	e.press("tab") // completes instead of moving
	if v := e.m.form.in[fConfigs].Value(); v != "retention.ms=" || e.m.form.focus != fConfigs {
		t.Fatalf("completed %q focus %d", v, e.m.form.focus)
	}
	if h := e.m.form.hints[fConfigs]; !strings.Contains(h, "default 604800000") || !strings.Contains(h, "long") {
		t.Fatalf("the key's default and type: %q", h)
	}
	e.typeText("-5")
	if got := e.m.form.errs[fConfigs]; got != "Invalid value -5 for configuration retention.ms: Value must be at least -1" {
		t.Fatalf("value: %q", got)
	}
	e.press("backspace", "backspace")
	e.typeText("86400000 cleanup.policy=c")
	e.press("tab")
	if v := e.m.form.in[fConfigs].Value(); v != "retention.ms=86400000 cleanup.policy=compact" {
		t.Fatalf("value completion %q", v)
	}
	e.typeText(" nope=1")
	if got := e.m.form.errs[fConfigs]; got != "Unknown topic config name: nope" {
		t.Fatalf("unknown key %q", got)
	}
	e.press("backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	e.typeText(" min.compaction.lag.ms=10 max.compaction.lag.ms=5")
	if got := e.m.form.errs[fConfigs]; got != "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)" {
		t.Fatalf("cross-key %q", got)
	}
	e.clearField()
	e.typeText("retention.ms")
	e.press("tab", "tab") // completes, then moves on: the entry has no value
	e.press("enter")
	want := `Cannot preview: requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".`
	if e.m.Stage() != "form" || e.m.form.msg != want || e.m.form.focus != fConfigs {
		t.Fatalf("stage %s %q focus %d", e.m.Stage(), e.m.form.msg, e.m.form.focus)
	}
	e.typeText("3600000")
	e.press("enter")
	if e.m.Stage() != "preview" || e.m.Plan().Config["retention.ms"] != "3600000" {
		t.Fatalf("stage %s %v", e.m.Stage(), e.m.form.msg)
	}
}

func TestManualAssignment(t *testing.T) {
	e := newEnv(t, 200, 30)
	e.typeText("hand")
	e.m.form.focusField(fManual)
	e.typeText("1:2,2:2")
	if got := e.m.form.errs[fManual]; got != "Partition replica lists may not contain duplicate entries: 2" {
		t.Fatalf("%q", got)
	}
	e.clearField()
	e.typeText("1:2:3,2:3:4,9:8:7")
	if e.m.form.errs[fManual] != "" || !strings.Contains(e.m.form.warns[fManual], "brokers 7, 8, 9 are not registered") {
		t.Fatalf("err %q warn %q", e.m.form.errs[fManual], e.m.form.warns[fManual])
	}
	// Partitions and RF are not used: even an invalid value is fine.
	e.m.form.focusField(fPartitions)
	e.clearField()
	e.typeText("x")
	e.press("enter")
	if e.m.Stage() != "preview" || !e.m.Plan().Manual || len(e.m.Plan().Assignment()) != 3 {
		t.Fatalf("stage %s %q", e.m.Stage(), e.m.form.msg)
	}
	out := view(e)
	for _, want := range []string{"placed by hand", "9?", "not registered", "partition 2 stays offline"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	// No start index to move.
	e.press("r", "right")
	if e.m.Plan().Result.StartIndex != -1 {
		t.Fatal("manual plans have no start index")
	}
}

func TestFormGoldens(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(e *env)
	}{
		{"initial", func(e *env) {}},
		{"errors", func(e *env) {
			e.typeText("metrics.raw")
			e.press("tab")
			e.clearField()
			e.typeText("0")
			e.press("tab")
			e.clearField()
			e.typeText("9")
		}},
		{"configs", func(e *env) {
			e.typeText("orders.v2")
			e.m.form.focusField(fConfigs)
			e.typeText("cleanup.policy=compact min.insync")
		}},
		{"enter-invalid", func(e *env) {
			e.press("enter")
		}},
	} {
		for _, sz := range [][2]int{{80, 22}, {200, 58}} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				e := newEnv(t, sz[0], sz[1])
				tc.do(e)
				checkSize(t, view(e), sz[0], sz[1])
				golden.RequireEqual(t, view(e))
			})
		}
	}
}

func checkSize(t *testing.T, out string, w, h int) {
	t.Helper()
	ls := lines(out)
	if len(ls) != h {
		t.Fatalf("%d lines, want %d", len(ls), h)
	}
	for i, l := range ls {
		if n := ansi.StringWidth(l); n > w {
			t.Fatalf("line %d is %d wide: %q", i, n, l)
		}
	}
}

// openPreview opens the preview of a 12-partition RF 3 topic.
func openPreview(t *testing.T, w, h int, opts ...func(*Options)) *env {
	t.Helper()
	e := newEnv(t, w, h, opts...)
	fill(e, "payments")
	e.press("enter")
	if e.m.Stage() != "preview" {
		t.Fatalf("stage %s: %s", e.m.Stage(), e.m.form.msg)
	}
	return e
}

func TestPreviewGoldens(t *testing.T) {
	for _, sz := range [][2]int{{80, 22}, {200, 58}} {
		for _, tc := range []struct {
			name string
			keys []string
		}{
			{"plan", nil},
			{"scrolled", []string{"pgdown"}},
			{"written", []string{"w"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				e := openPreview(t, sz[0], sz[1])
				e.press(tc.keys...)
				checkSize(t, view(e), sz[0], sz[1])
				golden.RequireEqual(t, view(e))
			})
		}
	}
	// The confirmation popup (composited by the shell).
	e := openPreview(t, 80, 22)
	e.press("enter")
	if e.m.Stage() != "confirm" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	golden.RequireEqual(t, ansi.Strip(e.m.Modal()))
}

// TestPreviewMatchesPlan: every cell of the matrix is the plan's.
func TestPreviewMatchesPlan(t *testing.T) {
	e := openPreview(t, 200, 58)
	plan := e.m.Plan()
	if plan.Result.StartIndex != e.m.pv.start || plan.Result.ReplicaShift != e.m.pv.shift {
		t.Fatal("the plan was made with the shown start index and shift")
	}
	out := lines(view(e))
	var ids []string
	for _, l := range out {
		if strings.HasPrefix(strings.TrimSpace(l), "partition") {
			ids = strings.Fields(strings.ReplaceAll(l, "│", ""))[1:7]
		}
	}
	for _, l := range out {
		f := strings.Fields(strings.ReplaceAll(l, "│", ""))
		if len(f) != 8 || f[0] == "partition" {
			continue
		}
		var p int
		if _, err := fmt.Sscan(f[0], &p); err != nil {
			continue
		}
		reps := plan.Assignment()[p]
		for c, id := range ids {
			var b int
			fmt.Sscan(id, &b)
			want := "·"
			if i := slices.Index(reps, b); i == 0 {
				want = "L"
			} else if i > 0 {
				want = "F"
			}
			if f[1+c] != want {
				t.Fatalf("partition %d broker %d: %s, plan %v", p, b, f[1+c], reps)
			}
		}
		if f[7] != "3" {
			t.Fatalf("partition %d spans %s racks", p, f[7])
		}
	}
}

func TestRerollAndStep(t *testing.T) {
	e := openPreview(t, 200, 58)
	first := e.m.Plan()
	s0, h0 := e.m.pv.start, e.m.pv.shift
	e.press("r")
	if e.m.pv.start == s0 && e.m.pv.shift == h0 {
		t.Fatal("r draws another start index or shift")
	}
	if clusterops.SamePlan(first, e.m.Plan()) {
		t.Fatal("a re-roll changes the plan")
	}
	if !strings.Contains(view(e), fmt.Sprintf("start index %d, replica shift %d", e.m.pv.start, e.m.pv.shift)) {
		t.Fatalf("the index and shift are shown:\n%s", view(e))
	}
	s1 := e.m.pv.start
	e.press("right")
	if e.m.pv.start != (s1+1)%6 || e.m.Plan().Result.StartIndex != e.m.pv.start {
		t.Fatalf("→: %d", e.m.pv.start)
	}
	e.press("left", "left")
	if e.m.pv.start != (s1+5)%6 {
		t.Fatalf("←: %d", e.m.pv.start)
	}
	// The plan equals Kafka's with the same fixed choices.
	want, err := assign.Assign(e.m.Plan().Brokers, 12, 3, assign.Options{StartIndex: e.m.pv.start, ReplicaShift: e.m.pv.shift, StartPartition: -1})
	if err != nil || !equal(want.Assignment, e.m.Plan().Assignment()) {
		t.Fatalf("plan %v want %v (%v)", e.m.Plan().Assignment(), want.Assignment, err)
	}
	// esc (the shell asks Back first) returns to the form, every value and
	// the start index kept.
	if !e.m.Back() {
		t.Fatal("esc in the preview is the wizard's")
	}
	if e.m.Stage() != "form" || e.m.form.in[fName].Value() != "payments" || e.m.form.in[fPartitions].Value() != "12" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	start := e.m.pv.start
	e.press("enter")
	if e.m.pv.start != start {
		t.Fatal("the start index survives a trip to the form")
	}
}

func equal(a, b assign.Assignment) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// create previews, confirms and returns the written multi.
func create(t *testing.T, e *env) {
	t.Helper()
	e.press("enter")
	if e.m.Stage() != "confirm" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	e.press("y")
}

func TestCreateWritesThePreview(t *testing.T) {
	e := openPreview(t, 200, 58)
	e.press("r", "right")
	plan := e.m.Plan()
	create(t, e)
	if e.m.Stage() != "progress" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	if len(e.z.Sent) != 1 {
		t.Fatalf("%d multis", len(e.z.Sent))
	}
	data, ok := e.z.Written(plan.TopicPath)
	if !ok || !bytes.Equal(data, plan.TopicJSON) {
		t.Fatalf("wrote %s, previewed %s", data, plan.TopicJSON)
	}
	if cfg, _ := e.z.Written(plan.ConfigPath); string(cfg) != `{"version":1,"config":{}}` {
		t.Fatalf("config %s", cfg)
	}
	a, err := cluster.DecodeTopicAssignment(data)
	if err != nil || !equal(a.Partitions, plan.Assignment()) {
		t.Fatalf("decoded %v %v", a.Partitions, err)
	}
}

// TestConfirmPopup: n and esc cancel; enter on the focused Create writes;
// tab moves to Cancel.
func TestConfirmPopup(t *testing.T) {
	e := openPreview(t, 200, 58)
	e.press("enter", "n")
	if e.m.Stage() != "preview" {
		t.Fatal("n cancels")
	}
	e.press("enter")
	if !e.m.Back() || e.m.Stage() != "preview" {
		t.Fatal("esc cancels")
	}
	e.press("enter", "tab", "enter")
	if e.m.Stage() != "preview" || len(e.z.Sent) != 0 {
		t.Fatal("enter on Cancel cancels")
	}
	e.press("enter", "enter")
	if e.m.Stage() != "progress" || len(e.z.Sent) != 1 {
		t.Fatalf("enter on Create: %s", e.m.Stage())
	}
}

// TestClusterChangedBeforeWrite: a broker leaves between the preview and
// the confirmation: nothing is written, the new plan is shown.
func TestClusterChangedBeforeWrite(t *testing.T) {
	e := openPreview(t, 200, 58)
	before := e.m.Plan()
	e.apply(brokerGone(4))
	if !strings.Contains(view(e), "The brokers changed since this preview") {
		t.Fatalf("the preview notices:\n%s", view(e))
	}
	create(t, e)
	if e.m.Stage() != "preview" || len(e.z.Sent) != 0 {
		t.Fatalf("stage %s, %d multis", e.m.Stage(), len(e.z.Sent))
	}
	if !strings.Contains(e.m.fr.Note.Text, "broker 4 left") || clusterops.SamePlan(before, e.m.Plan()) {
		t.Fatalf("note %q", e.m.fr.Note.Text)
	}
	for _, b := range e.m.Plan().Brokers {
		if b.ID == 4 {
			t.Fatal("the new plan still uses broker 4")
		}
	}
	// The new plan is the one written on the next confirmation.
	plan := e.m.Plan()
	create(t, e)
	if data, _ := e.z.Written(plan.TopicPath); !bytes.Equal(data, plan.TopicJSON) {
		t.Fatal("wrote something else than the new preview")
	}
}

// TestAlreadyExists: someone else created the topic meanwhile; Kafka's
// message, nothing written, back to the form.
func TestAlreadyExists(t *testing.T) {
	e := openPreview(t, 200, 58)
	e.z.Exists("/")
	e.z.Nodes["/brokers/topics/payments"] = []byte("someone else's")
	create(t, e)
	if e.m.Stage() != "failed" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	out := view(e)
	for _, want := range []string{"Topic 'payments' already exists.", "Nothing was written"} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q:\n%s", want, out)
		}
	}
	if _, ok := e.z.Written("/config/topics/payments"); ok {
		t.Fatal("the config was written")
	}
	if line, state := e.m.TaskStatus(); state != nav.TaskFailed || !strings.Contains(line, "already exists") {
		t.Fatalf("status %q", line)
	}
	e.press("enter")
	if e.m.Stage() != "form" || e.m.form.in[fName].Value() != "payments" {
		t.Fatal("back to the form with the values")
	}
	// Once the mirror shows it, the form says so as typed.
	e.apply(topicWritten(&clusterops.TopicPlan{Name: "payments", ConfigPath: "/config/topics/payments", TopicPath: "/brokers/topics/payments",
		ConfigJSON: []byte(`{"version":1,"config":{}}`), TopicJSON: []byte(`{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`)}, 1)...)
	if e.m.form.errs[fName] != "Topic 'payments' already exists." {
		t.Fatalf("%q", e.m.form.errs[fName])
	}
}

// TestConnectionLost: a multi whose reply was lost is read back: the
// topic not there means nothing was written; a read back that fails too
// leaves the outcome unknown, never "nothing written".
func TestConnectionLost(t *testing.T) {
	e := openPreview(t, 200, 58)
	e.z.Fail = fmt.Errorf("create topic payments: %w", zk.ErrConnectionClosed)
	create(t, e)
	out := view(e)
	if e.m.Stage() != "failed" || !strings.Contains(out, "zk: connection closed") ||
		!strings.Contains(out, "The write got no reply; read back after reconnecting: the topic does not exist. Nothing was written.") {
		t.Fatalf("%s\n%s", e.m.Stage(), out)
	}
	if !errors.Is(e.m.tr.err, zk.ErrConnectionClosed) {
		t.Fatal(e.m.tr.err)
	}
	e = openPreview(t, 200, 58)
	e.z.Fail = fmt.Errorf("create topic payments: %w", zk.ErrConnectionClosed)
	e.z.GetErr = zk.ErrNoAuth
	create(t, e)
	if out := view(e); e.m.Stage() != "failed" || !strings.Contains(out, "The outcome is unknown") {
		t.Fatalf("%s\n%s", e.m.Stage(), out)
	}
}

// TestProgress: the controller initialises the partitions; the grid
// follows NonExistent → New → Online → in sync, then the summary.
func TestProgress(t *testing.T) {
	e := openPreview(t, 80, 22)
	plan := e.m.Plan()
	create(t, e)
	base := int64(1_800_000_000_000)
	e.apply(topicWritten(plan, base)...)
	for _, p := range e.m.tr.phase {
		if p != clusterops.PhaseNew {
			t.Fatalf("after the topic znode: %v", e.m.tr.phase)
		}
	}
	// Half the partitions online, one of them not yet in sync.
	var evs []zkwatch.Event
	for p := 0; p < 6; p++ {
		reps := plan.Assignment()[p]
		isr := reps
		if p == 5 {
			isr = reps[:2]
		}
		evs = append(evs, stateAt("payments", p, reps[0], isr, base+20+int64(p)))
	}
	e.apply(evs...)
	if e.m.Stage() != "progress" || e.m.tr.pr.Online != 6 || e.m.tr.pr.InSync != 5 {
		t.Fatalf("stage %s online %d sync %d", e.m.Stage(), e.m.tr.pr.Online, e.m.tr.pr.InSync)
	}
	if line, state := e.m.TaskStatus(); state != nav.TaskRunning || line != "Creating topic payments: 6/12 partitions online — waiting: followers to catch up: partition 5 (leaders add them to the ISR)" {
		t.Fatalf("status %q", line)
	}
	e.now = e.now.Add(1500 * time.Millisecond)
	e.m.Update(wizard.TickMsg{})
	checkSize(t, view(e), 80, 22)
	golden.RequireEqual(t, view(e))
	evs = evs[:0]
	for p := 6; p < 12; p++ {
		reps := plan.Assignment()[p]
		evs = append(evs, stateAt("payments", p, reps[0], reps, base+40+int64(p)))
	}
	e.apply(evs...)
	if e.m.Stage() != "done" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	if e.m.tr.doneIn != 51 || e.m.tr.first != 20 || e.m.tr.syncIn != -1 {
		t.Fatalf("times: done %d first %d sync %d", e.m.tr.doneIn, e.m.tr.first, e.m.tr.syncIn)
	}
	// The lagging replica catches up.
	reps := plan.Assignment()[5]
	st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: reps[0], Version: 1, ISR: reps})
	e.apply(zkwatch.Event{Type: zkwatch.Changed, Path: cluster.PartitionStatePath("payments", 5), Data: st, Stat: stat(base+90, 1, st)})
	if e.m.tr.syncIn != 90 {
		t.Fatalf("in sync at %d", e.m.tr.syncIn)
	}
	for _, sz := range [][2]int{{80, 22}, {200, 58}} {
		t.Run(fmt.Sprintf("summary/%dx%d", sz[0], sz[1]), func(t *testing.T) {
			e.m.SetSize(sz[0], sz[1])
			checkSize(t, view(e), sz[0], sz[1])
			golden.RequireEqual(t, view(e))
		})
	}
	if line, state := e.m.TaskStatus(); state != nav.TaskDone || line != "Topic payments created: all 12 partitions online 51ms after the write, in sync 90ms." {
		t.Fatalf("status %q", line)
	}
	reqs := e.press("enter")
	if len(reqs) != 1 || reqs[0] != (nav.OpenTopic{Topic: "payments", Partition: -1, Replace: true}) {
		t.Fatalf("enter: %v", reqs)
	}
	if e.m.Detach() {
		t.Fatal("a finished wizard does not stay in the background")
	}
}

// TestStalls: no controller, then a broker dies mid-way: the wizard says
// what it waits for.
func TestStalls(t *testing.T) {
	e := openPreview(t, 200, 58)
	plan := e.m.Plan()
	e.apply(zkwatch.Event{Type: zkwatch.Deleted, Path: cluster.ControllerPath})
	if !strings.Contains(view(e), "no active controller") {
		t.Fatalf("the preview warns:\n%s", view(e))
	}
	create(t, e)
	base := int64(1_800_000_000_000)
	e.apply(topicWritten(plan, base)...)
	if w := e.m.tr.waiting(); len(w) == 0 || !strings.HasPrefix(w[0], "no active controller") {
		t.Fatalf("waiting %v", w)
	}
	if !strings.Contains(view(e), "waiting for: no active controller") {
		t.Fatalf("%s", view(e))
	}
	// A controller arrives; broker 2 dies before the partitions are
	// initialised: those with a replica on it come online without it.
	ctrl := cluster.EncodeController(cluster.NewControllerInfo(2, 3, base))
	e.apply(zkwatch.Event{Type: zkwatch.Created, Path: cluster.ControllerPath, Data: ctrl, Stat: stat(base, 0, ctrl)}, brokerGone(2))
	var evs []zkwatch.Event
	var lagging []int
	for p := 0; p < 12; p++ {
		reps := plan.Assignment()[p]
		var isr []int
		for _, r := range reps {
			if r != 2 {
				isr = append(isr, r)
			}
		}
		if len(isr) < len(reps) {
			lagging = append(lagging, p)
		}
		evs = append(evs, stateAt("payments", p, isr[0], isr, base+30))
	}
	e.apply(evs...)
	if e.m.Stage() != "done" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	out := view(e)
	want := fmt.Sprintf("waiting for: broker 2 is not registered: partitions %s wait for it to rejoin the ISR", ints(lagging))
	if !strings.Contains(out, want) {
		t.Fatalf("missing %q:\n%s", want, out)
	}
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// TestDetach: esc during the creation keeps it running (the shell keeps
// the wizard); before, nothing is in flight.
func TestDetach(t *testing.T) {
	e := openPreview(t, 80, 22)
	if e.m.Detach() {
		t.Fatal("nothing in flight in the preview")
	}
	create(t, e)
	if e.m.Back() {
		t.Fatal("esc in the progress closes the wizard (the shell's job)")
	}
	if !e.m.Detach() {
		t.Fatal("the creation keeps running")
	}
	if cmd := e.m.tick(); cmd != nil {
		t.Fatal("no clock ticks in the background")
	}
	e.apply(topicWritten(e.m.Plan(), 1)...)
	if line, state := e.m.TaskStatus(); state != nav.TaskRunning || !strings.HasPrefix(line, "Creating topic payments: 0/12 partitions online") {
		t.Fatalf("%q", line)
	}
}

func TestPace(t *testing.T) {
	// The sandbox's pace changes after the wizard opened (the TUI's
	// sandbox slows down once its demo topics are online): the wizard
	// shows the pace of the moment, and the key cycles on from it.
	sandboxPace := time.Duration(0)
	e := openPreview(t, 80, 22, func(o *Options) { o.Pace = func() time.Duration { return sandboxPace } })
	create(t, e)
	if !strings.Contains(view(e), "sandbox pace 0s (p)") {
		t.Fatal(view(e))
	}
	sandboxPace = 300 * time.Millisecond
	if !strings.Contains(view(e), "sandbox pace 300ms (p)") {
		t.Fatal(view(e))
	}
	sandboxPace = 0
	var paces []string
	for range 5 {
		for _, r := range e.press("p") {
			paces = append(paces, r.(nav.SetPace).Pace.String())
		}
	}
	if strings.Join(paces, " ") != "250ms 1s 3s 0s 250ms" {
		t.Fatalf("paces %v", paces)
	}
	if !strings.Contains(view(e), "sandbox pace 250ms (p)") {
		t.Fatal(view(e))
	}
	// Without a sandbox the key does nothing.
	f := openPreview(t, 80, 22)
	create(t, f)
	if reqs := f.press("p"); len(reqs) != 0 {
		t.Fatal(reqs)
	}
}

func TestMouseAndKeysNeverPanic(t *testing.T) {
	e := newEnv(t, 20, 5)
	for _, k := range []string{"enter", "tab", "esc", "r", "w", "left", "right", "pgdown", "y", "n", "p", "space"} {
		e.press(k)
		_ = e.m.View()
	}
	e.m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	_ = e.m.View()
	// No snapshot yet.
	m := New(Options{})
	m.SetSize(80, 24)
	fill(&env{m: m}, "x")
	m.Update(fixture.Key("enter"))
	if m.Stage() != "form" || !strings.Contains(ansi.Strip(m.View()), "loading") {
		t.Fatalf("%s\n%s", m.Stage(), ansi.Strip(m.View()))
	}
}

// TestTopicAppearsBeforeConfirm: the mirror shows the topic (created by
// someone else) before the confirmation: the re-check refuses with
// Kafka's message and writes nothing.
func TestTopicAppearsBeforeConfirm(t *testing.T) {
	e := openPreview(t, 200, 58)
	plan := e.m.Plan()
	e.apply(topicWritten(plan, 1)...)
	create(t, e)
	if e.m.Stage() != "preview" || len(e.z.Sent) != 0 {
		t.Fatalf("stage %s, %d multis", e.m.Stage(), len(e.z.Sent))
	}
	if !strings.Contains(view(e), "Not created: Topic 'payments' already exists.") {
		t.Fatalf("%s", view(e))
	}
}

// TestColumnsScroll: brokers that do not fit scroll sideways.
func TestColumnsScroll(t *testing.T) {
	e := newEnv(t, 60, 30)
	e.typeText("wide")
	e.m.form.focusField(fManual)
	var parts []string
	for p := 0; p < 20; p++ {
		parts = append(parts, fmt.Sprintf("%d:%d", 101+p, 201+p))
	}
	e.typeText(strings.Join(parts, ","))
	e.press("enter")
	if e.m.Stage() != "preview" {
		t.Fatalf("stage %s: %s", e.m.Stage(), e.m.form.msg)
	}
	out := view(e)
	if !strings.Contains(out, "brokers 1–") {
		t.Fatalf("no hint of more brokers:\n%s", out)
	}
	from, _ := e.m.pv.visibleCols()
	e.press(">")
	if f, _ := e.m.pv.visibleCols(); f <= from {
		t.Fatal("> scrolls the brokers")
	}
	e.press("<", "<")
	if f, _ := e.m.pv.visibleCols(); f != 0 {
		t.Fatal("< scrolls back")
	}
	checkSize(t, view(e), 60, 30)
}

// TestNoteKeepsTheLegend: a note above the matrix (the re-check's "Not
// created: the cluster changed…", a failed re-plan, …) takes lines from the
// partition rows, never from the legend under the matrix, at any size.
func TestNoteKeepsTheLegend(t *testing.T) {
	for _, sz := range [][2]int{{80, 22}, {200, 58}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			e := openPreview(t, sz[0], sz[1])
			e.apply(brokerGone(4))
			create(t, e)
			if !strings.HasPrefix(e.m.fr.Note.Text, "Not created: the cluster changed") {
				t.Fatalf("note %q", e.m.fr.Note.Text)
			}
			checkSize(t, view(e), sz[0], sz[1])
			for _, want := range []string{"L leader  F follower", "broker 4 is offline"} {
				if !strings.Contains(view(e), want) {
					t.Fatalf("%q fell off the screen:\n%s", want, view(e))
				}
			}
			// The note goes with the next re-roll: the rows take the room again.
			e.press("r")
			if e.m.fr.Note.Text != "" || !strings.Contains(view(e), "L leader  F follower") {
				t.Fatalf("after the note went:\n%s", view(e))
			}
		})
	}
}

// TestEscAsksBeforeDropping: esc in a form typed into asks first (the
// second esc closes, any other key goes on with the form); an untouched
// form closes at once.
func TestEscAsksBeforeDropping(t *testing.T) {
	e := newEnv(t, 80, 22)
	if reqs := e.press("esc"); len(reqs) != 1 || reqs[0] != (nav.Close{}) {
		t.Fatalf("untouched form: %v", reqs)
	}
	e = newEnv(t, 80, 22)
	e.typeText("pay")
	if reqs := e.press("esc"); len(reqs) != 0 || !strings.Contains(view(e), "esc again closes the wizard and drops what was typed") {
		t.Fatalf("first esc: %v\n%s", reqs, view(e))
	}
	e.typeText("s")
	if e.m.form.in[fName].Value() != "pays" || strings.Contains(view(e), "esc again") {
		t.Fatalf("another key: %q\n%s", e.m.form.in[fName].Value(), view(e))
	}
	if reqs := e.press("esc", "esc"); len(reqs) != 1 || reqs[0] != (nav.Close{}) {
		t.Fatalf("esc esc: %v", reqs)
	}
}
