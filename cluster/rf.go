package cluster

// ReplicationFactors are the lowest and the highest replication factor of
// t's partitions (Partition.ReplicationFactor): equal unless they differ,
// as a reassignment written by hand can make them. ReplicationFactor is
// Kafka's, partition 0's.
func (t *Topic) ReplicationFactors() (lo, hi int) {
	first := true
	for i := range t.Partitions {
		p := t.Partitions[i]
		if !p.InAssignment {
			continue
		}
		rf := p.ReplicationFactor()
		if first || rf < lo {
			lo = rf
		}
		if first || rf > hi {
			hi = rf
		}
		first = false
	}
	return lo, hi
}
