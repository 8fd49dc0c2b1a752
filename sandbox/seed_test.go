package sandbox

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ktopo/ktopo/cluster"
)

// TestSeedGivesTheSameCluster: two sandboxes drawing from the same seed
// have the same cluster id and the same demo topics, placements and ids
// included; another seed gives another cluster.
func TestSeedGivesTheSameCluster(t *testing.T) {
	run := func(seed uint64) string {
		e := newEnv(t, Config{Brokers: 6, Racks: 3, DemoTopics: true, Rand: rand.New(rand.NewPCG(seed, 1))})
		id, _, err := e.zk.Get(cluster.ClusterIDPath)
		if err != nil {
			t.Fatal(err)
		}
		s := string(id)
		for _, d := range DemoTopics() {
			data, _, err := e.zk.Get(cluster.TopicPath(d.Name))
			if err != nil {
				t.Fatal(err)
			}
			a, err := cluster.DecodeTopicAssignment(data)
			if err != nil {
				t.Fatal(err)
			}
			if a.TopicID == "" {
				t.Errorf("%s was written without its topic id", d.Name)
			}
			s += fmt.Sprintf("\n%s %s %v", d.Name, a.TopicID, a.Partitions)
		}
		return s
	}
	a, b, c := run(7), run(7), run(8)
	if a != b {
		t.Errorf("seed 7 gave two clusters:\n%s\n\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 7 and 8 gave the same cluster:\n%s", a)
	}
}
