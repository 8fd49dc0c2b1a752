package cluster

import (
	"testing"
	"unsafe"
)

// During a reassignment Kafka 3.x counts the replication factor without the
// replicas being added: a partition moving from [1,2] to [1,4] reads
// [1,4,2] adding [4] removing [2], RF 2, in sync with ISR [1,2].
func TestReplicationFactorDuringReassignment(t *testing.T) {
	p := new(Partition{InAssignment: true, Replicas: []int{1, 4, 2}, ISR: []int{1, 2}}.SetMoves([]int{4}, []int{2}))
	if p.ReplicationFactor() != 2 || p.UnderReplicated() {
		t.Errorf("RF %d, under-replicated %v; want 2, false", p.ReplicationFactor(), p.UnderReplicated())
	}
	p.ISR = []int{1}
	if !p.UnderReplicated() {
		t.Error("ISR [1] of RF 2 is under-replicated")
	}
	tp := &Topic{Partitions: []*Partition{p}}
	if tp.ReplicationFactor() != 2 {
		t.Errorf("topic RF %d, want 2", tp.ReplicationFactor())
	}
	q := &Partition{InAssignment: true, Replicas: []int{1, 2, 3}, ISR: []int{1, 2}}
	if q.ReplicationFactor() != 3 || !q.UnderReplicated() {
		t.Errorf("no reassignment: RF %d under %v", q.ReplicationFactor(), q.UnderReplicated())
	}
}

// TestPartitionSize guards the model's memory: a 100,000-partition
// cluster holds one Partition a partition, so what only some partitions
// have stays behind a pointer (see Partition).
func TestPartitionSize(t *testing.T) {
	if n := unsafe.Sizeof(Partition{}); n > 128 {
		t.Fatalf("a Partition is %d bytes, over 128: keep rare fields in partitionMore", n)
	}
}
