package kraftsandbox_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/tooldiff"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// TestDifferential runs one script of Kafka 4.4's own tools (kafka-topics,
// kafka-configs, kafka-reassign-partitions, kafka-leader-election,
// kafka-metadata-quorum, kafka-log-dirs, kafka-features,
// kafka-console-consumer, kafka-consumer-groups) against a real
// Kafka 4.4.0 KRaft cluster (3 controllers 3000-3002, brokers 1-3 in racks
// rack-a..c, internal/testkit/kafkatest) and against the sandbox of the
// same shape, and requires that every step prints the same, normalised
// (tooldiff.Names.Normalise: cluster, topic and directory ids, addresses,
// log directories, times, offsets, epochs and sizes), with the same exit
// status, except for the differences knownDifferences names
// (docs/kraft-sandbox-fidelity.md). It logs a table of every step's
// result, and a unified diff of each step that differs.
//
// The real cluster needs Java: the test skips without it, unless CI=true.
// KTOPO_KRAFT_DIFF_REAL=<bootstrap>/<controllers> runs the script against
// a cluster already running instead of starting one (its topics are named
// diff-*; it should have the same shape); KTOPO_KRAFT_DIFF_SIDES=sandbox
// runs the sandbox's side only (and prints its outputs);
// KTOPO_KRAFT_DIFF_DUMP=<dir> writes every step's outputs there.
func TestDifferential(t *testing.T) {
	dist := kafkatest.Require(t, kafkatest.Kafka44)
	// Last: the tool JVM (and any shared cluster) ends with the test.
	t.Cleanup(kafkatest.StopAll)
	start := time.Now()
	dir := t.TempDir()
	for name, text := range scriptFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	only := os.Getenv("KTOPO_KRAFT_DIFF_SIDES")
	var real *side
	if only == "" || only == "kafka" {
		real = kafkaSide(t)
	}
	var sb *side
	if only == "" || only == "sandbox" {
		sb = sandboxSide(t)
	}
	for _, s := range []*side{real, sb} {
		if s != nil {
			s.names.Literals = map[string]string{dir: "<dir>"}
			for path, name := range s.logDirs {
				s.names.Literals[path] = name
			}
		}
	}
	t.Logf("clusters up after %s", time.Since(start).Round(time.Millisecond))
	scriptStart := time.Now()

	var sides []*side
	for _, s := range []*side{real, sb} {
		if s != nil {
			sides = append(sides, s)
		}
	}
	var results []stepResult
	for _, st := range script {
		r := stepResult{step: st}
		for i, o := range runStep(dist, dir, st, sides) {
			if sides[i] == real {
				r.kafka = o
			} else {
				r.sandbox = o
			}
		}
		results = append(results, r)
	}
	t.Logf("script ran in %s (%d steps; %s in all)", time.Since(scriptStart).Round(time.Millisecond), len(script), time.Since(start).Round(time.Millisecond))
	if d := os.Getenv("KTOPO_KRAFT_DIFF_DUMP"); d != "" {
		dump(t, d, results)
	}
	report(t, results, real != nil && sb != nil)
}

