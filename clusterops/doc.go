// Package clusterops is what ktopo does to a Kafka cluster, planned as
// Kafka's own tools plan it and written as Kafka writes it: every plan is
// checked against a cluster.Snapshot, and every write is one call of the
// write port, Writer (writer.go), whichever way the cluster is written.
// Through ZooKeeper that is ZooKeeperWriter (zkwriter.go), the only way
// to write with this package: each write is one ZooKeeper multi (all
// or nothing) with the exact znodes its plan names, sent by writeMulti
// (zkport.go: the ZK interface a session offers, MaybeWritten) behind the
// ZooKeeper to KRaft migration guard (guard.go). Through the Kafka
// protocol, a KRaft cluster's, it is package kafkaops' Writer.
//
// The operations, by file:
//   - topic creation and deletion (create.go: PlanTopic; deleteops.go;
//     plancheck.go, plandiff.go: the wizard's checks and diffs;
//     progress.go: the partitions coming online; outcome.go: what became
//     of a write whose reply was lost);
//   - adding partitions (alter.go) and config changes (configalter.go,
//     configwrite.go, configeffects.go: what a change does to the
//     partitions);
//   - partition reassignment as kafka-reassign-partitions does it
//     (reassign.go: checks, throttles and their removal, the one multi;
//     reassign_generate.go: --generate; reassign_progress.go: following a
//     known plan), and the TUI's operations on top of it (drain.go,
//     leaderfirst.go: a drain's leaders moved off first; topicmove.go);
//   - preferred leader elections (election.go);
//   - the ACLs Kafka gives what it creates (acl.go).
//
// Like cluster it imports neither Bubble Tea nor zkwatch; the ZooKeeper
// session comes in through the ZK interface.
package clusterops
