package zkwatch

import (
	"os"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestZooKeeperVersions runs the connection and mirror tests again on
// Apache ZooKeeper 3.5.9 (what Kafka 2.6–2.8 ship: no 3.6+ operations) and
// 3.9.5 (the newest), besides the package's Debian 3.8: the mirror must
// equal the tree after bursts of changes, resume a session across a cut
// connection (setWatches), and send no opcode the server lacks. With
// KTOPO_ZK_MATRIX=full (the nightly run, outside -short) every mirror
// test, the ensemble's failovers and the network faults run there too
// (the ensemble's own requests are not recorded): some minutes a version,
// past go test's default ten-minute limit for the package.
func TestZooKeeperVersions(t *testing.T) {
	core := "^(TestMirrorBasic|TestMirrorNilAndEmpty|TestMirrorNoAccess|TestMirrorRandom|TestMirrorOpenSubtree|TestMirrorDisconnect|" +
		"TestChrootIsolation|TestMissingChroot|TestDigestAuth|TestSessionEvents|TestReadOnly)$"
	if !testing.Short() && os.Getenv("KTOPO_ZK_MATRIX") == "full" {
		core = "^(TestMirror.*|TestChrootIsolation|TestMissingChroot|TestDigestAuth|TestSessionEvents|TestReadOnly|TestServerKilled|" +
			"TestEnsemble.*|TestWriteWithoutSession|TestLateOutcome|TestBlackHoleServer|TestStallPastSessionTimeout)$"
	}
	for _, v := range []string{kafkatest.ZooKeeper35, kafkatest.ZooKeeper39} {
		t.Run(v, func(t *testing.T) { kafkatest.OnZooKeeper(t, v, core) })
	}
}
