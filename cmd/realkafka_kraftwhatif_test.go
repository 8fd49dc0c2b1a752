package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/kraftsandbox"
	"github.com/ktopo/ktopo/ui/screens/whatif"
)

// TestRealKRaftWhatIf: the what-if's prediction (cluster.PredictFailure,
// KRaft rules) against what Kafka 4.4's controller does when brokers are
// killed (SIGKILL): one broker, two brokers of different racks, a whole
// rack; with eligible leader replicas on (a new 4.4 cluster's default),
// then off (kafka-features downgrade). The cluster is read as ktopo reads
// it (kafkawatch.Load) before the kill, predicted, killed; once the
// controller has fenced the brokers and the metadata is still, read again
// and compared partition by partition: leader, leader epoch, ISR, ELR and
// last known ELR, and the leader recovery state, which no client API
// shows, as the controller wrote it in its metadata log (kafka-dump-log).
// Where the fencing order decides, the state must be one of the outcomes
// predicted. The TUI's what-if screen follows it all through a live
// poller: once the brokers are fenced it must hold the prediction it made
// before (WAS is the state before the kill) and find it true. Unclean elections need a live replica out of sync: a topic
// whose new replica is copied at 1 B/s (a throttled reassignment).
func TestRealKRaftWhatIf(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	// 4 brokers in 2 racks (rack-a: 1, 3; rack-b: 2, 4); no automatic
	// preferred elections, which would move leaders under the test.
	noRebalance := map[string]string{"auto.leader.rebalance.enable": "false"}
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Controllers: 1, Brokers: 4, Racks: 2,
		SessionTimeout: 4 * time.Second, Props: noRebalance, ControllerProps: noRebalance})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	kafkatest.Attach(t, c)
	testKRaftWhatIf(t, realKRaft{c})
}

// TestSandboxKRaftWhatIf is TestRealKRaftWhatIf on the simulated KRaft
// cluster (kraftsandbox, no Java): the same brokers, racks, topics and
// kills, its controller's fencing and elections against the prediction.
func TestSandboxKRaftWhatIf(t *testing.T) {
	c := startSandboxKRaft(t, kraftsandbox.Config{Controllers: 1, Brokers: 4, Racks: 2, NoAutoLeaderRebalance: true})
	testKRaftWhatIf(t, c)
}

// testKRaftWhatIf is TestRealKRaftWhatIf's scenarios on c: 4 brokers in
// 2 racks, no automatic preferred elections.
func testKRaftWhatIf(t *testing.T, c kraftBackend) {
	w := &kraftWhatIf{t: t, c: c}
	for _, tp := range []struct{ name, assignment, config string }{
		{"w-r3m2", "1:2:3,2:3:4,3:4:1,4:1:2,1:3:2,2:1:4", "min.insync.replicas=2"},
		{"w-r3m3", "1:2:3,2:4:1,3:1:4,4:3:2", "min.insync.replicas=3"},
		{"w-r2m1", "1:2,2:1,1:3,3:1,2:4,4:3", "min.insync.replicas=1"},
		{"w-r2m2", "1:2,2:1,1:3,3:4", "min.insync.replicas=2"},
		{"w-r2u", "1:2,1:3,2:1,4:2", "unclean.leader.election.enable=true"},
		{"w-r3u", "1:2:3,3:1:4", "unclean.leader.election.enable=true,min.insync.replicas=2"},
		{"w-r1", "1,2,3,4", ""},
	} {
		var configs []string
		for _, kv := range strings.Split(tp.config, ",") {
			if kv != "" {
				configs = append(configs, kv)
			}
		}
		c.createTopic(t, tp.name, tp.assignment, configs...)
	}
	// The lagging topics: replica 1 in sync, the others being added at
	// 1 B/s; an unclean election may elect them. A scenario has only
	// those whose lagging replicas cannot catch up with a new leader
	// after the kill (their leader to be is the only replica left alive).
	lagA := lagging{"lag-a", []int{1, 2}}    // 2 leads uncleanly once 1 is gone
	lagB := lagging{"lag-b", []int{1, 2, 3}} // with 1 and 2 gone: 2 may lead first, then 3
	for _, elr := range []bool{true, false} {
		if !elr {
			c.disableELR(t)
		}
		for _, sc := range []struct {
			name string
			kill []int
			lag  []lagging
		}{
			{"broker 1", []int{1}, []lagging{lagA}},
			{"brokers 1 and 2", []int{1, 2}, []lagging{lagA, lagB}},
			{"rack-a", []int{1, 3}, []lagging{lagA}},
		} {
			name := sc.name + ", ELR off"
			if elr {
				name = sc.name + ", ELR on"
			}
			if !t.Run(name, func(t *testing.T) { w.scenario(t, elr, sc.kill, sc.lag) }) {
				return // the cluster is in no state for the next ones
			}
		}
	}
}

