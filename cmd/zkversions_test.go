package cmd

import (
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestZooKeeperVersions runs the core commands' tests again on Apache
// ZooKeeper 3.5.9 (what Kafka 2.6–2.8 ship: no 3.6+ operations) and 3.9.5
// (the newest), besides the package's Debian 3.8: topics create (its
// checks, its one multi, its wait), describe, list, brokers, delete,
// events, digest auth, and the sandbox on an external ZooKeeper (its
// controller's multis with check ops). No test may fail there, and no
// opcode the server lacks may be sent (kafkatest.OnZooKeeper).
func TestZooKeeperVersions(t *testing.T) {
	core := "^(TestDescribe|TestListAndBrokers|TestCreateValidation|TestCreateRackModes|TestCreateWritesKafkasZnodes|" +
		"TestCreateValidateOnlyAndReadOnly|TestCreateIsAtomic|TestCreateWaitsUntilOnline|TestCreateTimeoutSaysWhy|" +
		"TestDelete|TestChrootIsolation|TestDigestAuth|TestEventsStream|TestEventsText|TestSandboxOnZooKeeper)$"
	if !testing.Short() {
		// And ktopo events through an ensemble's failovers.
		core = strings.TrimSuffix(core, ")$") + "|TestEventsOnEnsemble|TestCreateNoReply)$"
	}
	for _, v := range []string{kafkatest.ZooKeeper35, kafkatest.ZooKeeper39} {
		t.Run(v, func(t *testing.T) { kafkatest.OnZooKeeper(t, v, core) })
	}
}
