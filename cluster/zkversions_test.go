package cluster

import (
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestZooKeeperVersions writes and reads Kafka's layout again on Apache
// ZooKeeper 3.5.9 and 3.9.5, besides the package's Debian 3.8.
func TestZooKeeperVersions(t *testing.T) {
	for _, v := range []string{kafkatest.ZooKeeper35, kafkatest.ZooKeeper39} {
		t.Run(v, func(t *testing.T) { kafkatest.OnZooKeeper(t, v, "^TestKafkaLayoutOnZooKeeper$") })
	}
}