// dump writes every step's raw output on each side into dir, as
// <step>.<side>.txt (KTOPO_KRAFT_DIFF_DUMP).
func dump(t *testing.T, dir string, results []stepResult) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		for side, o := range map[string]output{"kafka": r.kafka, "sandbox": r.sandbox} {
			if o.raw == "" && o.err == nil && o.code == 0 {
				continue
			}
			text := fmt.Sprintf("exit %d\n%s", o.code, o.raw)
			if o.err != nil {
				text += "\nerror: " + o.err.Error()
			}
			name := fmt.Sprintf("%02d-%s.%s.txt", i+1, strings.ReplaceAll(r.step.name, " ", "-"), side)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			norm := fmt.Sprintf("exit %d\n%s", o.code, o.norm)
			if err := os.WriteFile(filepath.Join(dir, strings.TrimSuffix(name, ".txt")+".norm"), []byte(norm), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// side is one of the two clusters the script runs against.
type side struct {
	name        string
	bootstrap   string
	controllers string
	names       tooldiff.Names
	cl          *kgo.Client
	// kill and restart a broker's process (nil: a cluster the test did
	// not start).
	kill, restart func(id int) error
	// down are the brokers killed (by index in bootstrap): {bs} leaves
	// them out, as an operator would, so that no tool's admin client
	// warns of a connection refused to the one it happened to pick.
	down map[int]bool
	// logDirs names the brokers' log directories (log.dirs in
	// kafka-configs --describe --all).
	logDirs map[string]string
}

// bs is the side's --bootstrap-server: its live brokers.
func (s *side) bs() string {
	var live []string
	for i, a := range strings.Split(s.bootstrap, ",") {
		if !s.down[i+1] {
			live = append(live, a)
		}
	}
	return strings.Join(live, ",")
}

// output is what one step printed on one side, normalised.
type output struct {
	raw, norm string
	code      int
	err       error // the step could not run (its setup failed)
	took      time.Duration
}

type stepResult struct {
	step           step
	kafka, sandbox output
}

func kafkaSide(t *testing.T) *side {
	if env := os.Getenv("KTOPO_KRAFT_DIFF_REAL"); env != "" {
		bs, ctl, ok := strings.Cut(env, "/")
		if !ok {
			t.Fatalf("KTOPO_KRAFT_DIFF_REAL=%q: want <bootstrap>/<controllers>", env)
		}
		return newSide(t, "kafka", bs, ctl)
	}
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Controllers: 3, Brokers: 3, Racks: 3,
		Props: map[string]string{"auto.leader.rebalance.enable": "false"}})
	if err != nil {
		if os.Getenv("CI") != "true" && errors.Is(err, kafkatest.ErrUnavailable) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	kafkatest.Attach(t, c)
	t.Cleanup(c.Stop)
	s := newSide(t, "kafka", c.Bootstrap(), c.ControllerBootstrap())
	for _, n := range c.Brokers() {
		s.logDirs[n.DataDir()] = fmt.Sprintf("<log-dir of broker %d>", n.ID)
	}
	s.kill = func(id int) error { c.Node(id).Kill(); return nil }
	s.restart = func(id int) error { return c.Node(id).Start() }
	return s
}

func sandboxSide(t *testing.T) *side {
	// The real cluster's session timeout (kafkatest's 6 s), so that a
	// killed broker is fenced as soon on both sides.
	c, err := kraftsandbox.Start(kraftsandbox.Config{Brokers: 3, Controllers: 3, Racks: 3, SessionTimeout: 6 * time.Second,
		NoAutoLeaderRebalance: true, Rand: mrand.New(mrand.NewPCG(30, 44))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s := newSide(t, "sandbox", c.Bootstrap(), c.ControllerBootstrap())
	for _, id := range c.BrokerIDs() {
		s.logDirs[fmt.Sprintf("/var/lib/kafka/broker-%d", id)] = fmt.Sprintf("<log-dir of broker %d>", id)
	}
	s.kill, s.restart = c.Kill, c.Restart
	return s
}

// newSide connects to a cluster: brokers 1..n in bootstrap's order,
// controllers 3000.. in controllers' order.
func newSide(t *testing.T, name, bootstrap, controllers string) *side {
	s := &side{name: name, bootstrap: bootstrap, controllers: controllers,
		names: tooldiff.Names{Nodes: map[string]string{}}, logDirs: map[string]string{}}
	for i, a := range strings.Split(bootstrap, ",") {
		s.names.Nodes[a] = fmt.Sprintf("<broker %d>", i+1)
	}
	for i, a := range strings.Split(controllers, ",") {
		s.names.Nodes[a] = fmt.Sprintf("<controller %d>", kraftsandbox.FirstControllerID+i)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.RequestTimeoutOverhead(10*time.Second),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	s.cl = cl
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("%s: metadata: %v", name, err)
	}
	if md.ClusterID != nil {
		s.names.ClusterID = *md.ClusterID
	}
	return s
}

// runStep runs one step on each side: the setups at once, the tools one
// after the other (they share the tool JVM), then the waits at once.
func runStep(dist *kafkatest.Dist, dir string, st step, sides []*side) []output {
	outs := make([]output, len(sides))
	each := func(f func(i int, s *side)) {
		var wg sync.WaitGroup
		for i, s := range sides {
			wg.Add(1)
			go func() { defer wg.Done(); f(i, s) }()
		}
		wg.Wait()
	}
	each(func(i int, s *side) {
		if st.before == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := st.before(ctx, s); err != nil {
			outs[i].err = fmt.Errorf("setup: %w", err)
		}
	})
	for i, s := range sides {
		if outs[i].err == nil {
			outs[i] = s.tool(dist, dir, st)
		}
	}
	// What a step waits for after its tool is what the tool did: nothing
	// when it failed. Every broker's metadata then agrees, so that the
	// next tool reads the same whichever broker it asks.
	each(func(i int, s *side) {
		if outs[i].err != nil || outs[i].code != 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := s.settle(ctx); err != nil {
			outs[i].err = fmt.Errorf("after: brokers' metadata: %w", err)
			return
		}
		if st.after != nil {
			if err := st.after(ctx, s); err != nil {
				outs[i].err = fmt.Errorf("after: %w", err)
			}
		}
	})
	return outs
}

// tool runs a step's tool against the side.
func (s *side) tool(dist *kafkatest.Dist, dir string, st step) output {
	args := make([]string, len(st.args))
	for i, a := range st.args {
		a = strings.ReplaceAll(a, "{bs}", s.bs())
		a = strings.ReplaceAll(a, "{ctl}", s.controllers)
		a = strings.ReplaceAll(a, "{dir}", dir)
		args[i] = a
	}
	// Timeouts shorter than the admin client's minute: a request the
	// sandbox does not answer fails the step in seconds, not minutes. A
	// tool prints them only when one expires. The option goes after the
	// bootstrap option, before a subcommand (kafka-metadata-quorum
	// describe, kafka-features describe).
	args = slices.Insert(args, 2, "--command-config", filepath.Join(dir, "admin.properties"))
	began := time.Now()
	res, err := dist.Command(st.tool, args...)
	took := time.Since(began)
	if err != nil {
		return output{err: err, took: took}
	}
	raw := res.Stdout
	if res.Stderr != "" {
		raw += "[stderr]\n" + res.Stderr
	}
	return output{raw: raw, code: res.Code, norm: s.names.Normalise(raw, st.placed...), took: took}
}

// report logs every step's result and fails the test for each difference
// that knownDifferences does not name, and for each known difference the
// script no longer meets.
func report(t *testing.T, results []stepResult, both bool) {
	var table strings.Builder
	fmt.Fprintf(&table, "%-3s %-40s %-5s %-11s %s\n", "#", "step", "exit", "time", "result")
	failed := 0
	for i, r := range results {
		verdict := ""
		switch {
		case !both:
			o := r.kafka
			if o.raw == "" && o.err == nil {
				o = r.sandbox
			}
			verdict = "ran alone"
			if o.err != nil {
				verdict = "error: " + o.err.Error()
			}
			t.Logf("step %d %s (exit %d):\n%s", i+1, r.step.name, o.code, o.norm)
		case r.kafka.err != nil:
			verdict = "KAFKA ERROR: " + r.kafka.err.Error()
			failed++
		case r.sandbox.err != nil:
			verdict = "SANDBOX ERROR: " + r.sandbox.err.Error()
			failed++
		default:
			var known *knownDifference
			if kd, ok := knownDifferences[r.step.name]; ok {
				known = &kd
			}
			var detail string
			var fails bool
			verdict, detail, fails = compare(i+1, r, known)
			if detail != "" {
				t.Log(detail)
			}
			if fails {
				failed++
			}
		}
		exit := fmt.Sprintf("%d/%d", r.kafka.code, r.sandbox.code)
		took := fmt.Sprintf("%.1f/%.1fs", r.kafka.took.Seconds(), r.sandbox.took.Seconds())
		if !both {
			o := r.kafka
			if o.raw == "" && o.err == nil {
				o = r.sandbox
			}
			exit, took = fmt.Sprint(o.code), fmt.Sprintf("%.1fs", o.took.Seconds())
		}
		fmt.Fprintf(&table, "%-3d %-40s %-5s %-11s %s\n", i+1, r.step.name, exit, took, verdict)
	}
	t.Logf("per-step results (exit status and time: kafka/sandbox):\n%s", table.String())
	if failed > 0 {
		t.Errorf("%d of %d steps differ from Kafka 4.4.0 or have a stale known difference (diffs above; accepted differences: knownDifferences and docs/kraft-sandbox-fidelity.md)", failed, len(results))
	}
}

// compare compares one step's outputs (n is its number) and returns the
// verdict for the table, the diff to log when they differ, and whether
// the step fails the test: a difference that known (the step's entry in
// knownDifferences, if any) does not account for, or a known difference
// that no longer happens.
func compare(n int, r stepResult, known *knownDifference) (verdict, detail string, failed bool) {
	k, s := r.kafka, r.sandbox
	sNorm, sCode := s.norm, s.code
	if known != nil {
		// Each of its replacements must still be needed: one whose text
		// the sandbox no longer prints is stale.
		for _, p := range known.replace {
			if !strings.Contains(sNorm, p[0]) {
				return "STALE known difference", fmt.Sprintf("step %d %s: the sandbox no longer prints %q (known difference: %s): remove it from knownDifferences and the fidelity doc", n, r.step.name, p[0], known.reason), true
			}
		}
		sNorm = known.apply(sNorm)
		if known.sandboxExit != nil && *known.sandboxExit == sCode {
			sCode = k.code
		}
	}
	if sNorm == k.norm && sCode == k.code {
		switch {
		case known == nil:
			return "equal", "", false
		case sNorm == s.norm && sCode == s.code:
			return "STALE known difference", fmt.Sprintf("step %d %s: its known difference (%s) no longer happens: remove it from knownDifferences and the fidelity doc", n, r.step.name, known.reason), true
		default:
			return "known difference: " + known.reason, "", false
		}
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "step %d %s: %s %s\n", n, r.step.name, r.step.tool, strings.Join(r.step.args, " "))
	if k.code != sCode {
		fmt.Fprintf(&msg, "exit status: kafka %d, sandbox %d\n", k.code, s.code)
	}
	msg.WriteString(tooldiff.Unified("kafka 4.4.0 (normalised)", "sandbox (normalised)", k.norm, sNorm))
	if k.code != sCode {
		return "DIFFERS (exit status)", msg.String(), true
	}
	return "DIFFERS", msg.String(), true
}

// knownDifference is a difference between Kafka's output and the
// sandbox's at one step that is accepted, with its reason: apply turns
// the sandbox's normalised output into Kafka's by replacing each
// sandbox text with Kafka's.
type knownDifference struct {
	reason string
	// replace are pairs of (sandbox text, kafka text).
	replace     [][2]string
	sandboxExit *int
}

func (k knownDifference) apply(s string) string {
	for _, p := range k.replace {
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	return s
}

// knownDifferences are the accepted differences by step name; each is in
// docs/kraft-sandbox-fidelity.md with its reason.
var knownDifferences = map[string]knownDifference{
	"broker configs all": {
		reason:  "the real brokers' server.properties is kafkatest's, tuned for a 2-core machine; the sandbox's brokers have Kafka's defaults",
		replace: rigProps(),
	},
}

// rigProps are the static broker configs kafkatest's real brokers have
// and the sandbox's do not (kafkatest's commonProps and kraftProps: small
// thread pools, quick heartbeats, fewer offsets partitions, …), as
// kafka-configs --describe --all prints them on each side: pairs of
// (the sandbox's line, Kafka's line), for knownDifferences. Its config
// name, the rig's value and Kafka's default.
func rigProps() [][2]string {
	var pairs [][2]string
	for _, p := range [][3]string{
		{"auto.create.topics.enable", "false", "true"},
		{"background.threads", "2", "10"},
		{"broker.heartbeat.interval.ms", "500", "2000"},
		{"group.initial.rebalance.delay.ms", "0", "3000"},
		{"log.cleaner.enable", "false", "true"},
		{"num.io.threads", "2", "8"},
		{"num.network.threads", "2", "3"},
		{"num.recovery.threads.per.data.dir", "1", "2"},
		{"offsets.topic.num.partitions", "5", "50"},
		{"offsets.topic.replication.factor", "3", "3"},
		{"share.coordinator.state.topic.min.isr", "1", "2"},
		{"share.coordinator.state.topic.replication.factor", "3", "3"},
		{"transaction.state.log.min.isr", "1", "2"},
		{"transaction.state.log.replication.factor", "3", "3"},
	} {
		name, rig, def := p[0], p[1], p[2]
		pairs = append(pairs, [2]string{
			fmt.Sprintf("  %s=%s sensitive=false synonyms={DEFAULT_CONFIG:%s=%s}\n", name, def, name, def),
			fmt.Sprintf("  %s=%s sensitive=false synonyms={STATIC_BROKER_CONFIG:%s=%s, DEFAULT_CONFIG:%s=%s}\n", name, rig, name, rig, name, def),
		})
	}
	return pairs
}

// step is one invocation of a Kafka tool in the script: {bs} is the
// side's --bootstrap-server, {ctl} its --bootstrap-controller, {dir} the
// directory of scriptFiles. before runs first on each side (setup that no
// tool prints: records produced, waiting for a reassignment to end); after
// runs after the tool.
type step struct {
	name   string
	tool   string
	args   []string
	before func(ctx context.Context, s *side) error
	after  func(ctx context.Context, s *side) error
	// placed are the topics whose replicas the controller placed (at
	// random on Kafka): their leaders and replicas are masked.
	placed []string
}

// scriptFiles are the JSON files the script's tools read.
var scriptFiles = map[string]string{
	"admin.properties": "request.timeout.ms=10000\ndefault.api.timeout.ms=15000\n",
	// diff-a-0's replicas reordered: the controller keeps the leader,
	// so a preferred election then moves it.
	"reorder.json": `{"version":1,"partitions":[{"topic":"diff-a","partition":0,"replicas":[2,1,3]}]}`,
	// diff-c-0 moved from [1,2] to [1,3] under a throttle of 1 KiB/s: with
	// 4 MiB in it, the copy to broker 3 takes minutes.
	"move.json": `{"version":1,"partitions":[{"topic":"diff-c","partition":0,"replicas":[1,3]}]}`,
	// an assignment to a broker that does not exist.
	"unknown.json": `{"version":1,"partitions":[{"topic":"diff-a","partition":1,"replicas":[2,3,4]}]}`,
	"elect.json":   `{"partitions":[{"topic":"diff-a","partition":0}]}`,
	"elect-all.json": `{"partitions":[{"topic":"diff-a","partition":0},{"topic":"diff-a","partition":1},` +
		`{"topic":"diff-a","partition":2},{"topic":"diff-a","partition":3},{"topic":"diff-c","partition":0}]}`,
}

// script is the differential script: about thirty tool invocations, in
// one JVM (kafkatest's tool runner), each compared.
var script = []step{
	{name: "create with assignment and config", tool: "kafka-topics",
		args:  []string{"--bootstrap-server", "{bs}", "--create", "--topic", "diff-a", "--replica-assignment", "1:2:3,2:3:1,3:1:2", "--config", "min.insync.replicas=2"},
		after: waitTopics("diff-a")},
	{name: "create placed", tool: "kafka-topics",
		args:  []string{"--bootstrap-server", "{bs}", "--create", "--topic", "diff-b", "--partitions", "3", "--replication-factor", "2", "--config", "retention.ms=3600000"},
		after: waitTopics("diff-b")},
	{name: "create to move", tool: "kafka-topics",
		args:  []string{"--bootstrap-server", "{bs}", "--create", "--topic", "diff-c", "--replica-assignment", "1:2"},
		after: waitTopics("diff-c")},
	{name: "create existing (refused)", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--create", "--topic", "diff-a", "--partitions", "1", "--replication-factor", "1"}},
	{name: "create bad config value (refused)", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--create", "--topic", "diff-x", "--partitions", "1", "--replication-factor", "1", "--config", "retention.ms=soon"}},
	{name: "create replication factor 4 (refused)", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--create", "--topic", "diff-x", "--partitions", "1", "--replication-factor", "4"}},
	{name: "create unknown broker (refused)", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--create", "--topic", "diff-x", "--replica-assignment", "1:4"}},
	{name: "describe assigned", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--topic", "diff-a"}},
	{name: "describe placed", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--topic", "diff-b"}, placed: []string{"diff-b"}},
	{name: "alter partitions with assignment", tool: "kafka-topics",
		args:  []string{"--bootstrap-server", "{bs}", "--alter", "--topic", "diff-a", "--partitions", "4", "--replica-assignment", "1:2:3,2:3:1,3:1:2,1:3:2"},
		after: waitPartitions("diff-a", 4)},
	{name: "alter partitions down (refused)", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--alter", "--topic", "diff-a", "--partitions", "2"}},
	{name: "topic config alter", tool: "kafka-configs",
		args:  []string{"--bootstrap-server", "{bs}", "--alter", "--entity-type", "topics", "--entity-name", "diff-a", "--add-config", "retention.ms=86400000,max.message.bytes=2000000"},
		after: waitConfigs(kmsg.ConfigResourceTypeTopic, "diff-a", map[string]string{"retention.ms": "86400000", "max.message.bytes": "2000000"})},
	{name: "topic config bad value (refused)", tool: "kafka-configs",
		args: []string{"--bootstrap-server", "{bs}", "--alter", "--entity-type", "topics", "--entity-name", "diff-a", "--add-config", "min.insync.replicas=two"}},
	{name: "topic config describe", tool: "kafka-configs",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--entity-type", "topics", "--entity-name", "diff-a"}},
	{name: "broker throttle alter", tool: "kafka-configs",
		args:  []string{"--bootstrap-server", "{bs}", "--alter", "--entity-type", "brokers", "--entity-name", "2", "--add-config", "leader.replication.throttled.rate=5000000,follower.replication.throttled.rate=5000000"},
		after: waitConfigs(kmsg.ConfigResourceTypeBroker, "2", map[string]string{"leader.replication.throttled.rate": "5000000", "follower.replication.throttled.rate": "5000000"})},
	{name: "broker config describe", tool: "kafka-configs",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--entity-type", "brokers", "--entity-name", "2"}},
	{name: "broker config delete", tool: "kafka-configs",
		args:  []string{"--bootstrap-server", "{bs}", "--alter", "--entity-type", "brokers", "--entity-name", "2", "--delete-config", "leader.replication.throttled.rate,follower.replication.throttled.rate"},
		after: waitConfigs(kmsg.ConfigResourceTypeBroker, "2", map[string]string{"leader.replication.throttled.rate": "", "follower.replication.throttled.rate": ""})},
	{name: "reassign reorder", tool: "kafka-reassign-partitions",
		args:  []string{"--bootstrap-server", "{bs}", "--reassignment-json-file", "{dir}/reorder.json", "--execute"},
		after: waitReassignments},
	{name: "reassign verify reorder", tool: "kafka-reassign-partitions",
		args: []string{"--bootstrap-server", "{bs}", "--reassignment-json-file", "{dir}/reorder.json", "--verify"}},
	{name: "reassign unknown broker (refused)", tool: "kafka-reassign-partitions",
		args: []string{"--bootstrap-server", "{bs}", "--reassignment-json-file", "{dir}/unknown.json", "--execute"}},
	{name: "leader election preferred", tool: "kafka-leader-election",
		args: []string{"--bootstrap-server", "{bs}", "--election-type", "preferred", "--path-to-json-file", "{dir}/elect.json"}},
	{name: "leader election not needed", tool: "kafka-leader-election",
		args: []string{"--bootstrap-server", "{bs}", "--election-type", "preferred", "--topic", "diff-a", "--partition", "0"}},
	{name: "reassign throttled", tool: "kafka-reassign-partitions",
		args:   []string{"--bootstrap-server", "{bs}", "--reassignment-json-file", "{dir}/move.json", "--execute", "--throttle", "1024"},
		before: produce("diff-c", 4<<20),
		after:  waitConfigs(kmsg.ConfigResourceTypeTopic, "diff-c", map[string]string{"leader.replication.throttled.replicas": "0:1,0:2", "follower.replication.throttled.replicas": "0:3"})},
	{name: "reassign verify in progress", tool: "kafka-reassign-partitions",
		args: []string{"--bootstrap-server", "{bs}", "--reassignment-json-file", "{dir}/move.json", "--verify"}},
	{name: "reassign list", tool: "kafka-reassign-partitions",
		args: []string{"--bootstrap-server", "{bs}", "--list"}},
	{name: "throttled topic config", tool: "kafka-configs",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--entity-type", "topics", "--entity-name", "diff-c"}},
	{name: "reassign cancel", tool: "kafka-reassign-partitions",
		args: []string{"--bootstrap-server", "{bs}", "--reassignment-json-file", "{dir}/move.json", "--cancel"},
		after: both(waitReassignments,
			waitConfigs(kmsg.ConfigResourceTypeTopic, "diff-c", map[string]string{"leader.replication.throttled.replicas": "", "follower.replication.throttled.replicas": ""}))},
	{name: "describe after moves", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--topic", "diff-[ac]"}},
	{name: "log dirs", tool: "kafka-log-dirs",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--broker-list", "1,2,3", "--topic-list", "diff-a,diff-c"}},
	{name: "broker 3 killed: describe", tool: "kafka-topics",
		args:   []string{"--bootstrap-server", "{bs}", "--describe", "--topic", "diff-[ac]"},
		before: killBroker(3)},
	{name: "under-replicated partitions", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--under-replicated-partitions", "--topic", "diff-[ac]"}},
	{name: "preferred replica down (refused)", tool: "kafka-leader-election",
		args: []string{"--bootstrap-server", "{bs}", "--election-type", "preferred", "--topic", "diff-a", "--partition", "2"}},
	{name: "broker 2 killed too: describe (ELR)", tool: "kafka-topics",
		args:   []string{"--bootstrap-server", "{bs}", "--describe", "--topic", "diff-[ac]"},
		before: killBroker(2)},
	{name: "under min ISR", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--under-min-isr-partitions", "--topic", "diff-[ac]"}},
	{name: "brokers 2 and 3 back: describe", tool: "kafka-topics",
		args:   []string{"--bootstrap-server", "{bs}", "--describe", "--topic", "diff-[ac]"},
		before: restartBrokers(2, 3)},
	{name: "leader election back to preferred", tool: "kafka-leader-election",
		args: []string{"--bootstrap-server", "{bs}", "--election-type", "preferred", "--path-to-json-file", "{dir}/elect-all.json"}},
	{name: "topic configs all", tool: "kafka-configs",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--all", "--entity-type", "topics", "--entity-name", "diff-c"}},
	{name: "broker configs all", tool: "kafka-configs",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--all", "--entity-type", "brokers", "--entity-name", "1"}},
	// One partition: the group's consumer exits after the lines it
	// was told to read, and whether it committed an offset for a
	// partition that had none depends on timing (real Kafka did, or did
	// not, from one run to the next).
	{name: "create for consumers", tool: "kafka-topics",
		args:  []string{"--bootstrap-server", "{bs}", "--create", "--topic", "diff-d", "--replica-assignment", "1:2"},
		after: waitTopics("diff-d")},
	{name: "console consumer", tool: "kafka-console-consumer",
		args:   []string{"--bootstrap-server", "{bs}", "--topic", "diff-d", "--group", "diff-g", "--from-beginning", "--max-messages", "3", "--timeout-ms", "15000"},
		before: produceText("diff-d", "one", "two", "three")},
	{name: "consumer group describe", tool: "kafka-consumer-groups",
		args: []string{"--bootstrap-server", "{bs}", "--describe", "--group", "diff-g"}},
	{name: "consumer group list", tool: "kafka-consumer-groups",
		args: []string{"--bootstrap-server", "{bs}", "--list"}},
	{name: "quorum status", tool: "kafka-metadata-quorum",
		args: []string{"--bootstrap-controller", "{ctl}", "describe", "--status"}},
	{name: "quorum replication", tool: "kafka-metadata-quorum",
		args: []string{"--bootstrap-controller", "{ctl}", "describe", "--replication"}},
	{name: "quorum status through brokers", tool: "kafka-metadata-quorum",
		args: []string{"--bootstrap-server", "{bs}", "describe", "--status"}},
	{name: "features", tool: "kafka-features",
		args: []string{"--bootstrap-controller", "{ctl}", "describe"}},
	{name: "delete", tool: "kafka-topics",
		args:  []string{"--bootstrap-server", "{bs}", "--delete", "--topic", "diff-b"},
		after: waitGone("diff-b")},
	{name: "list", tool: "kafka-topics",
		args: []string{"--bootstrap-server", "{bs}", "--list", "--topic", "diff-.*"}},
	{name: "cleanup", tool: "kafka-topics",
		args:  []string{"--bootstrap-server", "{bs}", "--delete", "--topic", "diff-.*"},
		after: waitGone("diff-a", "diff-c", "diff-d")},
}

// partitions returns the side's topics' partitions' leaders (by topic,
// partition index), as a broker's metadata has them.
func (s *side) partitions(ctx context.Context) (map[string][]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	resp, err := req.RequestWith(ctx, s.cl)
	if err != nil {
		return nil, err
	}
	out := map[string][]int32{}
	for _, tp := range resp.Topics {
		if tp.Topic == nil || tp.ErrorCode != 0 {
			continue
		}
		leaders := make([]int32, len(tp.Partitions))
		for _, p := range tp.Partitions {
			if int(p.Partition) < len(leaders) {
				leaders[p.Partition] = p.Leader
			}
		}
		out[*tp.Topic] = leaders
	}
	return out, nil
}

// settle waits until every broker's metadata (topics, partitions, their
// leaders, epochs, replicas and ISRs) is the same.
func (s *side) settle(ctx context.Context) error {
	return poll(ctx, func() (bool, error) {
		md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, s.cl)
		if err != nil {
			return false, err
		}
		var first string
		for i, b := range md.Brokers {
			resp, err := s.cl.Broker(int(b.NodeID)).RetriableRequest(ctx, kmsg.NewPtrMetadataRequest())
			if err != nil {
				return false, err
			}
			fp := fingerprint(resp.(*kmsg.MetadataResponse))
			if i == 0 {
				first = fp
			} else if fp != first {
				return false, nil
			}
		}
		return true, nil
	})
}

// fingerprint is a metadata response's topics in a canonical form.
func fingerprint(md *kmsg.MetadataResponse) string {
	var lines []string
	for _, tp := range md.Topics {
		for _, p := range tp.Partitions {
			lines = append(lines, fmt.Sprintf("%s %d %d %d %v %v %d", *tp.Topic, p.Partition, p.Leader, p.LeaderEpoch, p.Replicas, p.ISR, p.ErrorCode))
		}
		if len(tp.Partitions) == 0 {
			lines = append(lines, fmt.Sprintf("%s %d", *tp.Topic, tp.ErrorCode))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// waitConfigs waits until every broker describes the resource (a topic,
// or a broker: kmsg.ConfigResourceTypeBroker) with the configs given
// ("" for not set dynamically).
func waitConfigs(typ kmsg.ConfigResourceType, name string, want map[string]string) func(ctx context.Context, s *side) error {
	return func(ctx context.Context, s *side) error {
		return poll(ctx, func() (bool, error) {
			var ids []int32
			if typ == kmsg.ConfigResourceTypeBroker {
				// A broker answers for its own configs only.
				var id int32
				fmt.Sscan(name, &id)
				ids = []int32{id}
			} else {
				md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, s.cl)
				if err != nil {
					return false, err
				}
				for _, b := range md.Brokers {
					ids = append(ids, b.NodeID)
				}
			}
			for _, id := range ids {
				req := kmsg.NewPtrDescribeConfigsRequest()
				r := kmsg.NewDescribeConfigsRequestResource()
				r.ResourceType, r.ResourceName = typ, name
				req.Resources = append(req.Resources, r)
				resp, err := s.cl.Broker(int(id)).RetriableRequest(ctx, req)
				if err != nil {
					return false, err
				}
				got := map[string]string{}
				for _, res := range resp.(*kmsg.DescribeConfigsResponse).Resources {
					for _, c := range res.Configs {
						if c.Value != nil && (c.Source == kmsg.ConfigSourceDynamicTopicConfig || c.Source == kmsg.ConfigSourceDynamicBrokerConfig) {
							got[c.Name] = *c.Value
						}
					}
				}
				for k, v := range want {
					if got[k] != v {
						return false, nil
					}
				}
			}
			return true, nil
		})
	}
}

// both runs one wait, then another.
func both(a, b func(ctx context.Context, s *side) error) func(ctx context.Context, s *side) error {
	return func(ctx context.Context, s *side) error {
		if err := a(ctx, s); err != nil {
			return err
		}
		return b(ctx, s)
	}
}

// waitTopics waits until the topics are in the side's metadata with
// leaders for every partition.
func waitTopics(topics ...string) func(ctx context.Context, s *side) error {
	return func(ctx context.Context, s *side) error {
		return poll(ctx, func() (bool, error) {
			md, err := s.partitions(ctx)
			if err != nil {
				return false, err
			}
			for _, tp := range topics {
				if !led(md[tp]) {
					return false, nil
				}
			}
			return true, nil
		})
	}
}

func led(leaders []int32) bool {
	for _, l := range leaders {
		if l < 0 {
			return false
		}
	}
	return len(leaders) > 0
}

// waitPartitions waits until a topic has n partitions, each led.
func waitPartitions(topic string, n int) func(ctx context.Context, s *side) error {
	return func(ctx context.Context, s *side) error {
		return poll(ctx, func() (bool, error) {
			md, err := s.partitions(ctx)
			if err != nil {
				return false, err
			}
			return len(md[topic]) == n && led(md[topic]), nil
		})
	}
}

// waitGone waits until the topics are no longer listed.
func waitGone(topics ...string) func(ctx context.Context, s *side) error {
	return func(ctx context.Context, s *side) error {
		return poll(ctx, func() (bool, error) {
			md, err := s.partitions(ctx)
			if err != nil {
				return false, err
			}
			for _, tp := range topics {
				if _, ok := md[tp]; ok {
					return false, nil
				}
			}
			return true, nil
		})
	}
}

// waitReassignments waits until no reassignment is in progress.
func waitReassignments(ctx context.Context, s *side) error {
	return poll(ctx, func() (bool, error) {
		req := kmsg.NewPtrListPartitionReassignmentsRequest()
		req.TimeoutMillis = 10000
		resp, err := req.RequestWith(ctx, s.cl)
		if err != nil {
			return false, err
		}
		if resp.ErrorCode != 0 {
			return false, fmt.Errorf("ListPartitionReassignments: error %d", resp.ErrorCode)
		}
		return len(resp.Topics) == 0, nil
	})
}

// produce writes n bytes of random (incompressible) records of 64 KiB to
// partition 0 of a topic, acks=all.
func produce(topic string, n int) func(ctx context.Context, s *side) error {
	return func(ctx context.Context, s *side) error {
		const size = 64 << 10
		for i := 0; i < n/size; i++ {
			v := make([]byte, size)
			rand.Read(v)
			s.cl.Produce(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: v}, nil)
		}
		if err := s.cl.Flush(ctx); err != nil {
			return err
		}
		// A record's failure is reported to its promise; one more, synchronously.
		return s.cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("last")}).FirstErr()
	}
}

// killBroker kills a broker (SIGKILL: no controlled shutdown) and waits
// until the controller has fenced it: it is in no ISR of any partition
// and every broker's metadata agrees.
func killBroker(id int32) func(ctx context.Context, s *side) error {
	return func(_ context.Context, s *side) error { // a wait of its own: longer than a step's
		if s.kill == nil {
			return errors.New("cannot kill a broker of a cluster the test did not start")
		}
		if err := s.kill(int(id)); err != nil {
			return err
		}
		if s.down == nil {
			s.down = map[int]bool{}
		}
		s.down[int(id)] = true
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := poll(ctx, func() (bool, error) {
			md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, s.cl)
			if err != nil {
				return false, nil // the killed broker's connection
			}
			for _, tp := range md.Topics {
				for _, p := range tp.Partitions {
					if slices.Contains(p.ISR, id) || p.Leader == id {
						return false, nil
					}
				}
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		return s.settle(ctx) // over the live brokers: the metadata's
	}
}

// restartBrokers starts killed brokers again and waits until every
// partition has all its replicas in its ISR, on every broker.
func restartBrokers(ids ...int32) func(ctx context.Context, s *side) error {
	return func(_ context.Context, s *side) error { // a wait of its own: longer than a step's
		if s.restart == nil {
			return errors.New("cannot restart a broker of a cluster the test did not start")
		}
		for _, id := range ids {
			if err := s.restart(int(id)); err != nil {
				return err
			}
			delete(s.down, int(id))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		err := poll(ctx, func() (bool, error) {
			md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, s.cl)
			if err != nil {
				return false, nil
			}
			for _, tp := range md.Topics {
				for _, p := range tp.Partitions {
					if len(p.ISR) != len(p.Replicas) {
						return false, nil
					}
				}
			}
			return len(md.Brokers) == 3, nil
		})
		if err != nil {
			return err
		}
		return s.settle(ctx)
	}
}

// produceText writes records with these values to partition 0 of a
// topic, one by one, acks=all.
func produceText(topic string, values ...string) func(ctx context.Context, s *side) error {
	return func(ctx context.Context, s *side) error {
		for _, v := range values {
			if err := s.cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(v)}).FirstErr(); err != nil {
				return err
			}
		}
		return nil
	}
}

// poll calls f until it says done, fails, or ctx ends.
func poll(ctx context.Context, f func() (bool, error)) error {
	for {
		ok, err := f()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return err
			}
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestDifferentialCompare checks the comparison of one step (no Java):
// equal outputs, a difference, one a known difference accounts for, and
// a known difference that no longer happens.
func TestDifferentialCompare(t *testing.T) {
	r := func(kafka, sandbox string, kcode, scode int) stepResult {
		return stepResult{step: step{name: "s", tool: "kafka-topics"},
			kafka: output{norm: kafka, code: kcode}, sandbox: output{norm: sandbox, code: scode}}
	}
	one := 1
	known := &knownDifference{reason: "why", replace: [][2]string{{"Leader: 2", "Leader: 1"}}}
	exitKnown := &knownDifference{reason: "why", sandboxExit: &one}
	for _, c := range []struct {
		name    string
		r       stepResult
		known   *knownDifference
		verdict string
		fails   bool
	}{
		{"equal", r("a\nb\n", "a\nb\n", 0, 0), nil, "equal", false},
		{"text differs", r("a\nb\n", "a\nc\n", 0, 0), nil, "DIFFERS", true},
		{"exit differs", r("a\n", "a\n", 0, 1), nil, "DIFFERS (exit status)", true},
		{"known", r("Leader: 1\n", "Leader: 2\n", 0, 0), known, "known difference: why", false},
		{"known, more differs", r("Leader: 1\nx\n", "Leader: 2\ny\n", 0, 0), known, "DIFFERS", true},
		{"known, stale", r("Leader: 1\n", "Leader: 1\n", 0, 0), known, "STALE known difference", true},
		{"known, one replacement stale", r("Leader: 1\nIsr: 1\n", "Leader: 2\nIsr: 1\n", 0, 0),
			&knownDifference{reason: "why", replace: [][2]string{{"Leader: 2", "Leader: 1"}, {"Isr: 2", "Isr: 1"}}}, "STALE known difference", true},
		{"known exit", r("a\n", "a\n", 0, 1), exitKnown, "known difference: why", false},
		{"known exit, stale", r("a\n", "a\n", 0, 0), exitKnown, "STALE known difference", true},
	} {
		verdict, detail, fails := compare(1, c.r, c.known)
		if verdict != c.verdict || fails != c.fails {
			t.Errorf("%s: %q, fails %v; want %q, %v", c.name, verdict, fails, c.verdict, c.fails)
		}
		if strings.HasPrefix(verdict, "DIFFERS") && !strings.Contains(detail, "--- kafka 4.4.0") && !strings.Contains(detail, "exit status") {
			t.Errorf("%s: no diff in %q", c.name, detail)
		}
	}
}
