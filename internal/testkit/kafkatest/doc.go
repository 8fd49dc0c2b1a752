// Package kafkatest runs real Apache Kafka for ktopo's tests, and for
// developers who want a real cluster to point ktopo at: brokers in
// ZooKeeper mode, KRaft clusters, and a ZooKeeper-mode cluster migrated to
// KRaft step by step.
//
// The jars come from Maven Central through Maven (pom.xml beside this file
// names them): Kafka 4.4.0 (KRaft only), 3.9.2 (the last ZooKeeper-mode
// line; it also runs in KRaft mode and migrates), 2.8.2 (the last
// kafka-topics.sh with --zookeeper), and ZooKeeper servers 3.5.9 and
// 3.9.5. They are copied once into CacheDir()
// (~/.cache/ktopo/<kafka|zookeeper>/<version>/libs); later runs use that
// copy and start no Maven at all. All run on Java 17.
//
// Every Kafka process is a Node (Broker is its name in ZooKeeper mode):
// started, stopped cleanly (SIGTERM), killed (SIGKILL), paused, restarted,
// each with one log file per run in its cluster's directory (Attach prints
// what a failed test's nodes logged). JVMs start small (SerialGC, C1 only,
// 384m brokers, 256m controllers) and map a class-data-sharing archive
// made by the first clean run of each kind (cds.go), which halves a JVM's
// start. ReapStale kills what a crashed test run left and removes its
// directories.
//
// # ZooKeeper mode
//
// Start runs N brokers (ids 1..N, racks rack-a, rack-b, … round-robin) on
// loopback ports with a short ZooKeeper session timeout, on a given
// connect string with a chroot, and returns when every broker is
// registered and a controller is elected. In tests, Shared gives a
// package one cluster per version on the package's ZooKeeper (zktest).
//
// # KRaft mode
//
// StartKRaft runs a KRaft cluster of Kafka44 or Kafka39: Combined nodes
// (process.roles=broker,controller, ids 1..N; one by default), or
// controllers (ids FirstControllerID = 3000, 3001, …) and brokers (ids
// 1..N, racks as above), with static voters (controller.quorum.voters).
// Each node's storage is formatted once with kafka-storage format (in the
// dist's tool JVM). WaitReady asks the nodes over the Kafka protocol: the
// quorum leader (DescribeQuorum on a CONTROLLER listener) is a running
// controller that every other running controller has fetched from since
// it started, and every running broker's Metadata lists exactly the
// running brokers (a killed broker is fenced after the session timeout).
// Bootstrap and ControllerBootstrap are the listener lists for
// --bootstrap-server and --bootstrap-controller. SharedKRaft (3
// controllers + 3 brokers) and SharedCombined (one node) give a package
// one cluster per version.
//
// Kafka's own tools of the version run by script name (Dist.Command:
// "kafka-topics", "kafka-configs", "kafka-metadata-quorum",
// "kafka-features", "kafka-reassign-partitions", "kafka-leader-election",
// …), in one long-lived JVM per version; Dist.ToolClass says which main
// class the version's bin/<script>.sh runs (tools moved from kafka.admin
// and kafka.tools to org.apache.kafka.tools over 3.x and 4.0).
//
// # A ZooKeeper→KRaft migration
//
// StartMigration starts Kafka 3.9.2 brokers in ZooKeeper mode
// (inter.broker.protocol.version=3.9); the Migration's methods are the
// steps of Kafka's "ZooKeeper to KRaft Migration" (docs/ops.html, 3.9):
// ProvisionControllers (kafka-storage format with /cluster/id's id,
// controllers with zookeeper.metadata.migration.enable=true and
// zookeeper.connect), EnableMigration (brokers restarted with the
// migration enabled, controller.quorum.voters and
// controller.listener.names; it waits for the controller's "Completed
// migration of metadata" and its DUAL_WRITE state), RollToKRaft or
// RollBrokerToKRaft (brokers restarted with process.roles=broker,
// node.id = broker.id, no ZooKeeper), Finalize (controllers restarted
// without the migration and without zookeeper.connect), or Abandon (the
// revert minus removing /migration). The controllers reach ZooKeeper
// through a zktest.Proxy: StallSync black-holes it, so that /migration's
// kraft_metadata_offset freezes while KRaft's log goes on; ResumeSync
// lets it through again. MigrateTo takes the steps up to a phase;
// SharedMigration gives a package one migration, which its tests take
// forward in order (Heal brings back what a test stopped, killed or
// stalled).
//
// A whole migration, zk to finalized, takes about 35-45 s on this 2-core
// machine (TestMigration, with a stuck sync and a controller restart
// besides, 47-57 s; TestMigrationAbandon 45-56 s). What keeps it short:
// one controller (a quorum of 3 is three more JVM starts), restarts of
// all brokers at once (Rolling: false; rolling ones cost one start and
// one registration each), 6 s sessions (a killed broker's registration,
// a fenced KRaft broker), 384m/256m heaps, and the class archives; most
// of the time is JVM starts and clean stops.
//
// # What ZooKeeper shows at each phase (Kafka 3.9.2)
//
// testdata/migration-3.9.2/<phase>.json are transcripts of a real run
// (TestMigration and TestMigrationAbandon with -update): every znode of the
// chroot with its data and stat, what changed since the previous phase,
// the processes and the quorum. What they show:
//
//   - zk: /controller is ephemeral, owned by the controller broker's
//     session (the same as its /brokers/ids/N), and holds
//     {"version":2,"brokerid":N,"timestamp":"…","kraftControllerEpoch":-1}:
//     3.9 writes kraftControllerEpoch -1 even in plain ZooKeeper mode.
//     /controller_epoch is a plain number. No /migration. /brokers/ids/1..3
//     are ephemeral (version 5 JSON with "features":{}). Topics carry a
//     topic_id; one written by 2.8's kafka-topics --zookeeper gets its
//     topic_id from the 3.9 controller (its znode at data version 1).
//   - controllers: the KRaft controller, once active, creates /migration
//     (persistent) with every field -1: {"version":0,
//     "kraft_metadata_offset":-1,"kraft_controller_id":-1,
//     "kraft_metadata_epoch":-1,"kraft_controller_epoch":-1}, and waits for
//     the brokers. /controller is still the ZooKeeper-mode broker's.
//   - hybrid (every broker restarted with the migration enabled, the
//     metadata migrated): /controller is deleted and created again as a
//     PERSISTENT znode (ephemeralOwner 0) by the KRaft controller:
//     brokerid is its node id (3000) and kraftControllerEpoch its KRaft
//     leader epoch (1). /controller_epoch went up by one for the claim
//     (and by one per ZooKeeper-mode election before it, as brokers
//     restarted). /migration names the controller (kraft_controller_id,
//     kraft_controller_epoch) and the KRaft offset written to ZooKeeper
//     last (kraft_metadata_offset, kraft_metadata_epoch); its data version
//     goes up with every dual write. The ZooKeeper-mode brokers register
//     again, new sessions, the same JSON. Topics created now are written
//     to ZooKeeper by the KRaft controller, with topic_id; the partition
//     states it writes carry its KRaft epoch as "controller_epoch".
//   - rolling-1: a broker restarted in KRaft mode leaves /brokers/ids: KRaft
//     brokers never register in ZooKeeper.
//   - dual-write: /brokers/ids has no child; /controller and /migration as
//     in hybrid, /migration still moving; topics still written.
//   - stuck-sync (the controller's ZooKeeper connection black-holed):
//     /migration and everything else frozen while the KRaft log end offset
//     moves on (a topic created, a broker killed: leaders and ISRs moved).
//   - resumed: the controller reaches ZooKeeper again (a new session).
//     3.9.2 does not retry a delta whose ZooKeeper writes failed (its
//     KRaftMigrationDriver logs "Will retry" and goes on with the next
//     delta), and three outcomes were seen: the sync goes on and the
//     stall's changes reach ZooKeeper; the sync goes on, /migration's
//     offset catches up, but a topic created during the stall is missing
//     from ZooKeeper (the committed transcript); or the sync stays stuck
//     for good: a /migration write applied but its reply lost, the
//     controller's idea of the znode's version is stale and each later
//     write fails ("BadVersion for /migration" in its log), /migration
//     frozen while ZooKeeper is reachable. A new active controller mends
//     each.
//   - reconciled (the controller restarted, still migrating): the new
//     active controller claims /controller again (deleted and created:
//     new czxid, kraftControllerEpoch +1, /controller_epoch +1) and
//     writes the whole KRaft image to ZooKeeper (SYNC_KRAFT_TO_ZK): what
//     the stall lost is there again.
//   - finalized: nothing writes ZooKeeper any more; /controller (persistent,
//     the last KRaft claim), /controller_epoch and /migration stay as they
//     were, although the KRaft epoch moves on.
//   - abandoned (reverted from hybrid without removing /migration):
//     /controller is a broker's ephemeral znode again (kraftControllerEpoch
//     -1, /controller_epoch +1) while /migration still names controller
//     3000 and its last offset: the hazard a later migration trips on.
//
// By hand (see CONTRIBUTING.md): go run ./internal/testkit/kafkatest/kafka-cluster
// (--kraft, --combined, --migration).
package kafkatest
