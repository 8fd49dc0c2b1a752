package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/zkwatch"
)

// kafkaSource is a KRaft cluster's source fed by the test: no ZooKeeper
// subtrees, Kind Kafka.
type kafkaSource struct{ ch chan clusterwatch.Batch }

func (s *kafkaSource) Next(ctx context.Context) (clusterwatch.Batch, error) {
	select {
	case <-ctx.Done():
		return clusterwatch.Batch{}, ctx.Err()
	case b := <-s.ch:
		return b, nil
	}
}
func (s *kafkaSource) Stats() clusterwatch.Stats {
	return clusterwatch.Stats{Counts: []clusterwatch.Count{{N: 28, Unit: "partitions"}, {N: 12, Unit: "ms a poll"}}}
}
func (s *kafkaSource) Kind() clusterwatch.Kind { return clusterwatch.Kafka }
func (s *kafkaSource) Server() string          { return "kafka-1:9092" }
func (s *kafkaSource) Close() error            { return nil }

// TestKRaftApp: on a KRaft cluster the shell shows the same screens fed
// by the Kafka-protocol source, without the ZooKeeper tree; its banner and
// status bar name Kafka and the source's figures; the overview names the
// quorum's leader as the controller; every write is refused with the one
// message.
func TestKRaftApp(t *testing.T) {
	src := &kafkaSource{ch: make(chan clusterwatch.Batch)}
	a := New(Config{Source: src, Connect: "kafka-1:9092", Mode: ModeLive, Now: func() time.Time { return t0 }, Location: t0.Location()})
	a.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	if s := screen(a); !strings.Contains(s, "Connecting to Kafka…") || strings.Contains(s, "Tree") {
		t.Fatalf("before the first batch:\n%s", s)
	}
	spec, k := fixture.SmallKRaft()
	run(a, batchMsg{Partial: true, States: []zkwatch.State{zkwatch.StateConnected}, Progress: clusterwatch.Progress{Done: 2, Known: 6}})
	if s := screen(a); !strings.Contains(s, "Loading the cluster from Kafka… read the configs of 2 of 6 topics") {
		t.Fatalf("loading:\n%s", s)
	}
	for i, b := range spec.Batches() {
		cb := clusterwatch.FromMirrorBatch(b)
		if i == 0 {
			cb.KRaft = k
		}
		run(a, batchMsg(cb))
	}
	s := screen(a)
	header := strings.Split(s, "\n")[0]
	if strings.Contains(header, "Tree") || !strings.Contains(header, "3 Events") {
		t.Fatalf("tabs: %s", header)
	}
	for _, want := range []string{"controller 3001 (epoch 12)", "quorum leader 3001 (epoch 12)", "FENCED", "28 partitions · 12 ms a poll"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
	if strings.Contains(s, "znodes") {
		t.Errorf("ZooKeeper's figures on a KRaft cluster:\n%s", s)
	}
	press(a, "3")
	if a.Active() != "events" {
		t.Fatalf("3 opens %s", a.Active())
	}
	press(a, ":", "t", "r", "e", "e", "enter")
	if a.Active() == "tree" {
		t.Fatal(":tree opened the ZooKeeper tree on a KRaft cluster")
	}
	press(a, "1", "d") // drain the selected broker
	if st, isErr := a.Status(); !isErr || !strings.Contains(st, "Refusing to drain broker 1") || !strings.Contains(st, "ktopo does not write to KRaft clusters yet") {
		t.Fatalf("drain: %q", st)
	}
	run(a, batchMsg{States: []zkwatch.State{zkwatch.StateDisconnected}})
	if s := screen(a); !strings.Contains(s, "Disconnected from Kafka — reconnecting; the data shown is as of 03:04:05") {
		t.Fatalf("disconnected:\n%s", s)
	}
	run(a, batchMsg{States: []zkwatch.State{zkwatch.StateUnresponsive}})
	if s := screen(a); !strings.Contains(s, "Kafka is not answering") {
		t.Fatalf("unresponsive:\n%s", s)
	}
}
