// Package zkops writes to a Kafka cluster in ZooKeeper mode as Kafka's
// tools and controller expect the znodes: it is the ZooKeeper backend of
// clusterops' write port, as kafkaops is the Kafka protocol's. Writer is
// the only way in: each write is one ZooKeeper multi (all or nothing)
// with the exact znodes its clusterops plan names, sent by writeMulti
// (port.go) with the ACLs Kafka gives what it creates (acl.go), behind
// the ZooKeeper to KRaft migration guard (guard.go: refused once a KRaft
// controller owns the metadata, the multi checking /controller_epoch's
// version).
//
// Types to know: Writer (NewWriter; a clusterops.Writer, Guarded and
// ConfigDescriber), ZK (what a session must offer: *zk.Conn and
// *zkwatch.Conn fit), MigrationError (the guard's refusal), and the
// errors of a write that met a concurrent change (ErrConcurrentTopicChange,
// ErrConcurrentConfigChange). MaybeWritten tells a failed write whose
// outcome is open (a lost reply) from one that certainly wrote nothing;
// the writer then reads back what became of it (outcome.go).
//
// By file: create.go, delete.go (topics; DescribeOps, a multi as the
// lines a preview shows), alter.go (adding partitions), configs.go
// (config overrides and their change notifications), reassign.go (the
// reassignment's multi, the throttles' removal), election.go
// (/admin/preferred_replica_election).
package zkops
