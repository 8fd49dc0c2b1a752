package cmd

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The TUI's operations on a real KRaft cluster (Kafka 4.4, a controller
// and brokers 1-4 in racks a and b), each with its defaults, in the built
// binary in a real terminal: a topic created (c), a broker drained with
// the leaders first and the broker cordoned, throttled and not, and one
// cordoned beforehand; while the drained broker is cordoned a topic
// created, a topic moved to one more replica (R), partitions added (a), a
// config changed (e); a preferred election (p) after each drain is undone.
// Kafka's own tools judge each end state: no replica on the drained broker
// and the broker cordoned, the leaders the preview promised, no throttle
// left, nothing placed on a cordoned broker, the replicas, partitions,
// configs and leaders asked for.

// kraftRig is a KRaft cluster the scenarios run on: its bootstrap list,
// its brokers, its version's tools (nil on the sandbox, which is read
// with ktopo's reads and franz-go's requests instead: kraftrig_test.go).
type kraftRig struct {
	bs      string
	brokers []int
	dist    *kafkatest.Dist
}

func rigOf(c *kafkatest.KRaftCluster) kraftRig {
	return kraftRig{bs: c.Bootstrap(), brokers: c.BrokerIDs(), dist: c.Dist()}
}

// tool runs one of Kafka's tools and returns its output, failing on a
// non-zero exit.
func (r kraftRig) tool(t *testing.T, script string, args ...string) string {
	t.Helper()
	res, err := r.dist.Command(script, append([]string{"--bootstrap-server", r.bs}, args...)...)
	if err != nil || res.Code != 0 {
		t.Fatalf("%s %s: %v %+v", script, strings.Join(args, " "), err, res)
	}
	return res.Stdout
}

// partitionRec is a partition as kafka-topics --describe shows it.
type partitionRec struct {
	Replicas, Leader string
}

// describe is kafka-topics --describe of topics: topic → partition →
// its replicas and leader.
func (r kraftRig) describe(t *testing.T, topics ...string) map[string]map[string]partitionRec {
	t.Helper()
	if r.dist == nil {
		return r.describeRead(t, topics...)
	}
	out := map[string]map[string]partitionRec{}
	for _, rec := range describeRecords(t, r.tool(t, "kafka-topics", "--describe", "--topic", strings.Join(topics, "|"))) {
		if p, ok := rec["Partition"]; ok {
			if out[rec["Topic"]] == nil {
				out[rec["Topic"]] = map[string]partitionRec{}
			}
			out[rec["Topic"]][p] = partitionRec{Replicas: rec["Replicas"], Leader: rec["Leader"]}
		}
	}
	return out
}

// brokerConfigs is kafka-configs --describe of broker id: its dynamic
// configs.
func (r kraftRig) brokerConfigs(t *testing.T, id int) string {
	t.Helper()
	if r.dist == nil {
		return r.configsRead(t, kmsg.ConfigResourceTypeBroker, strconv.Itoa(id))
	}
	return r.tool(t, "kafka-configs", "--describe", "--entity-type", "brokers", "--entity-name", strconv.Itoa(id))
}

// topicConfigs is kafka-configs --describe of topic: its overrides.
func (r kraftRig) topicConfigs(t *testing.T, topic string) string {
	t.Helper()
	if r.dist == nil {
		return r.configsRead(t, kmsg.ConfigResourceTypeTopic, topic)
	}
	return r.tool(t, "kafka-configs", "--describe", "--entity-type", "topics", "--entity-name", topic)
}

// cordon cordons broker id's log directories as an operator does: with
// Kafka's kafka-configs (ktopo's configs on the sandbox).
func (r kraftRig) cordon(t *testing.T, id int) {
	t.Helper()
	args := []string{"--alter", "--entity-type", "brokers", "--entity-name", strconv.Itoa(id), "--add-config", "cordoned.log.dirs=*"}
	if r.dist == nil {
		runOK(t, append([]string{"configs", "--bootstrap-server", r.bs}, args...)...)
		return
	}
	r.tool(t, "kafka-configs", args...)
}

