package cluster

// Backend is how ktopo reaches a cluster: through its ZooKeeper (a
// cluster in ZooKeeper mode) or over the Kafka protocol (a KRaft
// cluster). The read port (clusterwatch.Source) and the write port
// (clusterops.Writer) both say which with it: the one enum of the
// program, so that what depends on the way a cluster is reached (the
// composition root, the words of what is sent) asks one question.
type Backend uint8

// The backends.
const (
	// ViaZooKeeper: a cluster in ZooKeeper mode, read through ZooKeeper's
	// watches and written in ZooKeeper multis.
	ViaZooKeeper Backend = iota
	// ViaKafka: a KRaft cluster, polled and written with Kafka's requests.
	ViaKafka
)

// String is "ZooKeeper" or "Kafka", as messages name them.
func (b Backend) String() string {
	if b == ViaKafka {
		return "Kafka"
	}
	return "ZooKeeper"
}
