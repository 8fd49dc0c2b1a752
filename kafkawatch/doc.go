// Package kafkawatch reads a KRaft cluster (Kafka 3.x without ZooKeeper,
// 4.x) over the Kafka protocol with franz-go's kmsg, as a
// clusterwatch.Source: every poll asks for Metadata, DescribeCluster,
// ListPartitionReassignments and DescribeQuorum together, the slower
// parts (topic and broker configs, log directories and their cordons,
// eligible leader replicas, finalized features) in turn in the
// background, and turns what changed into node events in Kafka's
// ZooKeeper layout (layout.go: what Kafka's ZooKeeper-to-KRaft migration
// writes for the same metadata), with the topics' and states' values
// typed, plus the KRaft facts that layout has no place for
// (cluster.KRaft). The model above it is the one a ZooKeeper cluster
// feeds; docs/architecture.md explains why.
//
// A broker is live when the Metadata response that holds the partitions
// lists it (a KRaft broker lists the unfenced ones): a fence and the
// leader moves and ISR shrinks of its record batch arrive in one poll,
// the fence first. A Metadata response of every topic is read against
// the last poll (metadata.go): only the topics whose bytes changed are
// decoded.
//
// Types to know: Poller (Start), the live source, and Load, a one-shot
// read; Dial and Security (config.go, props.go), how to reach a cluster as
// Kafka's tools' --command-config says; Quorum reads the metadata quorum
// from the controllers' listener (the migration radar); Diagnose says
// what is at an address that did not answer as a broker (internal/peer).
// An error code a broker answers with is a *cluster.KafkaError: the
// broker's message and the code's name; errors.Is(err, kerr.X) tests for
// a code, cluster.IsDenied for a missing ACL.
package kafkawatch
