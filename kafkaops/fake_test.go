package kafkaops_test

import (
	"context"
	"testing"

	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/kraftfake"
	"github.com/ktopo/ktopo/kafkaops"
)

// TestOnBrokerConfigs: the writer says when it has changed a broker's
// configs (the poller then reads the cordons at once): after a cordon or
// an uncordon sent, never after one only described or validated.
func TestOnBrokerConfigs(t *testing.T) {
	spec, k := fixture.SmallKRaft()
	m := spec.Model()
	m.SetKRaft(k)
	w := kafkaops.New(kraftfake.New(m.Snapshot()), 0)
	calls := 0
	w.OnBrokerConfigs(func() { calls++ })
	ctx := context.Background()
	for _, mode := range []clusterops.Mode{clusterops.Describe, clusterops.Validate} {
		if _, err := w.Cordon(ctx, 1, true, mode); err != nil {
			t.Fatalf("cordon, mode %d: %v", mode, err)
		}
	}
	if calls != 0 {
		t.Fatalf("called %d times before anything was sent", calls)
	}
	if _, err := w.Cordon(ctx, 1, true, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Cordon(ctx, 1, false, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Fatalf("called %d times after a cordon and an uncordon, want 2", calls)
	}
}
