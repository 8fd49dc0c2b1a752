package ui

import (
	"os"
	"testing"

	"github.com/ktopo/ktopo/internal/zktest"
)

// The creation flows run against a real ZooKeeper. A child of
// BenchmarkScaleLoad only loads a cluster (it needs no server of its own).
func TestMain(m *testing.M) {
	if cs := os.Getenv(scaleChildEnv); cs != "" {
		os.Exit(scaleChild(cs))
	}
	zktest.Main(m)
}
