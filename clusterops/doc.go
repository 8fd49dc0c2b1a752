// Package clusterops is what ktopo does to a Kafka cluster, planned as
// Kafka's own tools plan it, whichever way the cluster is written: every
// plan is checked against a cluster.Snapshot, and every write is one call
// of the write port, Writer (writer.go), which a backend implements:
// package zkops through ZooKeeper (one multi per write, behind the
// migration guard), package kafkaops through the Kafka protocol (a KRaft
// cluster's Admin API requests). Optional capabilities (Guarded, Additive,
// Canceller, Cordoner, ConfigDescriber) are asked for by type, and each
// backend words its own writes (Words).
//
// Types to know: Writer, Writes, Mode (Describe, Validate, Apply), the
// plans (TopicPlan, AddPartitionsPlan, ConfigAlteration, ReassignPlan,
// ElectionPlan, ThrottleClear, GeneratePlan), Outcome (a write whose
// reply was lost), ConfigReader (the configs a plan reads).
//
// The operations, by file:
//   - topic creation (create.go: PlanTopic; plancheck.go, plandiff.go:
//     the wizard's checks and diffs; progress.go: the partitions coming
//     online; outcome.go: what became of a write whose reply was lost);
//   - adding partitions (alter.go) and config changes (configalter.go,
//     configwrite.go, configeffects.go: what a change does to the
//     partitions; snapshotconfigs.go: ConfigReader);
//   - partition reassignment as kafka-reassign-partitions does it
//     (reassign.go: checks, throttles and their removal;
//     reassign_generate.go: --generate; reassign_progress.go: following a
//     known plan), and the TUI's operations on top of it (drain.go,
//     leaderfirst.go: a drain's leaders moved off first; topicmove.go);
//   - preferred leader elections (election.go).
//
// Like cluster it imports neither Bubble Tea nor a ZooKeeper or Kafka
// client (of franz-go only kerr, the error codes cluster.KafkaError
// wraps).
package clusterops
