// Package cluster is ktopo's model of a Kafka cluster as ZooKeeper holds it:
// the znode paths Kafka uses (paths.go), the JSON of every znode in every
// version Kafka wrote (codec*.go) and of the files Kafka's tools read
// (reassign_json.go, election_file.go), Kafka's validation rules with their
// exact messages (validate.go, config.go, config_parse.go, brokers.go), and a
// Model that turns node events into typed changes and immutable snapshots
// (model.go, kinds.go, apply_*.go, reset.go, snapshot*.go).
//
// It also holds what can be read off a snapshot without changing anything:
// partition conditions (condition.go), the automatic rebalance's leader
// imbalance (balance.go), what the controller would do if brokers failed
// (whatif.go, brokerorder.go), the reassignments in progress and the
// throttles they leave behind (reassign_all.go), topic filters
// (topicfilter.go). What ktopo does to a cluster (plans and their writes)
// is package clusterops, which builds on this one.
//
// The package does no I/O of its own and imports neither Bubble Tea nor
// zkwatch: callers feed it NodeEvents and read Snapshots. The behaviour it
// reproduces is described in docs/spec/kafka-zk.md; section numbers in
// comments ("§1.5") refer to that document.
package cluster
