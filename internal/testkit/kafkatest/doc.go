// Package kafkatest runs real Apache Kafka brokers in ZooKeeper mode for
// ktopo's tests, and for developers who want a real cluster to point ktopo at.
//
// The jars come from Maven Central through Maven (pom.xml beside this file
// names them): Kafka 3.9.2 (the last ZooKeeper-mode line) and 2.8.2 (the last
// kafka-topics.sh with --zookeeper), and ZooKeeper servers 3.5.9 and 3.9.5.
// They are copied once into CacheDir() (~/.cache/ktopo/<kafka|zookeeper>/<version>/libs);
// later runs use that copy and start no Maven at all.
//
// Start runs N brokers (ids 1..N, racks rack-a, rack-b, … round-robin) on
// loopback ports with small heaps and a short ZooKeeper session timeout, on
// a given connect string with a chroot, and returns when every broker is
// registered and a controller is elected. Brokers can be stopped cleanly
// (SIGTERM, Kafka's controlled shutdown), killed (SIGKILL) and started again.
// Each broker logs to one file in the cluster's directory; a failed test
// prints what the brokers logged while it ran (Attach).
//
// In tests, Shared gives a package one cluster per Kafka version, reused
// across its tests, on the package's ZooKeeper (package zktest); pass
// StopAll to zktest.Main. Without Java or Maven the tests skip with a
// message, except under CI=true, where that is a failure.
//
// By hand (see CONTRIBUTING.md): go run ./internal/testkit/kafkatest/kafka-cluster.
package kafkatest
