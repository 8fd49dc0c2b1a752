package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/zkops"
)

// TestConfigChangeNotification: a topic config written with its change
// notification (the ZooKeeper writer's AlterConfigs, as ktopo configs
// --alter writes it) is applied by every running broker, and turning
// unclean.leader.election.enable on makes the controller elect an unclean
// leader for the topic's leaderless partition at once (Kafka's
// TopicUncleanLeaderElectionEnable), not at the next broker change.
func TestConfigChangeNotification(t *testing.T) {
	e := newEnv(t, Config{Brokers: 4})
	e.createTopic("pair", map[int][]int{0: {2, 3}}, map[string]string{"min.insync.replicas": "1"})
	e.waitStates("pair", map[int]*st{0: s(2, 0, 1, 0, 2, 3)})
	e.kill(3)
	e.waitStates("pair", map[int]*st{0: s(2, 1, 1, 1, 2)})
	e.kill(2)
	e.waitStates("pair", map[int]*st{0: s(-1, 2, 1, 2, 2)})
	e.restart(3)
	e.waitRegistered("1", "3", "4")
	// Broker 3 is back but out of the ISR: without unclean election the
	// partition stays leaderless.
	e.waitStates("pair", map[int]*st{0: s(-1, 2, 1, 2, 2)})

	write := func(cfg map[string]string) {
		t.Helper()
		n := e.get(cluster.TopicConfigPath("pair"))
		alt := &clusterops.ConfigAlteration{Change: clusterops.ConfigChange{EntityType: cluster.EntityTopics, Entity: "pair", Config: cfg, Version: n.version}}
		if _, err := zkops.NewWriter(e.zk).AlterConfigs(context.Background(), []*clusterops.ConfigAlteration{alt}, clusterops.Apply); err != nil {
			t.Fatal(err)
		}
	}
	write(map[string]string{"min.insync.replicas": "2"})
	for _, id := range []int{1, 3, 4} {
		waitFor(t, "broker applies min.insync.replicas=2", func() (bool, string) {
			cfg, _ := e.c.AppliedTopicConfig(id, "pair")
			return cfg["min.insync.replicas"] == "2", fmt.Sprintf("broker %d has %s", id, scalaMap(cfg))
		})
	}
	e.waitStates("pair", map[int]*st{0: s(-1, 2, 1, 2, 2)})

	write(map[string]string{"min.insync.replicas": "2", "unclean.leader.election.enable": "true"})
	e.waitStates("pair", map[int]*st{0: unclean(s(3, 3, 1, 3, 3))})
	for _, want := range []string{"Processing override for entityPath: topics/pair with config: Map(min.insync.replicas -> 2, unclean.leader.election.enable -> true)",
		"Unclean leader election has been enabled for topic pair"} {
		if !strings.Contains(e.logs.String(), want) {
			t.Errorf("the log has no %q", want)
		}
	}
	// A restarted broker applies the configs there are at startup.
	e.restart(2)
	waitFor(t, "restarted broker 2 has the topic's config", func() (bool, string) {
		cfg, _ := e.c.AppliedTopicConfig(2, "pair")
		return cfg["unclean.leader.election.enable"] == "true", scalaMap(cfg)
	})
}
