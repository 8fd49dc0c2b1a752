// Package cluster is ktopo's Kafka-on-ZooKeeper domain: the znode paths Kafka
// uses (paths.go), the JSON of every znode in every version Kafka wrote
// (codec*.go), Kafka's validation rules with their exact messages
// (validate.go, config.go, brokers.go) and a Model that turns ZooKeeper node
// events into typed changes and immutable snapshots (model.go, snapshot.go).
//
// The package does no I/O of its own and imports neither Bubble Tea nor
// zkwatch: callers feed it NodeEvents and read Snapshots. The behaviour it
// reproduces is described in docs/spec/kafka-zk.md; section numbers in
// comments ("§1.5") refer to that document.
package cluster
