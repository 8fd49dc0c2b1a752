package kafkaops_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// TestWritesLines: the exact writes (what --dry-run, --validate-only and
// the wizards' `w` show) of the writes TestDescribeWrites leaves out, each
// titled: a reassignment in two steps (its throttles, then itself), a
// cancel (null replicas), --verify's throttle removal, a deletion, the
// brokers' default config, an uncordon.
func TestWritesLines(t *testing.T) {
	ctx := context.Background()
	w, rec, fake := newWriter()
	s := fake.Snapshot()
	throttled := func(entity string, keys ...string) []string {
		out := []string{"  " + entity}
		for _, k := range keys {
			out = append(out, "    "+k)
		}
		return out
	}
	rate := []string{"SET leader.replication.throttled.rate=1000", "SET follower.replication.throttled.rate=1000"}
	var removed []string
	for _, b := range []string{"1", "2", "3", "4", "5"} {
		removed = append(removed, throttled("BROKER "+b, "DELETE leader.replication.throttled.rate", "DELETE follower.replication.throttled.rate",
			"DELETE replica.alter.log.dirs.io.max.bytes.per.second")...)
	}
	removed = append(removed, throttled("TOPIC clicks", "DELETE leader.replication.throttled.replicas", "DELETE follower.replication.throttled.replicas")...)

	for _, c := range []struct {
		name  string
		write func() (clusterops.Writes, error)
		title string
		lines []string
	}{
		{"a throttled reassignment", func() (clusterops.Writes, error) {
			_, ws, err := w.StartReassignment(ctx, s, []cluster.Reassignment{move("clicks", 0, 1, 3)}, 1000, clusterops.Describe)
			return ws, err
		}, "the throttles, then the reassignment", slices.Concat(
			[]string{"first: the throttles", "IncrementalAlterConfigs (validateOnly=true first, then false)"},
			throttled("TOPIC clicks", "SET leader.replication.throttled.replicas=0:1,0:2", "SET follower.replication.throttled.replicas=0:3"),
			throttled("BROKER 1", rate...), throttled("BROKER 2", rate...), throttled("BROKER 3", rate...),
			[]string{"then: the reassignment", "AlterPartitionReassignments timeoutMs=5000", "  topic clicks", "    partition 0 replicas [1,3]"})},
		{"a reassignment without throttles", func() (clusterops.Writes, error) {
			_, ws, err := w.StartReassignment(ctx, s, []cluster.Reassignment{move("clicks", 0, 1, 3), move("orders", 2, 3, 5, 1)}, -1, clusterops.Describe)
			return ws, err
		}, "the reassignment", []string{"AlterPartitionReassignments timeoutMs=5000", "  topic clicks", "    partition 0 replicas [1,3]",
			"  topic orders", "    partition 2 replicas [3,5,1]"}},
		{"a cancel", func() (clusterops.Writes, error) {
			return w.CancelReassignment(ctx, []cluster.TopicPartition{{Topic: "clicks", Partition: 0}, {Topic: "clicks", Partition: 3}}, clusterops.Describe)
		}, "cancel the reassignments", []string{"AlterPartitionReassignments timeoutMs=5000", "  topic clicks",
			"    partition 0 replicas null (cancel)", "    partition 3 replicas null (cancel)"}},
		{"the throttles removed", func() (clusterops.Writes, error) {
			_, _, ws, err := w.RemoveThrottles(ctx, s, []cluster.Reassignment{move("clicks", 0, 1, 3)}, clusterops.Describe)
			return ws, err
		}, "remove the throttles", append([]string{"IncrementalAlterConfigs (validateOnly=true first, then false)"}, removed...)},
		{"a deletion", func() (clusterops.Writes, error) {
			return w.DeleteTopic(ctx, s, "clicks", clusterops.Describe)
		}, "delete topic clicks", []string{"DeleteTopics timeoutMs=5000", "  topic clicks"}},
		{"the brokers' default", func() (clusterops.Writes, error) {
			return w.AlterConfigs(ctx, []*clusterops.ConfigAlteration{
				alteration(cluster.EntityBrokers, cluster.BrokerDefaultEntity, map[string]string{cluster.ConfigLeaderThrottledRate: "10"}),
				alteration(cluster.EntityBrokers, "2", nil)}, clusterops.Describe)
		}, "alter configs", []string{"IncrementalAlterConfigs (validateOnly=true first, then false)",
			`  BROKER "" (the default of every broker)`, "    SET leader.replication.throttled.rate=10", "  BROKER 2", "    (no change)"}},
		{"an uncordon", func() (clusterops.Writes, error) {
			return w.Cordon(ctx, 4, false, clusterops.Describe)
		}, "uncordon broker 4", []string{"IncrementalAlterConfigs (validateOnly=true first, then false)", "  BROKER 4", "    DELETE cordoned.log.dirs"}},
	} {
		ws, err := c.write()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		titles := make([]string, len(ws.Steps))
		for i, st := range ws.Steps {
			titles[i] = st.Title
		}
		if got := strings.Join(titles, ", then "); got != c.title || ws.Backend != cluster.ViaKafka {
			t.Errorf("%s: titled %q on %v", c.name, got, ws.Backend)
		}
		if got := ws.Lines(); !slices.Equal(got, c.lines) {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.lines, "\n"))
		}
	}
	if len(rec.sent) > 0 {
		t.Errorf("described writes sent %q", rec.summaries())
	}
}
