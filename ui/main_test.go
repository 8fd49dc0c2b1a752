package ui

import (
	"os"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// The creation flows run against a real ZooKeeper. A child of
// BenchmarkScaleLoad or BenchmarkKRaftScale only loads a cluster, the
// churn's driver only writes (none needs a server of its own).
func TestMain(m *testing.M) {
	if cs := os.Getenv(scaleChildEnv); cs != "" {
		os.Exit(scaleChild(cs))
	}
	if bs := os.Getenv(kraftChildEnv); bs != "" {
		os.Exit(kraftChild(bs))
	}
	if spec := os.Getenv(kraftSandboxEnv); spec != "" {
		os.Exit(kraftSandboxChild(spec))
	}
	if plan := os.Getenv(churnDriverEnv); plan != "" {
		os.Exit(churnDriver(plan))
	}
	zktest.Main(m)
}
