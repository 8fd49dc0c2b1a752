// Package sandbox runs simulated Kafka brokers and a ZooKeeper-mode
// controller against a real ZooKeeper, without Kafka and without Java, so
// that anyone can watch partitions go NonExistent → New → Online and
// leaders and ISRs move when brokers fail.
//
// The sandbox is a ZooKeeper client like any other and makes exactly the
// ZooKeeper writes Kafka's brokers and controller make (spec
// docs/spec/kafka-zk.md §1.2–1.5, §4, §5): the same znodes, the same
// JSON values (through the cluster package's encoders) and the same
// version semantics. Section numbers in comments refer to that spec. A test in
// internal/testkit/fidelity runs one scenario on the sandbox and on a real Kafka 3.9
// and compares the two trees; docs/sandbox-fidelity.md lists what differs.
//
// # What is emulated
//
// Kafka 3.x in ZooKeeper mode with a modern inter.broker.protocol (a
// consistent cluster of 3.4–3.9 brokers at IBP ≥ 3.3: topic ids (≥ 2.8),
// AlterPartition (≥ 2.7-IV2), leader recovery state (≥ 3.2), /feature v2
// (≥ 3.3), /controller v2 (3.4+)):
//
//   - Each broker has its own ZooKeeper session (a chroot-aware zkwatch
//     connection). At startup it creates the persistent paths of §1.2 (every
//     broker does, as Kafka's do; NODEEXISTS is ignored) and /cluster/id
//     ({"version":"1","id":…}; a racing creator loses with NODEEXISTS and
//     re-reads), then registers
//     /brokers/ids/<id> as Kafka does: one multi of an empty EPHEMERAL
//     create and a setData with version 0, so the znode is born with
//     dataVersion 1; its czxid is the broker epoch. The JSON is version 5:
//     endpoint PLAINTEXT://localhost:<9092+id>, the rack, jmx_port -1, the
//     timestamp as a string, "features":{}. Broker ids are 1..N; racks
//     "rack-a", "rack-b", … are assigned round-robin.
//   - Every broker runs a controller module (KafkaController) with one
//     event goroutine fed by an unbounded queue (ControllerEventManager);
//     ZooKeeper watch callbacks and in-process requests only enqueue
//     events. Reads set a watch exactly when a handler is registered for
//     the path, as Kafka's ZooKeeperClient does. Every broker watches
//     /controller and runs the election when it is deleted: one multi
//     creating the ephemeral /controller (JSON v2, kraftControllerEpoch
//     -1) and bumping /controller_epoch with a version check; the first
//     controller has epoch 1. Every controller write is a multi behind
//     check(/controller_epoch, epochZkVersion); a failed check makes the
//     controller resign.
//   - Failover (§4.2) follows Kafka's order: /feature set up
//     ({"version":2,"status":1,"features":{}}), handlers registered,
//     leftover log-dir and ISR notifications deleted, context rebuilt from
//     ZooKeeper (topics without a topic_id get one, fenced setData),
//     deletions resumed, replica then partition state machine startup
//     (offline replicas removed from ISRs, leaders elected for offline
//     and new partitions), pending preferred elections.
//   - Explicit partition and replica state machines with Kafka's states
//     and valid previous states (§4.3, §4.4). An invalid transition is
//     logged with Kafka's wording and skipped, never applied.
//   - Topic creation (§4.6, §5.1) from the /brokers/topics child watch and
//     add-partitions from a topic's data watch (§5.2): initial leader =
//     first live replica, ISR = live replicas in assignment order, leader
//     epoch 0; partitions whose replicas are all down get no znodes until
//     one registers.
//   - Broker failure, bounce and return (§4.7, §5.3, §5.4) in Kafka's order
//     (OfflinePartition, Offline election, OfflineReplica remove-from-ISR);
//     the ISR is never emptied; replicas of several brokers going offline
//     in one event (brokers lost together, a failover, a deletion) leave
//     the ISRs broker by broker in Scala 2.13's HashMap order of the ids
//     (5, 1, 6, 2, 3, 4 for 1..6), which decides the member an ISR keeps
//     last, as on a real Kafka 3.9; unclean election only when the topic's
//     unclean.leader.election.enable is true (then
//     "leader_recovery_state":1).
//   - ISR expansion through AlterPartition (IBP ≥ 2.7-IV2, §4.9): a
//     follower outside the ISR keeps fetching from its leader (an
//     in-process message re-sent every 100 ms until the leader reports it
//     in sync, so a restarted leader sees it again); after a catch-up delay
//     the leader (a sandbox broker) asks the controller, an in-process call
//     standing for the RPC, with its leader epoch and partition epoch; the
//     controller validates it (stale broker epoch, fenced leader epoch,
//     stale partition epoch, ineligible replica, recovery state rules) and
//     writes the state znode with a conditional setData on that zkVersion,
//     leader epoch kept, controller_epoch = current. Hence no
//     isr_change_notification nodes are written; the controller still
//     watches /isr_change_notification and handles and deletes children
//     that someone else writes. A leader adds one follower per
//     AlterPartition, in the order of Kafka's ISR set: appended up to four
//     members, in Scala's hash order from five on ([1,2,4,5] plus 3 is
//     [5,1,2,3,4], as on a real Kafka 3.9).
//   - Preferred leader election (§4.11) on request (ElectPreferred, as the
//     Admin API), from /admin/preferred_replica_election (unknown partitions
//     and topics being deleted skipped, the znode deleted afterwards, also
//     when its text is not JSON, which Kafka takes for no partitions), and
//     the automatic
//     rebalance, on by default as in Kafka (auto.leader.rebalance.enable):
//     every Config.LeaderImbalanceCheckInterval (300 s by default; the first
//     check 5 s after a controller takes over), a broker whose share of the
//     partitions it prefers but does not lead is above 10 % gets back those
//     whose preferred replica is live and in the ISR.
//   - Config change notifications (§1.6, §5.7): every broker runs Kafka's
//     ZkConfigManager, a child watch on /config/changes that applies each
//     notification numbered above the last one applied (all of them at
//     startup, after bootstrapping every topic config), reading the
//     entity's config znode and logging Kafka's "Processing override for
//     entityPath: …", and deletes notifications older than 15 minutes.
//     Topic configs become the broker's log config (AppliedTopicConfig); a
//     topic whose unclean.leader.election.enable is true makes the
//     controller run the Offline election for the topic's New and Offline
//     partitions at once (TopicUncleanLeaderElectionEnable, §4.5).
//   - Partition reassignment (§4.13) from /admin/reassign_partitions, as
//     KafkaController.onPartitionReassignment carries it out (reassign.go):
//     the topic znode with RS = TRS ++ (ORS − TRS) and its adding and
//     removing replicas, a leader epoch bump, the new replicas started
//     (NewReplica); once the ISR holds the target, a Reassign election if
//     the leader is not in it (else another epoch bump), the removed
//     replicas taken out of the ISR and deleted, the topic znode with the
//     target, and the partition dropped from the request (the znode deleted
//     after the last). Unknown partitions and those of a topic being
//     deleted are dropped from the request. Reassignments resume at
//     failover (the request first, then those found in topic znodes) and
//     when a target broker starts; a topic being reassigned waits to be
//     deleted.
//   - Partition sizes and copies (replication.go): a replica that a
//     reassignment adds copies its partition (DemoTopic.PartitionSize,
//     Config.PartitionSize) from the leader before the leader adds it to
//     the ISR, at Config.ReplicationRate per receiving broker shared by its
//     copies, and within Kafka's replication throttles when the topic's
//     leader/follower.replication.throttled.replicas name it and the
//     brokers have leader/follower.replication.throttled.rate (read from
//     ZooKeeper at most once a second while copies run). Cluster.Copies
//     and "status" show them.
//   - Partition sizes grow (sizes.go): from its base size, a partition
//     grows at its produce rate (DemoTopic.ProduceRate, spread over a
//     demo topic's partitions with a skew drawn from Config.Rand;
//     Config.ProduceRate for other topics), and a copy ends only once it
//     has caught up with that growth, so a copy throttled at T of a
//     partition growing at G takes its size / (T − G).
//     Cluster.Sizes is a clusterwatch.SizeSource: every 2 s (1 s while
//     hurried) each running broker answers for its log directories
//     (Config.LogDirs on volumes of Config.DiskSize, 100 GiB by default)
//     and the replicas it holds, as Kafka's DescribeLogDirs does: a
//     leader's and a follower's size is the partition's, a copying
//     replica's what it has copied; a killed broker is unreached.
//   - Topic deletion (§4.12, §5.6) from /admin/delete_topics, also while a
//     replica's broker is down (the topic stays marked and deletion resumes
//     when the broker returns): remove-from-ISR writes, then the topic
//     subtree deleted depth first, its config and its marker, all fenced.
//     A marker for an unknown topic is deleted.
//
// Demo topics (Config.DemoTopics) are created through ktopo's own creation
// pipeline, as "ktopo topics create" does (clusterops.PlanTopic with
// Kafka's rack-aware assignment and a random start on the brokers sorted
// by id, the ZooKeeper writer's CreateTopic writing the config and topic
// znodes in one multi, without topic id), so the controller's first write for each is the
// topic_id setData. With Config.Rand (ktopo --seed) the cluster id and
// the demo topics' placements and ids come from it, the ids written with
// the topic as a 2.8+ AdminZkClient does: one seed, the same cluster.
//
// # Batching and pace
//
// Kafka sends one fenced multi per znode, pipelined. The sandbox puts many
// ops behind one epoch check (at most 1000 ops and about 512 KiB per
// multi, well under ZooKeeper's 1 MiB frame limit), in Kafka's order
// (partitions, then each partitions/<p>, then each state); when such a
// multi fails (a NODEEXISTS race, a BADVERSION), its ops are retried one
// fenced multi each, as Kafka sends them. A watcher sees the same znodes
// in the same order, some of them in one ZooKeeper transaction.
//
// The pace (Config.Pace, SetPace) is a pause before each controller write
// batch; with a pace, new partitions are initialised one at a time so that
// they visibly come online one by one. The follower catch-up delay is
// 300 ms + 3 × pace unless set. Pace 0 runs as fast as possible.
//
// # Differences from Kafka
//
//   - No Admin API: no reassignment is started, altered or cancelled
//     through it (one found in a topic znode is resumed at failover). A
//     copy is a size and a rate, not log replication: leaders and
//     followers hold no data, and a throttle is a fair share of the
//     throttled broker's rate rather than Kafka's quota windows. Sizes
//     are numbers that grow at a configured rate, without segments or
//     retention; there is no Kafka protocol to read them through.
//     Followers never lag, so an in-sync follower's size is its
//     leader's.
//   - No controlled shutdown: Kill is a crash whose session has already
//     expired (KillTogether: several, their registrations gone in one
//     transaction, as sessions ZooKeeper expires in the same tick); Close
//     closes the sessions without any further write.
//   - Brokers keep no metadata cache: UpdateMetadata is not simulated, and
//     LeaderAndIsr/StopReplica are in-process messages. StopReplica
//     responses always succeed. Log directories never fail
//     (log_dir_event_* children are just deleted).
//   - Followers never lag: leaders do not shrink ISRs themselves; only the
//     controller removes dead replicas.
//   - A broker that crashes keeps its state until it is restarted; a
//     restart is a new incarnation with an empty replica manager.
//   - JSON member order: the sandbox writes znodes through ktopo's
//     encoders, Kafka most of them from Scala hash maps, so broker
//     registrations (Kafka puts rack before jmx_port), the controller's
//     topic znode rewrite and /feature list the same members in another
//     order. State znodes are byte for byte Kafka's.
//   - delete.topic.enable is always true. Dynamic broker configs
//     (/config/brokers, the cluster default of
//     unclean.leader.election.enable included) are logged, not applied;
//     the simulated produce is only a growing size, so
//     min.insync.replicas, which brokers apply, changes nothing a
//     ZooKeeper watcher sees.
//   - MoveController has no Kafka counterpart (Kafka operators delete
//     /controller by hand): the controller resigns like
//     triggerControllerMove and sits out the next election.
//   - Kafka's controller fails a whole preferred election request that names
//     a partition without leadership information; the sandbox reports that
//     partition as PREFERRED_LEADER_NOT_AVAILABLE and elects the others.
//   - Forgetting a topic whose znode was deleted by hand also forgets its
//     partition and replica states (Kafka keeps them as stale entries).
//
// # Use
//
//	c, err := sandbox.Start(ctx, sandbox.Config{Connect: "127.0.0.1:2181/sandbox", Brokers: 6, Racks: 3, DemoTopics: true})
//	if err != nil { … }
//	defer c.Close()
//	c.Kill(3)
//	sandbox.Control(c, os.Stdin, os.Stdout) // "kill 3", "restart 3", "status", …
//
// "ktopo sandbox" runs this on the embedded ZooKeeper (zkserver) or on
// --zookeeper.
package sandbox
