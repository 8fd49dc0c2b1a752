package kafkawatch

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// TestFenceBeforeItsEffects: the controller fences a killed broker and
// moves its leaders in one record batch. A poll whose Metadata shows the
// moves (broker 1 no longer listed) while its DescribeCluster, answered
// elsewhere or earlier, still lists broker 1 unfenced, reports the broker
// gone first, then the leader moves and ISR shrinks it caused; never the
// reaction one poll before its cause.
func TestFenceBeforeItsEffects(t *testing.T) {
	h := newHarness(t)
	h.poll(baseView())

	v := baseView()
	// Metadata: broker 1 is not listed; a-0's leader moved 1 → 2, b-0
	// lost 1 from its ISR.
	var metaLive []brokerInfo
	for _, b := range brokers() {
		if b.id != 1 {
			metaLive = append(metaLive, b)
		}
	}
	v.topics[0].decoded[1] = mdPart(0, 2, 1, []int32{1, 2}, []int32{2})
	v.topics[1].decoded[0] = mdPart(0, 3, 1, []int32{3, 1}, []int32{3})
	// DescribeCluster, stale: every broker unfenced.
	dc := kmsg.NewPtrDescribeClusterResponse()
	dc.Version = 2
	for _, b := range brokers() {
		db := kmsg.NewDescribeClusterResponseBroker()
		db.NodeID, db.Host, db.Port, db.Rack = b.id, b.host, b.port, b.rack
		dc.Brokers = append(dc.Brokers, db)
	}
	v.brokers, v.fencedListed = mergeBrokers(metaLive, dc)
	_, changes := h.poll(v)
	got := kinds(changes)
	want := []cluster.ChangeKind{cluster.ChangeBrokerGone, cluster.ChangeLeaderMoved, cluster.ChangeIsrShrank, cluster.ChangeIsrShrank}
	if !slices.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	if b, _ := h.m.Snapshot().Broker(1); b.Live || !b.Fenced {
		t.Fatalf("broker 1 after the poll: %+v", b)
	}
	// Metadata lists broker 1 again (unfenced) while DescribeCluster still
	// says fenced: live, with its rack.
	dc.Brokers[0].IsFenced = true
	v.brokers, v.fencedListed = mergeBrokers(brokers(), dc)
	_, changes = h.poll(v)
	if got := kinds(changes); !slices.Equal(got, []cluster.ChangeKind{cluster.ChangeBrokerRegistered}) {
		t.Fatalf("unfenced: %v", got)
	}
	if b, _ := h.m.Snapshot().Broker(1); !b.Live || b.Rack != "r1" {
		t.Fatalf("broker 1 unfenced: %+v", b)
	}
}

// TestISRRowsAreTrue: a poll that shows an ISR both lose and gain
// members gives two rows, each with the ISR after it (N12: a drain's
// "ISR shrank −3 ISR now 1,2,4" beside "ISR expanded +4 ISR now 1,2,4").
func TestISRRowsAreTrue(t *testing.T) {
	type row struct {
		kind cluster.ChangeKind
		isr  []int
	}
	rows := func(cs []cluster.Change) []row {
		var out []row
		for _, c := range cs {
			if c.Kind == cluster.ChangeIsrShrank || c.Kind == cluster.ChangeIsrExpanded {
				out = append(out, row{c.Kind, c.ISR})
			}
		}
		return out
	}
	for _, tc := range []struct {
		name             string
		replicas, isr    []int32
		reassign         map[string]map[int32]reassignInfo
		nextRep, nextISR []int32
		want             []row
	}{
		{name: "a move completes: 4 joined, then 3 was dropped",
			replicas: []int32{3, 1, 2, 4}, isr: []int32{3, 1, 2},
			reassign: map[string]map[int32]reassignInfo{"a": {0: {replicas: []int32{3, 1, 2, 4}, adding: []int32{4}, removing: []int32{3}}}},
			nextRep:  []int32{1, 2, 4}, nextISR: []int32{1, 2, 4},
			want: []row{{cluster.ChangeIsrExpanded, []int{3, 1, 2, 4}}, {cluster.ChangeIsrShrank, []int{1, 2, 4}}}},
		{name: "3 fell out, 4 caught up",
			replicas: []int32{1, 2, 3, 4}, isr: []int32{1, 2, 3},
			nextRep: []int32{1, 2, 3, 4}, nextISR: []int32{1, 2, 4},
			want: []row{{cluster.ChangeIsrShrank, []int{1, 2}}, {cluster.ChangeIsrExpanded, []int{1, 2, 4}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			v := baseView()
			v.topics[0].decoded[1] = mdPart(0, tc.isr[0], 0, tc.replicas, tc.isr)
			if tc.reassign != nil {
				v.reassign = tc.reassign
			}
			h.poll(v)
			v = baseView()
			v.topics[0].decoded[1] = mdPart(0, tc.nextISR[0], 1, tc.nextRep, tc.nextISR)
			_, changes := h.poll(v)
			got := rows(changes)
			if len(got) != len(tc.want) {
				t.Fatalf("rows %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].kind != tc.want[i].kind || !slices.Equal(got[i].isr, tc.want[i].isr) {
					t.Fatalf("rows %v, want %v", got, tc.want)
				}
			}
		})
	}
}
