package sandbox

import (
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestZooKeeperVersions runs the simulated controller's tests again on
// Apache ZooKeeper 3.5.9 and 3.9.5, besides the package's Debian 3.8: its
// writes (multis with check ops, ephemeral and sequential nodes, watches)
// must work there, and send no opcode the server lacks.
func TestZooKeeperVersions(t *testing.T) {
	core := "^(TestStartupWrites|TestCreateTopic|TestBrokerFailure|TestControllerFailover|TestDeleteTopic|TestPreferredElectionNode)$"
	if !testing.Short() {
		core = "^(TestStartupWrites|TestCreate.*|TestAddPartitions|TestBrokerFailure|TestControllerFailover|TestMoveController|" +
			"TestDeleteTopic|TestPreferredElectionNode|TestForeignIsrChangeNotification|TestTwoSandboxesOneServer|TestDemoTopics|" +
			"TestAutoRebalance|TestChurn|TestSessionExpiry|TestBounce|TestControl|TestLostReplies|TestEnsembleFaults)$"
	}
	for _, v := range []string{kafkatest.ZooKeeper35, kafkatest.ZooKeeper39} {
		t.Run(v, func(t *testing.T) { kafkatest.OnZooKeeper(t, v, core) })
	}
}
