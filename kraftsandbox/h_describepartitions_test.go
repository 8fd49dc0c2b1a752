package kraftsandbox

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDescribeTopicPartitionsPages reads every demo partition through
// DescribeTopicPartitions in pages of 7, following the cursor, and finds
// each exactly once, in name order; a named topic that does not exist is
// refused alone.
func TestDescribeTopicPartitionsPages(t *testing.T) {
	c := startTest(t, Config{DemoTopics: true})
	cl := client(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	seen := map[string]int{}
	var order []string
	var cursor *kmsg.DescribeTopicPartitionsRequestCursor
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("the cursor never ends")
		}
		req := kmsg.NewPtrDescribeTopicPartitionsRequest()
		req.ResponsePartitionLimit, req.Cursor = 7, cursor
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tp := range resp.Topics {
			if len(order) == 0 || order[len(order)-1] != *tp.Topic {
				order = append(order, *tp.Topic)
			}
			for _, p := range tp.Partitions {
				if int(p.Partition) != seen[*tp.Topic] {
					t.Fatalf("%s: partition %d after %d", *tp.Topic, p.Partition, seen[*tp.Topic])
				}
				if p.EligibleLeaderReplicas == nil || p.LastKnownELR == nil {
					t.Errorf("%s-%d: ELR lists are null", *tp.Topic, p.Partition)
				}
				seen[*tp.Topic]++
				n++
			}
		}
		if n > 7 {
			t.Fatalf("a page of %d partitions, limit 7", n)
		}
		if resp.NextCursor == nil {
			break
		}
		cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: resp.NextCursor.Topic, Partition: resp.NextCursor.Partition}
	}
	want := []string{"__consumer_offsets", "audit-log", "clicks", "orders", "payments"}
	if len(order) != len(want) {
		t.Fatalf("topics %v, want %v", order, want)
	}
	for i, d := range want {
		if order[i] != d {
			t.Errorf("topic %d is %s, want %s", i, order[i], d)
		}
	}
	for _, d := range DemoTopics() {
		if seen[d.Name] != d.Partitions {
			t.Errorf("%s: %d partitions, want %d", d.Name, seen[d.Name], d.Partitions)
		}
	}

	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	req.Topics = []kmsg.DescribeTopicPartitionsRequestTopic{{Topic: "orders"}, {Topic: "nope"}}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Topics) != 2 || resp.Topics[0].ErrorCode != kerr.UnknownTopicOrPartition.Code || len(resp.Topics[1].Partitions) != 12 {
		t.Errorf("orders and an unknown topic: %+v", resp.Topics)
	}
}
