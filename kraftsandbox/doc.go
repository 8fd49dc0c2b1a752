// Package kraftsandbox is a simulated Kafka 4.4 cluster in KRaft mode,
// served over the Kafka protocol on loopback with no Java: brokers and
// controllers, each with its own listener, that answer Kafka's clients
// and tools (and ktopo's KRaft reader and writer) as a real 4.4.0
// cluster does.
//
// It is built on franz-go's kmsg for the wire (server.go: frames,
// headers, version checks; apis.go: the API versions a real 4.4.0 node
// advertises) and models the controller itself (partition.go: ISR, ELR
// and leader elections; topics.go: the StripedReplicaPlacer's placement),
// with the data plane (records in memory), the group coordinator, the
// metadata quorum, feature levels and log directories beside it.
//
// Every piece of state is guarded by Cluster.mu; a change to the metadata
// appends a record (Cluster.record) so the quorum's offsets move as a
// real metadata log's do.
package kraftsandbox
