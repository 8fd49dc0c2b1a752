package zkops

import (
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestMain starts the ZooKeeper server the write tests run against
// (outcome_test.go).
func TestMain(m *testing.M) { zktest.Main(m) }