// read is the cluster as ktopo reads it (a one-shot poll): what the
// waits follow, Kafka's own tools being slow to start.
func (r kraftRig) read(t *testing.T) *cluster.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := kafkawatch.Load(ctx, kafkawatch.Dial{Bootstrap: strings.Split(r.bs, ",")}, cluster.ModelOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// on lists "topic-p" of the partitions with a replica on broker.
func on(d map[string]map[string]partitionRec, broker int) []string {
	var out []string
	for topic, ps := range d {
		for p, rec := range ps {
			if slices.Contains(strings.Split(rec.Replicas, ","), strconv.Itoa(broker)) {
				out = append(out, topic+"-"+p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// throttles are the throttle configs kafka-configs shows on any broker or
// on topics.
func (r kraftRig) throttles(t *testing.T, topics ...string) []string {
	t.Helper()
	if r.dist == nil {
		return r.throttlesRead(t, topics...)
	}
	var out []string
	for _, l := range strings.Split(r.tool(t, "kafka-configs", "--describe", "--entity-type", "brokers"), "\n") {
		if strings.Contains(l, "throttled.rate") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	for _, topic := range topics {
		for _, l := range strings.Split(r.tool(t, "kafka-configs", "--describe", "--entity-type", "topics", "--entity-name", topic), "\n") {
			if strings.Contains(l, "throttled.replicas") {
				out = append(out, strings.TrimSpace(l))
			}
		}
	}
	return out
}

// timeless is a flat screen (flatText) without its clocks (elapsed times,
// the status bar's poll time) and the overview's quorum line (its
// followers' lag moves with every no-op record the controller appends):
// what changes only when something happens.
var timeless = regexp.MustCompile(`\d+(\.\d+)?(ms|s|m)\b|\d+ ms a poll|quorum leader .*? rack-`)

// waitProgress waits until the screen shows every want, in that order,
// as long as what it shows keeps changing: it fails after stall without
// a change (its clocks aside) or, whatever happens, after an hour.
func (tm *tmuxTerm) waitProgress(what string, stall time.Duration, want ...string) string {
	tm.t.Helper()
	return tm.waitScreen(what, stall, fmt.Sprintf("%q", want), func(flat string) bool { return inOrderText(flat, want...) })
}

// waitScreen waits, as waitProgress does, until the screen (made flat:
// flatText) is as cond wants; wanted says what that is.
func (tm *tmuxTerm) waitScreen(what string, stall time.Duration, wanted string, cond func(flat string) bool) string {
	tm.t.Helper()
	start := time.Now()
	last, changed := "", time.Now()
	for {
		s := tm.screen()
		if cond(flatText(s)) {
			return s
		}
		if now := timeless.ReplaceAllString(flatText(s), ""); now != last {
			last, changed = now, time.Now()
		}
		if time.Since(changed) > stall || time.Since(start) > time.Hour {
			tm.t.Fatalf("%s: the screen does not show %s, and has not changed for %s; it shows:\n%s", what, wanted, time.Since(changed).Round(time.Second), s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// flatText is a screen's text with every run of spaces and line breaks
// made one space.
func flatText(s string) string { return strings.Join(strings.Fields(s), " ") }

// inOrderText reports that s holds every one of want, each after the one
// before.
func inOrderText(s string, want ...string) bool {
	for _, w := range want {
		i := strings.Index(s, w)
		if i < 0 {
			return false
		}
		s = s[i+len(w):]
	}
	return true
}

// stall is how long a wait lets the screen stand still: on a loaded
// machine a poll, a request or Kafka's controller take seconds.
const stall = 3 * time.Minute

// kraftUI is ktopo in a terminal on the rig, and what its scenarios share.
type kraftUI struct {
	r      kraftRig
	tm     *tmuxTerm
	topics []string
	// broker is the broker the drains drain (0 before the first); orig
	// the topics' replicas before it.
	broker int
	orig   map[string]map[string]partitionRec
	// reelected: the first drain's broker led nothing and a preferred
	// election was run to give it leaders.
	reelected bool
}

// startKRaftUI creates the scenarios' RF 2 topic and starts ktopo on the
// rig.
func startKRaftUI(t *testing.T, r kraftRig) *kraftUI {
	needTmux(t)
	runOK(t, "topics", "create", "--bootstrap-server", r.bs, "--topic", "ui-clicks", "--partitions", "6", "--replication-factor", "2")
	bin := buildKtopo(t)
	logf := filepath.Join(t.TempDir(), "ktopo.log")
	tm := startTmux(t, 200, 70, []string{"KTOPO_LOG=" + logf, "TERM=xterm-256color"}, bin, "--bootstrap-server", r.bs)
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(logf); err == nil {
				t.Logf("ktopo's log:\n%s", b)
			}
		}
	})
	k := &kraftUI{r: r, tm: tm, topics: []string{"ui-clicks"}}
	tm.waitProgress("the overview", stall, "topics 1", "quorum leader 3000", "rack-a", "rack-b", "broker 4")
	return k
}

// use makes t the test the terminal fails.
func (k *kraftUI) use(t *testing.T) { k.tm.t = t }

// overview goes back to the overview: esc closes the screens on top (one
// at a time: an escape the terminal gets right before another key reads
// as alt and that key), then 1.
func (k *kraftUI) overview() {
	for range 3 {
		k.tm.keys("Escape")
		time.Sleep(300 * time.Millisecond)
	}
	k.tm.keys("1")
	k.tm.waitProgress("the overview", stall, "quorum leader")
}

// openTopic opens a topic's screen with the command line.
func (k *kraftUI) openTopic(topic string) {
	k.overview()
	k.tm.keys(":")
	k.tm.keys("topic " + topic)
	k.tm.keys("Enter")
	k.tm.waitProgress("topic "+topic, stall, "Topic "+topic)
}

// create creates topic with the creation wizard's defaults (8 partitions,
// replication factor 3): what its request (w) names is what Kafka shows.
// A cordoned broker gets nothing.
func (k *kraftUI) create(t *testing.T, topic string, cordoned int) {
	k.use(t)
	k.overview()
	k.tm.keys("c")
	k.tm.waitProgress("the creation form", stall, "Create a topic", "Partitions")
	k.tm.keys(topic, "Enter")
	k.tm.waitProgress("the creation's preview", stall, "Preview "+topic, "the KRaft controller's placement, seed")
	k.tm.keys("w")
	want := requestAssignment(t, k.tm.waitProgress("its request", stall, "CreateTopics", "partition 7 replicas"))
	for p, rs := range want {
		if cordoned > 0 && slices.Contains(strings.Split(rs, ","), strconv.Itoa(cordoned)) {
			t.Errorf("the creation places partition %s on cordoned broker %d: %s", p, cordoned, rs)
		}
	}
	k.tm.keys("w", "Enter")
	k.tm.waitProgress("the creation's confirmation", stall, "Sends CreateTopics")
	k.tm.keys("y")
	k.tm.waitProgress("the creation", stall, "Topic "+topic+" is online")
	k.topics = append(k.topics, topic)
	got := map[string]string{}
	for p, rec := range k.r.describe(t, topic)[topic] {
		got[p] = rec.Replicas
	}
	if !maps.Equal(got, want) {
		t.Errorf("Kafka created %s with %v, the request said %v", topic, got, want)
	}
}

// leadPromise reads the preview's "N leaders move off broker B to 1 (2),
// 3 (1)": broker → leaders it takes over.
var leadPromise = regexp.MustCompile(`(\d+) leaders? moves? off broker (\d+) to ((?:\d+ \(\d+\)(?:, )?)+)`)

// drain drains the broker (the selected card's, the first time) with the
// defaults, throttled or not; cordonedBefore says the broker was
// cordoned by hand, so that the drain must send no reorder. Kafka's tools
// then find no replica on the broker, the broker cordoned, the leaders it
// led where the preview promised, no throttle left.
func (k *kraftUI) drain(t *testing.T, throttled, cordonedBefore bool) {
	k.use(t)
	tm := k.tm
	k.overview()
	if k.broker > 0 {
		// The drain is planned on what ktopo has read of the cordon.
		cordoned := "cordoned " + strconv.Itoa(k.broker)
		tm.waitScreen("the quorum line on broker "+strconv.Itoa(k.broker)+"'s cordon", stall, fmt.Sprintf("%q: %v", cordoned, cordonedBefore),
			func(flat string) bool { return strings.Contains(flat, cordoned) == cordonedBefore })
	}
	tm.keys("d")
	s := tm.waitProgress("the drain's preview", stall, "Drain broker", "◉ minimal:", "PARTITION")
	m := drainTitle.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no broker in the drain's title:\n%s", s)
	}
	b, _ := strconv.Atoi(m[1])
	if k.broker == 0 && strings.Contains(flatText(s), "leads 0") {
		// The first drain shows leaders first, so its broker must lead a
		// partition: the one under the cursor may lead none at this moment
		// (the leaders went elsewhere while it restarted). A preferred
		// election of every partition gives it back those it prefers.
		tm.keys("esc")
		// Asked again every few seconds: a broker back from a restart is
		// not preferred until it has caught up into the ISR.
		var asked time.Time
		waitUntilShowing(t, "broker "+m[1]+" leading a partition", func() bool {
			if time.Since(asked) > 5*time.Second {
				runOK(t, "leader-election", "--bootstrap-server", k.r.bs, "--election-type", "preferred", "--all-topic-partitions")
				asked = time.Now()
			}
			br, ok := k.r.read(t).Broker(b)
			return ok && br.Leaders > 0
		}, func() string {
			var b strings.Builder
			for _, tp := range k.r.read(t).Topics() {
				for _, p := range tp.Partitions {
					fmt.Fprintf(&b, "%s-%d replicas %v leader %d ISR %v\n", tp.Name, p.ID, p.Replicas, p.Leader, p.ISR)
				}
			}
			return b.String()
		})
		if !k.reelected {
			k.reelected = true
			time.Sleep(3 * time.Second) // the TUI's next polls read the election
			k.drain(t, throttled, cordonedBefore)
			return
		}
	}
	if k.broker == 0 {
		k.broker = b
		k.orig = k.r.describe(t, k.topics...)
	} else if b != k.broker {
		t.Fatalf("the drain is of broker %d, not %d:\n%s", b, k.broker, s)
	}
	before := k.r.describe(t, k.topics...)
	if len(on(before, b)) == 0 {
		t.Fatalf("broker %d holds no replica to drain", b)
	}
	flat := flatText(s)
	bs := strconv.Itoa(b)
	switch {
	case cordonedBefore:
		if !inOrderText(flat, "broker "+bs+" is cordoned already", "first: 1 leader moves off broker "+bs, "until the copy: moving", "first needs a reorder, which Kafka refuses while broker "+bs+" is cordoned") ||
			strings.Contains(flat, "first: reorder") || strings.Contains(flat, "cordon broker "+bs+" (") {
			t.Errorf("the preview of cordoned broker %d:\n%s", b, s)
		}
	case !inOrderText(flat, "first: reorder", "broker "+bs+" last", "then: cordon broker "+bs+" (cordoned.log.dirs=*)", "then: ", "by a preferred election"):
		t.Errorf("the preview does not say the reorder, the cordon and the election in their order:\n%s", s)
	}
	promise := map[string]int{}
	if pm := leadPromise.FindStringSubmatch(flat); pm != nil {
		for _, part := range strings.Split(pm[3], ", ") {
			var id, n int
			fmt.Sscanf(part, "%d (%d)", &id, &n)
			promise[strconv.Itoa(id)] = n
		}
	}
	if throttled {
		tm.keys("t")
		tm.waitProgress("the throttle", stall, "throttle 10 MiB/s, removed when done")
	}
	tm.keys("w")
	ws := flatText(tm.waitProgress("the requests", stall, "Kafka request", "AlterPartitionReassignments"))
	wantW := []string{"first: reorder", "AlterPartitionReassignments", "then: cordon broker " + bs, "IncrementalAlterConfigs", "SET cordoned.log.dirs=*",
		"then: elect the preferred leaders", "ElectLeaders", "then: the drain"}
	if cordonedBefore {
		// The leader it holds second moves by the election; the others
		// need a reorder and move with the copy.
		wantW = []string{"Sent as 2 Kafka requests", "first: elect the preferred leaders of 1 partition", "ElectLeaders", "then: the drain"}
		if strings.Contains(ws, "cordoned.log.dirs=*") || strings.Contains(ws, "first: reorder") {
			t.Errorf("w sends a reorder or a cordon on cordoned broker %d:\n%s", b, ws)
		}
	}
	if throttled {
		wantW = append(wantW, "IncrementalAlterConfigs", "leader.replication.throttled.rate=10485760", "AlterPartitionReassignments")
	} else {
		wantW = append(wantW, "AlterPartitionReassignments")
	}
	if !inOrderText(ws, wantW...) {
		t.Errorf("w does not show %q in that order:\n%s", wantW, ws)
	}
	tm.keys("w", "Enter")
	pop := flatText(tm.waitProgress("confirmation", stall, "Drain broker "+bs+"?"))
	if throttled != strings.Contains(pop, "throttles") {
		t.Errorf("the confirmation, throttled %v:\n%s", throttled, pop)
	}
	tm.keys("y")
	done := []string{"Drained broker " + bs, "it holds no replica"}
	if throttled {
		done = append(done, "throttles removed")
	}
	if !cordonedBefore {
		done = append(done, "stays cordoned")
	}
	tm.waitProgress("the drain's end", stall, done...)

	after := k.r.describe(t, k.topics...)
	if left := on(after, b); len(left) > 0 {
		t.Errorf("Kafka's kafka-topics still places %v on drained broker %d", left, b)
	}
	if d := k.r.brokerConfigs(t, b); !strings.Contains(d, "cordoned.log.dirs=*") {
		t.Errorf("broker %d is not cordoned after its drain:\n%s", b, d)
	}
	// The leaders it led went where the preview said: all of them when
	// every one could move first, else at least those (the others moved
	// with the copy, where the controller elected them).
	// (one partition "keeps its leader until the copy", several "keep their
	// leaders": the check must hold for either, as a run may drain either)
	all := !strings.Contains(flat, "until the copy: moving") && !strings.Contains(flat, "cannot move first")
	got := map[string]int{}
	for topic, ps := range before {
		for p, rec := range ps {
			if rec.Leader == bs {
				got[after[topic][p].Leader]++
			}
		}
	}
	for l, n := range promise {
		if got[l] < n || all && got[l] != n {
			t.Errorf("the leaders broker %d led went to %v, the preview promised %v first", b, got, promise)
			break
		}
	}
	if all && len(got) != len(promise) {
		t.Errorf("the leaders broker %d led went to %v, the preview promised %v", b, got, promise)
	}
	if th := k.r.throttles(t, k.topics...); len(th) > 0 {
		t.Errorf("throttles left after the drain: %v", th)
	}
	// Every partition keeps its replication factor, and spans both racks
	// (brokers 1 and 3 in rack-a, 2 and 4 in rack-b).
	for topic, ps := range after {
		for p, rec := range ps {
			ids := strings.Split(rec.Replicas, ",")
			racks := map[int]bool{}
			for _, id := range ids {
				n, _ := strconv.Atoi(id)
				racks[n%2] = true
			}
			if len(ids) != len(strings.Split(before[topic][p].Replicas, ",")) || len(racks) != 2 {
				t.Errorf("%s-%s: replicas %s (were %s)", topic, p, rec.Replicas, before[topic][p].Replicas)
			}
		}
	}
}

// undo puts the drained broker back as it was before the first drain:
// uncordoned, its replicas returned (a reassignment naming it, which
// Kafka refuses until the broker's heartbeat has told the controller it
// is uncordoned), then p in the TUI elects the preferred leaders, which
// Kafka's tools then show.
func (k *kraftUI) undo(t *testing.T) {
	k.use(t)
	bs := strconv.Itoa(k.broker)
	runOK(t, "configs", "--bootstrap-server", k.r.bs, "--entity-type", "brokers", "--entity-name", bs, "--alter", "--delete-config", "cordoned.log.dirs")
	var out string
	waitUntilShowing(t, "Kafka's controller knows broker "+bs+" uncordoned", func() bool {
		var code int
		code, out, _ = runCLI(t, "topics", "create", "--bootstrap-server", k.r.bs, "--topic", "ui-probe", "--replica-assignment", bs, "--validate-only")
		return code == 0
	}, func() string { return out })
	back := map[cluster.TopicPartition][]int{}
	for topic, ps := range k.orig {
		for p, rec := range ps {
			n, _ := strconv.Atoi(p)
			back[cluster.TopicPartition{Topic: topic, Partition: n}] = ints(t, rec.Replicas)
		}
	}
	file := filepath.Join(t.TempDir(), "back.json")
	if err := os.WriteFile(file, cluster.FormatReassignmentJSON(back), 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, "reassign", "--execute", "--bootstrap-server", k.r.bs, "--reassignment-json-file", file)
	var s *cluster.Snapshot
	waitUntilShowing(t, "the replicas back", func() bool {
		s = k.r.read(t)
		for tp, rs := range back {
			p := s.Topic(tp.Topic).Partition(tp.Partition)
			if p == nil || p.Reassigning() || !slices.Equal(p.Replicas, rs) {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprint(cluster.Reassignments(s)) })
	k.elect(t)
}

// elect runs p on the overview (every topic) and checks with Kafka's
// tools that every partition is led by its first replica.
func (k *kraftUI) elect(t *testing.T) {
	k.use(t)
	k.overview()
	k.tm.keys("p")
	s := k.tm.waitProgress("the election's preview", stall, "Preferred leader election of every topic", "already led by their preferred replica")
	if !strings.Contains(s, "Nothing to elect.") {
		if strings.Contains(s, "no active controller") {
			t.Errorf("the election's preview says there is no controller:\n%s", s)
		}
		k.tm.keys("Enter")
		k.tm.waitProgress("the election's confirmation", stall, "y write")
		k.tm.keys("y")
		k.tm.waitProgress("the election", stall, "Preferred leader election of every topic:", "elected")
	}
	waitUntilShowing(t, "every partition led by its first replica", func() bool {
		for _, ps := range k.r.describe(t, k.topics...) {
			for _, rec := range ps {
				if first, _, _ := strings.Cut(rec.Replicas, ","); rec.Leader != first {
					return false
				}
			}
		}
		return true
	}, func() string { return fmt.Sprint(k.r.describe(t, k.topics...)) })
}

// opsWhileCordoned runs, while the drained broker is cordoned, the topic
// operations with their defaults: a topic created (c), ui-clicks moved to
// one more replica (R +), partitions added to ui-orders (a), a config of
// ui-orders (e). Kafka's tools then show each, and nothing new on the
// cordoned broker.
func (k *kraftUI) opsWhileCordoned(t *testing.T) {
	k.use(t)
	tm, b := k.tm, k.broker
	// ktopo reads the brokers' log directories every few polls: the
	// previews avoid the cordon once it is read.
	k.overview()
	tm.waitProgress("ktopo reading the cordon", stall, "cordoned "+strconv.Itoa(b))
	k.create(t, "ui-new", b)

	k.openTopic("ui-clicks")
	tm.keys("R", "+")
	tm.waitProgress("R +", stall, "Reassign topic ui-clicks", "replication factor 2 → 3")
	tm.keys("Enter")
	if pop := flatText(tm.waitProgress("R's confirmation", stall, "Reassign topic ui-clicks?")); !strings.Contains(pop, "Sends AlterPartitionReassignments.") || strings.Contains(pop, "throttles") {
		t.Errorf("R's confirmation:\n%s", pop)
	}
	tm.keys("y")
	tm.waitProgress("R's end", stall, "Reassigned topic ui-clicks", "replication factor 3")
	for p, rec := range k.r.describe(t, "ui-clicks")["ui-clicks"] {
		if ids := strings.Split(rec.Replicas, ","); len(ids) != 3 {
			t.Errorf("ui-clicks-%s: replicas %s, want 3", p, rec.Replicas)
		}
	}

	// A move: ui-skew, all on two brokers of the racks, evened out by the
	// balanced strategy (the minimal one has nothing to move).
	others := slices.DeleteFunc(slices.Clone(k.r.brokers), func(id int) bool { return id == b })
	skew := fmt.Sprintf("%d:%d,%d:%d,%d:%d,%d:%d", others[0], others[1], others[1], others[0], others[0], others[1], others[1], others[0])
	runOK(t, "topics", "create", "--bootstrap-server", k.r.bs, "--topic", "ui-skew", "--replica-assignment", skew)
	k.topics = append(k.topics, "ui-skew")
	k.openTopic("ui-skew")
	tm.keys("R")
	tm.waitProgress("R", stall, "Reassign topic ui-skew", "Nothing to move")
	tm.keys("s")
	tm.waitProgress("R, balanced", stall, "◉ balanced:", "partitions move")
	tm.keys("Enter")
	tm.waitProgress("R's confirmation", stall, "Reassign topic ui-skew?", "strategy balanced")
	tm.keys("y")
	tm.waitProgress("R's end", stall, "Reassigned topic ui-skew")
	used := map[string]int{}
	for _, rec := range k.r.describe(t, "ui-skew")["ui-skew"] {
		for _, id := range strings.Split(rec.Replicas, ",") {
			used[id]++
		}
	}
	if len(used) != 3 || used[strconv.Itoa(b)] > 0 {
		t.Errorf("ui-skew moved onto %v: want the 3 uncordoned brokers, not %d", used, b)
	}

	k.openTopic("ui-orders")
	tm.keys("a")
	tm.waitProgress("a", stall, "Add partitions to ui-orders", "8 → 16 partitions")
	tm.keys("Enter")
	tm.waitProgress("a's confirmation", stall, "y write")
	tm.keys("y")
	tm.waitProgress("a's end", stall, "Added partitions to topic ui-orders", "it has 16 partitions")
	d := k.r.describe(t, "ui-orders")["ui-orders"]
	if len(d) != 16 {
		t.Errorf("ui-orders has %d partitions, want 16", len(d))
	}
	k.openTopic("ui-orders")
	tm.keys("e")
	tm.waitProgress("e", stall, "Configs of topic ui-orders")
	tm.keys("retention.ms=3600000", "Enter")
	tm.waitProgress("e's preview", stall, "retention.ms", "3600000")
	tm.keys("Enter")
	tm.waitProgress("e's confirmation", stall, "y write")
	tm.keys("y")
	tm.waitProgress("e's end", stall, "Topic ui-orders's configs changed: 1 override set")
	var cfg string
	waitUntilShowing(t, "kafka-configs showing retention.ms=3600000", func() bool {
		cfg = k.r.topicConfigs(t, "ui-orders")
		return strings.Contains(cfg, "retention.ms=3600000")
	}, func() string { return cfg })

	if left := on(k.r.describe(t, k.topics...), b); len(left) > 0 {
		t.Errorf("cordoned broker %d got %v", b, left)
	}
}

// cordonByHand cordons the drained broker as an operator would, with
// Kafka's own tool, after making it lead a partition whose first replica
// is another broker (ui-orders-0 reordered with it first, its preferred
// leader elected, then reordered with it second): that leader can move by
// an election alone, the others need a reorder, which Kafka refuses on a
// cordoned broker.
func (k *kraftUI) cordonByHand(t *testing.T) {
	k.use(t)
	bs := strconv.Itoa(k.broker)
	rs := ints(t, k.r.describe(t, "ui-orders")["ui-orders"]["0"].Replicas)
	if i := slices.Index(rs, k.broker); i >= 0 {
		rs = slices.Delete(rs, i, i+1)
	} else {
		rs = rs[:len(rs)-1]
	}
	tp := cluster.TopicPartition{Topic: "ui-orders", Partition: 0}
	reassign := func(target []int) {
		// On its target already, the controller writes nothing: ktopo
		// reassign --execute still says it done (it waited for ever once).
		file := filepath.Join(t.TempDir(), "reorder.json")
		if err := os.WriteFile(file, cluster.FormatReassignmentJSON(map[cluster.TopicPartition][]int{tp: target}), 0o644); err != nil {
			t.Fatal(err)
		}
		runOK(t, "reassign", "--execute", "--bootstrap-server", k.r.bs, "--reassignment-json-file", file)
		waitUntil(t, fmt.Sprintf("ui-orders-0 on %v", target), func() bool {
			p := k.r.read(t).Topic("ui-orders").Partition(0)
			return slices.Equal(p.Replicas, target) && slices.Equal(p.ISR, target) || slices.Equal(p.Replicas, target) && len(p.ISR) == len(target)
		})
	}
	reassign(append([]int{k.broker}, rs...))
	runOK(t, "leader-election", "--bootstrap-server", k.r.bs, "--election-type", "preferred", "--topic", "ui-orders", "--partition", "0")
	second := append([]int{rs[0], k.broker}, rs[1:]...)
	reassign(second)
	waitUntil(t, "broker "+bs+" leading ui-orders-0, second", func() bool {
		return k.r.read(t).Topic("ui-orders").Partition(0).Leader == k.broker
	})
	k.r.cordon(t, k.broker)
}
