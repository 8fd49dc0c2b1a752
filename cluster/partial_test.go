package cluster_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestPartialSnapshotTopics: while a load is under way each snapshot lists,
// sorted, exactly the topics whose znode and every partition state are in
// (the list is merged snapshot to snapshot, not rebuilt), also when topics
// go away or lose a state meanwhile.
func TestPartialSnapshotTopics(t *testing.T) {
	spec := fixture.Spec{ClusterID: "c", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 1, Time: 1}
	for i := range 60 {
		spec.Topics = append(spec.Topics, fixture.Topic{Name: fmt.Sprintf("t%02d", (i*37)%60), Partitions: 1 + i%4, RF: 2})
	}
	evs := spec.Events()
	r := rand.New(rand.NewPCG(3, 4))
	r.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
	m := cluster.NewModel(cluster.ModelOptions{})
	m.SetLoading(true)
	held := map[string]zkwatch.Event{} // what the model has
	for len(evs) > 0 {
		n := min(len(evs), 1+r.IntN(25))
		batch := slices.Clone(evs[:n])
		evs = evs[n:]
		// Now and then a partition state the model has goes away (and
		// comes back later). Only a leaf: ZooKeeper deletes no znode with
		// children.
		if r.IntN(3) == 0 {
			var states []string
			for p := range held {
				if cluster.ParsePath(p).Kind == cluster.KindPartitionState {
					states = append(states, p)
				}
			}
			if len(states) > 0 {
				slices.Sort(states)
				p := states[r.IntN(len(states))]
				ev := held[p]
				batch = append(batch, zkwatch.Event{Type: zkwatch.Deleted, Path: p})
				delete(held, p)
				ev.Type = zkwatch.Created
				evs = append(evs, ev)
			}
		}
		for _, ev := range batch {
			if ev.Type == zkwatch.Deleted {
				continue
			}
			held[ev.Path] = ev
		}
		m.Apply(zksource.NodeEvents(zkwatch.Batch{Events: batch}), false)
		s := m.Snapshot()
		var got []string
		for _, tp := range s.Topics() {
			got = append(got, tp.Name)
		}
		var want []string
		loading := 0
		for _, tp := range spec.Topics {
			if _, ok := held["/brokers/topics/"+tp.Name]; !ok {
				continue
			}
			complete := true
			for p := range tp.Partitions {
				if _, ok := held[cluster.PartitionStatePath(tp.Name, p)]; !ok {
					complete = false
				}
			}
			if complete {
				want = append(want, tp.Name)
			} else {
				loading++
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) || s.LoadingTopics() != loading {
			t.Fatalf("partial snapshot lists %v (%d loading), want %v (%d)", got, s.LoadingTopics(), want, loading)
		}
	}
}