// kraftWhatIf runs the what-if's scenarios on one cluster.
type kraftWhatIf struct {
	t *testing.T
	c kraftBackend
}

// lagging is a topic of one partition on replicas[0] being reassigned
// to replicas, its other replicas copying at 1 B/s.
type lagging struct {
	name     string
	replicas []int
}

// pstate is a partition's state in the comparison's words.
type pstate struct {
	leader, epoch int
	isr, elr, lke []int
	recovering    bool
}

func (s pstate) String() string {
	out := fmt.Sprintf("leader %s epoch %d isr [%s]", text.Broker(s.leader), s.epoch, text.Ints(s.isr))
	if len(s.elr) > 0 {
		out += " elr [" + text.Ints(s.elr) + "]"
	}
	if len(s.lke) > 0 {
		out += " lastKnownElr [" + text.Ints(s.lke) + "]"
	}
	if s.recovering {
		out += " RECOVERING"
	}
	return out
}

func (s pstate) equal(o pstate) bool {
	return s.leader == o.leader && s.epoch == o.epoch && s.recovering == o.recovering &&
		slices.Equal(s.isr, o.isr) && slices.Equal(s.elr, o.elr) && slices.Equal(s.lke, o.lke)
}

// scenario predicts the loss of kill, kills them, compares, and heals the
// cluster: the killed brokers started again, every partition in sync.
func (w *kraftWhatIf) scenario(t *testing.T, elr bool, kill []int, lag []lagging) {
	c := w.c
	w.healthy(t)
	c.electPreferred(t)
	w.waitFor(t, "every partition led by its preferred replica", func(s *cluster.Snapshot) (bool, string) {
		for _, tp := range s.Topics() {
			for _, p := range tp.Partitions {
				if p.Leader != p.PreferredLeader() {
					return false, fmt.Sprintf("%s-%d led by %d", tp.Name, p.ID, p.Leader)
				}
			}
		}
		return true, ""
	})
	for _, l := range lag {
		w.startLagging(t, l)
	}
	t.Cleanup(func() {
		for _, l := range lag {
			if err := c.deleteTopic(t, l.name); err != nil {
				t.Errorf("delete %s: %v", l.name, err)
			}
		}
		if err := c.Heal(); err != nil {
			t.Errorf("heal: %v", err)
		}
	})
	before := w.load(t)
	if lvl, _ := before.KRaft().Feature(cluster.FeatureELR); (lvl >= 1) != elr {
		t.Fatalf("%s is %d, want ELR on = %v", cluster.FeatureELR, lvl, elr)
	}
	// The leader recovery state is in no client API, so the prediction
	// starts from RECOVERED; a partition RECOVERING before (an unclean
	// election's, whose leader has had no AlterPartition since: a
	// partition of one replica back from an unclean shutdown) stays so
	// whatever the controller writes (PartitionRegistration.merge only
	// ever sets RECOVERING).
	wasRecovering := c.recovering(t)
	fi := cluster.PredictFailure(before, kill...)
	if !fi.KRaft || fi.ELR != elr || fi.Counts.Partitions == 0 {
		t.Fatalf("the prediction: KRaft %v, ELR %v, %d partitions", fi.KRaft, fi.ELR, fi.Counts.Partitions)
	}
	want := map[string][]pstate{}
	for _, tp := range before.Topics() {
		for _, p := range tp.Partitions {
			key := tp.Name + "-" + strconv.Itoa(p.ID)
			f := fi.Partition(tp.Name, p.ID)
			if f == nil {
				want[key] = []pstate{stateOfPartition(p, wasRecovering[key])}
				continue
			}
			for _, o := range f.Outcomes() {
				want[key] = append(want[key], pstate{o.Leader, o.LeaderEpoch, o.ISR, o.ELR, o.LastKnownELR, o.Recovering || wasRecovering[key]})
			}
			if len(kill) == 1 && len(want[key]) != 1 {
				t.Errorf("%s: %d outcomes of one broker's loss", key, len(want[key]))
			}
		}
	}

	// The TUI's screen, following the cluster live, predicts the same
	// before the kill.
	screen := w.followWhatIf(t, kill)
	screen.waitFor(t, "predicts the failure of the live brokers", func(m *whatif.Model) bool {
		return !m.Verifying() && slices.Equal(m.Impact().Live, kill) && m.Impact().Counts == fi.Counts
	})

	for _, id := range kill {
		if err := c.Kill(id); err != nil {
			t.Fatal(err)
		}
	}
	after := w.settled(t, kill)
	rec := c.recovering(t)
	var diff []string
	compared, several, notFirst, unclean, withELR := 0, 0, 0, 0, 0
	for _, key := range slices.Sorted(maps.Keys(want)) {
		topic, id := splitPartition(key)
		tp := after.Topic(topic)
		var p *cluster.Partition
		if tp != nil {
			p = tp.Partition(id)
		}
		if p == nil {
			diff = append(diff, key+": gone")
			continue
		}
		got := stateOfPartition(p, rec[key])
		compared++
		several += b2i(len(want[key]) > 1)
		unclean += b2i(got.recovering)
		withELR += b2i(len(got.elr) > 0)
		i := slices.IndexFunc(want[key], got.equal)
		notFirst += b2i(i > 0)
		if i < 0 {
			var alts []string
			for _, s := range want[key] {
				alts = append(alts, s.String())
			}
			diff = append(diff, fmt.Sprintf("%s: Kafka %s\n      predicted %s", key, got, strings.Join(alts, "\n             or ")))
		}
	}
	if len(diff) > 0 {
		t.Errorf("%d of %d partitions not as predicted (RECOVERING before: %v; before the kill: %s):\n  %s",
			len(diff), len(want), wasRecovering, describe(before), strings.Join(diff, "\n  "))
	}
	screen.checkHeld(t, before, fi)
	t.Logf("%d partitions compared: %d listed by the what-if, %d with several outcomes (the fencing order; %d beyond the leader epoch), "+
		"%d in another than the worst; %d RECOVERING, %d with ELR", compared, fi.Counts.Partitions, several, fi.Counts.OrderDecides, notFirst, unclean, withELR)
}

