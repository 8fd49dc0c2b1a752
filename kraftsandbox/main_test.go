package kraftsandbox

import (
	"os"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// The tests that compare the sandbox with real Kafka share one Kafka 4.4
// cluster (kafkatest.SharedKRaft: 3 controllers, 3 brokers in 3 racks),
// started by the first of them and stopped here; those that kill nodes
// get them back when they end.
func TestMain(m *testing.M) {
	code := m.Run()
	kafkatest.StopAll()
	os.Exit(code)
}
