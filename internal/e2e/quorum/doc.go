// Package quorum holds the end-to-end scenarios of ktopo quorum
// add-controller and remove-controller (KIP-853): the ktopo binary,
// built once, run as an operator runs it against the simulated KRaft
// cluster (kraftsandbox) and real Kafka (internal/testkit/kafkatest),
// each change checked with Kafka's own kafka-metadata-quorum on a real
// cluster, and the same refusals asked of both. Its tests are apart from
// package cmd's, which already fill CI's time.
package quorum