// stateOfPartition is p's state; recovering comes from the metadata log.
func stateOfPartition(p *cluster.Partition, recovering bool) pstate {
	return pstate{p.Leader, p.LeaderEpoch, p.ISR, p.ELR(), p.LastKnownELR(), recovering}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func splitPartition(key string) (string, int) {
	i := strings.LastIndexByte(key, '-')
	id, _ := strconv.Atoi(key[i+1:])
	return key[:i], id
}

// describe lists every partition's state, for a failure's message.
func describe(s *cluster.Snapshot) string {
	var b strings.Builder
	for _, tp := range s.Topics() {
		for _, p := range tp.Partitions {
			fmt.Fprintf(&b, "\n    %s-%d replicas [%s] %s", tp.Name, p.ID, text.Ints(p.Replicas), stateOfPartition(p, false))
		}
	}
	return b.String()
}

// startLagging makes topic l.name on replicas[0] with 6 MB in it, then
// adds the other replicas throttled to 1 B/s (Kafka's throttle lets one
// fetch of 1 MB through about every 11 s) and waits until the
// reassignment is seen with the ISR still replicas[0] alone.
func (w *kraftWhatIf) startLagging(t *testing.T, l lagging) {
	c := w.c
	c.createTopic(t, l.name, strconv.Itoa(l.replicas[0]), "unclean.leader.election.enable=true", "min.insync.replicas=1")
	c.waitAssignment(t, l.name, map[string]string{"0": strconv.Itoa(l.replicas[0])})
	produce(t, c.Bootstrap(), l.name, 6000, 1000)
	file := moveFile(t, l.name, l.replicas...)
	c.reassignThrottled(t, file, 1)
	w.waitFor(t, l.name+" reassigned, its new replicas out of sync", func(s *cluster.Snapshot) (bool, string) {
		tp := s.Topic(l.name)
		if tp == nil || len(tp.Partitions) != 1 {
			return false, "not there"
		}
		p := tp.Partitions[0]
		return slices.Equal(p.Replicas, l.replicas) && slices.Equal(p.ISR, l.replicas[:1]) && len(p.Adding()) == len(l.replicas)-1,
			fmt.Sprintf("replicas %v isr %v adding %v", p.Replicas, p.ISR, p.Adding())
	})
}

// healthy waits until every broker is live and every partition led, in
// sync, without eligible leader replicas.
func (w *kraftWhatIf) healthy(t *testing.T) {
	w.waitFor(t, "every partition in sync", func(s *cluster.Snapshot) (bool, string) {
		for _, id := range w.c.BrokerIDs() {
			if !s.IsLive(id) {
				return false, fmt.Sprintf("broker %d not live", id)
			}
		}
		for _, tp := range s.Topics() {
			for _, p := range tp.Partitions {
				if !p.HasLeader() || len(p.ISR) != len(p.Replicas) || len(p.ELR()) > 0 || len(p.LastKnownELR()) > 0 || p.Reassigning() {
					return false, fmt.Sprintf("%s-%d: replicas [%s] %s", tp.Name, p.ID, text.Ints(p.Replicas), stateOfPartition(p, false))
				}
			}
		}
		return true, ""
	})
}

// settled waits until the controller has fenced every broker of kill and
// the partitions have stopped changing (two reads a second apart agree),
// and returns the last read.
func (w *kraftWhatIf) settled(t *testing.T, kill []int) *cluster.Snapshot {
	var last map[string]pstate
	var s *cluster.Snapshot
	w.waitFor(t, fmt.Sprintf("brokers %s fenced and the partitions still", text.Ints(kill)), func(cur *cluster.Snapshot) (bool, string) {
		for _, id := range kill {
			if cur.IsLive(id) {
				last = nil
				return false, fmt.Sprintf("broker %d not fenced yet", id)
			}
		}
		states := map[string]pstate{}
		for _, tp := range cur.Topics() {
			for _, p := range tp.Partitions {
				states[tp.Name+"-"+strconv.Itoa(p.ID)] = stateOfPartition(p, false)
			}
		}
		still := last != nil && len(states) == len(last)
		for k, st := range states {
			if o, ok := last[k]; !ok || !o.equal(st) {
				still = false
			}
		}
		last, s = states, cur
		if !still {
			time.Sleep(time.Second)
		}
		return still, "the partitions changed since the last read"
	})
	return s
}

// waitFor reads the cluster until cond holds; it fails after 3 minutes
// (a hang, not a slow machine), saying what it saw last.
func (w *kraftWhatIf) waitFor(t *testing.T, what string, cond func(*cluster.Snapshot) (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	var why string
	for {
		s, err := w.tryLoad()
		if err == nil {
			var ok bool
			if ok, why = cond(s); ok {
				return
			}
		} else {
			why = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s; last: %s", what, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// load reads the cluster as ktopo does, through the running brokers.
func (w *kraftWhatIf) load(t *testing.T) *cluster.Snapshot {
	t.Helper()
	s, err := w.tryLoad()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (w *kraftWhatIf) tryLoad() (*cluster.Snapshot, error) {
	bs := w.c.runningBrokers()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return kafkawatch.Load(ctx, kafkawatch.Dial{Bootstrap: bs}, cluster.ModelOptions{}, nil)
}

// kraftRecovering lists the partitions ("topic-p") the controller's
// metadata log leaves RECOVERING (an unclean election not yet followed by
// the new leader's AlterPartition): its PartitionRecords and
// PartitionChangeRecords replayed, as kafka-dump-log decodes them.
func kraftRecovering(t *testing.T, c *kafkatest.KRaftCluster) map[string]bool {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(c.Node(kafkatest.FirstControllerID).DataDir(), "__cluster_metadata-0", "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no metadata log: %v", err)
	}
	out := kafkaTool(t, c, "kafka-dump-log", append([]string{"--cluster-metadata-decoder", "--files"}, strings.Join(logs, ","))...)
	names := map[string]string{} // topic id → name
	state := map[string]int{}    // topic id/partition → leaderRecoveryState
	for _, line := range strings.Split(out, "\n") {
		_, payload, ok := strings.Cut(line, " payload: ")
		if !ok {
			continue
		}
		var rec struct {
			Type string `json:"type"`
			Data struct {
				Name                string `json:"name"`
				TopicID             string `json:"topicId"`
				PartitionID         int    `json:"partitionId"`
				LeaderRecoveryState *int   `json:"leaderRecoveryState"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(payload), &rec); err != nil {
			t.Fatalf("kafka-dump-log: %v: %s", err, payload)
		}
		d := rec.Data
		key := d.TopicID + "/" + strconv.Itoa(d.PartitionID)
		switch rec.Type {
		case "TOPIC_RECORD":
			names[d.TopicID] = d.Name
		case "REMOVE_TOPIC_RECORD":
			delete(names, d.TopicID)
		case "PARTITION_RECORD":
			state[key] = 0
			if d.LeaderRecoveryState != nil {
				state[key] = *d.LeaderRecoveryState
			}
		case "PARTITION_CHANGE_RECORD":
			if d.LeaderRecoveryState != nil && *d.LeaderRecoveryState >= 0 {
				state[key] = *d.LeaderRecoveryState
			}
		}
	}
	rec := map[string]bool{}
	for key, st := range state {
		id, part, _ := strings.Cut(key, "/")
		if name, ok := names[id]; ok && st == cluster.LeaderRecovering {
			rec[name+"-"+part] = true
		}
	}
	return rec
}
