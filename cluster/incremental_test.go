package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestIncrementalEqualsRecount: after every batch of random changes (topics
// created, half read, deleted and re-created, partition states set, gone
// and back, replicas reordered, brokers going down and coming back,
// deletion markers, configs), first while the load is under way and then
// once it is done, what is kept from snapshot to snapshot equals what a
// recount of the same snapshot gives: a partial snapshot's topics, the
// count of those still loading and their health; the BalanceTracker's
// balance; the LedFromLastTracker's partitions led from last.
func TestIncrementalEqualsRecount(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { incrementalRun(t, seed) })
	}
}

func incrementalRun(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	z := newFakeZK()
	const nBrokers, nTopics = 5, 24
	var core []NodeEvent
	core = append(core, z.create(ClusterIDPath, string(EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv"))))
	core = append(core, z.create(ControllerEpochPath, "1"))
	core = append(core, z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 1, 1)))))
	for id := 1; id <= nBrokers; id++ {
		core = append(core, z.create(BrokerIDPath(id), brokerJSON(id, "r"+fmt.Sprint(id%2))))
	}
	name := func(i int) string { return fmt.Sprintf("t%02d", i) }
	assign := map[string]map[int][]int{} // the topics whose znode exists
	randomReplicas := func() []int {
		rs := r.Perm(nBrokers)[:3]
		for i := range rs {
			rs[i]++
		}
		return rs
	}
	randomState := func(rs []int) string {
		switch r.IntN(4) {
		case 0: // led from the last replica, all in sync
			return stateJSON(1, rs[len(rs)-1], r.IntN(9), rs...)
		case 1: // a replica out of sync
			return stateJSON(1, rs[1], r.IntN(9), rs[1:]...)
		case 2: // no leader
			return stateJSON(1, -1, r.IntN(9), rs[2])
		}
		return stateJSON(1, rs[0], r.IntN(9), rs...)
	}
	var batch []NodeEvent
	createTopic := func(tn string, states bool) {
		parts := map[int][]int{}
		for p := range 1 + r.IntN(4) {
			parts[p] = randomReplicas()
		}
		assign[tn] = parts
		batch = append(batch, z.create(TopicPath(tn), topicJSON(parts)))
		for p, rs := range parts {
			if states || r.IntN(3) > 0 {
				batch = append(batch, z.create(PartitionStatePath(tn, p), randomState(rs)))
			}
		}
	}
	for i := range nTopics / 2 {
		createTopic(name(i), r.IntN(2) == 0)
	}
	batch = append(core, batch...)

	m := NewModel(ModelOptions{})
	m.SetLoading(true)
	var bt BalanceTracker
	var lt LedFromLastTracker
	for step := range 300 {
		if step == 150 {
			m.SetLoading(false)
		}
		m.Apply(batch, false)
		batch = nil
		s := m.Snapshot()
		checkRecount(t, m, s, &bt, &lt)
		if t.Failed() {
			t.Fatalf("step %d", step)
		}
		for range 1 + r.IntN(6) {
			tn := name(r.IntN(nTopics))
			parts, exists := assign[tn]
			switch op := r.IntN(10); {
			case !exists:
				createTopic(tn, r.IntN(2) == 0)
			case op == 0: // deleted: states first, then the topic
				for p := range parts {
					if z.nodes[PartitionStatePath(tn, p)] != nil {
						batch = append(batch, z.del(PartitionStatePath(tn, p)))
					}
				}
				batch = append(batch, z.del(TopicPath(tn)))
				delete(assign, tn)
			case op <= 4: // a partition state written, created or deleted
				p := r.IntN(len(parts))
				path := PartitionStatePath(tn, p)
				switch {
				case z.nodes[path] == nil:
					batch = append(batch, z.create(path, randomState(parts[p])))
				case r.IntN(5) == 0:
					batch = append(batch, z.del(path))
				default:
					batch = append(batch, z.set(path, randomState(parts[p])))
				}
			case op == 5: // a partition's replicas reordered (a drain's leaders-first step)
				p := r.IntN(len(parts))
				rs := slices.Clone(parts[p])
				r.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
				parts[p] = rs
				batch = append(batch, z.set(TopicPath(tn), topicJSON(parts)))
			case op == 6: // a broker goes or comes back
				id := 1 + r.IntN(nBrokers)
				if z.nodes[BrokerIDPath(id)] != nil {
					batch = append(batch, z.del(BrokerIDPath(id)))
				} else {
					batch = append(batch, z.create(BrokerIDPath(id), brokerJSON(id, "r"+fmt.Sprint(id%2))))
				}
			case op == 7: // marked for deletion, or no longer
				if z.nodes[DeleteTopicPath(tn)] != nil {
					batch = append(batch, z.del(DeleteTopicPath(tn)))
				} else {
					batch = append(batch, z.create(DeleteTopicPath(tn), ""))
				}
			default: // its config written
				data := string(EncodeEntityConfig(map[string]string{"retention.ms": fmt.Sprint(r.IntN(9))}))
				if z.nodes[TopicConfigPath(tn)] != nil {
					batch = append(batch, z.set(TopicConfigPath(tn), data))
				} else {
					batch = append(batch, z.create(TopicConfigPath(tn), data))
				}
			}
		}
	}
}

// checkRecount compares what is kept incrementally for snapshot s of m with
// a recount.
func checkRecount(t *testing.T, m *Model, s *Snapshot, bt *BalanceTracker, lt *LedFromLastTracker) {
	t.Helper()
	if got, want := lt.Led(s), LedFromLast(s); !reflect.DeepEqual(got, want) {
		t.Errorf("tracker's partitions led from last %v, recount %v", got, want)
	}
	if got, want := bt.Balance(s), LeaderBalance(s); !slices.Equal(got, want) {
		t.Errorf("tracker's balance %+v, recount %+v", got, want)
	}
	if !s.Partial() {
		return
	}
	var want []string
	loading := 0
	for name, ts := range m.topics {
		switch {
		case !ts.hasNode:
		case ts.t.Health.Uninitialized == 0:
			want = append(want, name)
		default:
			loading++
		}
	}
	slices.Sort(want)
	var got []string
	var h TopicHealth
	for _, tp := range s.Topics() {
		got = append(got, tp.Name)
		if ts := m.topics[tp.Name]; ts == nil || ts.t != tp {
			t.Errorf("partial snapshot lists an old %s", tp.Name)
		}
		h.add(s.TopicHealth(tp), 1)
	}
	if !slices.Equal(got, want) || s.LoadingTopics() != loading {
		t.Errorf("partial snapshot lists %s (%d loading), recount %s (%d)", strings.Join(got, ","), s.LoadingTopics(), strings.Join(want, ","), loading)
	}
	if s.Health() != h {
		t.Errorf("partial snapshot's health %+v, recount %+v", s.Health(), h)
	}
}
