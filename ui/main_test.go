package ui

import (
	"testing"

	"github.com/ktopo/ktopo/internal/zktest"
)

// The creation flows run against a real ZooKeeper.
func TestMain(m *testing.M) { zktest.Main(m) }
