package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// TestWriteMoveBytes: the bytes a move copies, in and out per broker, the
// time it takes under the throttle, and the refusal of a move that would
// fill a broker's log directories; unknown sizes say why.
func TestWriteMoveBytes(t *testing.T) {
	spec := fixture.Spec{ClusterID: "c", Brokers: 3, Racks: 1, Controller: 1, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 1, RF: 1}}}
	s := spec.Model().Snapshot()
	p := s.Topic("orders").Partition(0)
	from := p.Replicas[0]
	to := 1 + from%3
	moves := []clusterops.PartitionMove{{TopicPartition: cluster.TopicPartition{Topic: "orders", Partition: 0}, Current: []int{from}, Target: []int{to}}}
	sizes := func(usable int64) *cluster.Sizes {
		b := cluster.NewSizesBuilder(time.Unix(100, 0))
		for id := 1; id <= 3; id++ {
			b.Broker(id, []cluster.LogDir{{Path: "/d", Total: 1 << 40, Usable: usable}})
		}
		b.Replica("orders", 0, cluster.ReplicaSize{Broker: int32(from), Bytes: 100 << 20})
		return b.Done(nil)
	}
	var out, errOut strings.Builder
	if err := writeMoveBytes(&out, &errOut, s, sizes(1<<30), moves, 10<<20); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Bytes to move: 100 MiB (104857600 bytes)", "Estimated time at --throttle 10485760 B/s: about 10s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
	out.Reset()
	err := writeMoveBytes(&out, &errOut, s, sizes(50<<20), moves, -1)
	if err == nil || !strings.Contains(err.Error(), "would receive 100 MiB but its log directories have 50.0 MiB usable") {
		t.Errorf("a move past the usable bytes: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := writeMoveBytes(&out, &errOut, s, cluster.UnknownSizes(time.Now(), "no access (DESCRIBE on the cluster)"), moves, 1000); err != nil ||
		out.String() != "" || errOut.String() != "Note: bytes to move unknown: sizes unknown: no access (DESCRIBE on the cluster)\n" {
		t.Errorf("unknown sizes: %v %q %q", err, out.String(), errOut.String())
	}
}
