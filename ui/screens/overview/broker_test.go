package overview

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/firstload"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/theme"
)

// TestBrokerIncremental: after every batch of random changes (leaders
// moved, replicas reassigned on and off the broker, topics deleted and
// created), a broker's partition list kept from snapshot to snapshot lists
// what one opened on that snapshot lists, and what a recount gives.
func TestBrokerIncremental(t *testing.T) {
	l := firstload.Load{Topics: 40, Partitions: 3, Brokers: 6}
	r := rand.New(rand.NewPCG(5, 6))
	m := cluster.NewModel(cluster.ModelOptions{})
	m.Apply(l.Core(), false)
	const id = 2
	kept := NewBroker(theme.New(true), keys.Default(), id)
	kept.SetSize(120, 40)
	replicas := func() []int {
		rs := r.Perm(l.Brokers)[:3]
		for i := range rs {
			rs[i]++
		}
		return rs
	}
	for step := range 200 {
		s := m.Snapshot()
		kept.SetSnapshot(s)
		fresh := NewBroker(theme.New(true), keys.Default(), id)
		fresh.SetSnapshot(s)
		var want []ref
		leaders := 0
		for ti, tp := range s.Topics() {
			for pi, p := range tp.Partitions {
				for _, rep := range p.Replicas {
					if rep == id {
						want = append(want, ref{int32(ti), int32(pi)})
						if p.HasLeader() && p.Leader == id {
							leaders++
						}
						break
					}
				}
			}
		}
		for _, b := range []*Broker{kept, fresh} {
			var got []ref
			for i := range b.rows() {
				got = append(got, b.ref(i))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || b.leaders != leaders || b.win.N != len(want) {
				t.Fatalf("step %d: rows %v (%d led, window of %d), recount %v (%d led)", step, got, b.leaders, b.win.N, want, leaders)
			}
		}
		var batch []cluster.NodeEvent
		for range 1 + r.IntN(4) {
			tn := firstload.Topic(r.IntN(l.Topics + 5))
			switch r.IntN(4) {
			case 0: // gone (or never there)
				batch = append(batch, cluster.NodeEvent{Type: cluster.NodeDeleted, Path: cluster.TopicPath(tn)})
			case 1: // created or reassigned
				parts := map[int][]int{}
				for p := range 1 + r.IntN(4) {
					parts[p] = replicas()
				}
				batch = append(batch, cluster.NodeEvent{Type: cluster.NodeChanged, Path: cluster.TopicPath(tn),
					Data: cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(parts, ""))})
				for p, rs := range parts {
					batch = append(batch, cluster.NodeEvent{Type: cluster.NodeChanged, Path: cluster.PartitionStatePath(tn, p),
						Data: cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: rs[0], ISR: rs})})
				}
			default: // a leader moved
				rs := replicas()
				batch = append(batch, cluster.NodeEvent{Type: cluster.NodeChanged, Path: cluster.PartitionStatePath(tn, r.IntN(3)),
					Data: cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: rs[0], LeaderEpoch: step, ISR: rs})})
			}
		}
		m.Apply(batch, false)
	}
}
