// Package fidelity holds the differential test of the sandbox against real
// Kafka: one scenario (create topics, kill a leader's broker and restart
// it, preferred elections through /admin/preferred_replica_election (one
// that moves leaders, one that cannot, one whose text is not JSON), lose
// the controller's broker together with another, delete a topic while a
// broker is down, bring it back) run on Kafka 3.9 (internal/testkit/kafkatest) and
// on the sandbox, on the same ZooKeeper in two chroots, the two trees
// compared znode by znode after every step. The differences that remain
// are listed, with their reasons, in the test and in
// docs/sandbox-fidelity.md.
package fidelity
