// Package testvectors holds test vectors taken from Apache Kafka's own test
// suites, embedded so that every package's tests can read them from a clone
// with nothing beside it.
//
// assignment-cases.json comes from Kafka's tests of replica assignment and
// topic validation (AdminRackAwareTest, ReplicaAssignmentTest,
// AdminZkClientTest, TopicCommandTest, TopicTest, AssignmentUtilsTest…), read
// at the tags its "kafkaTags" member names (2.5.0 and 3.9.0-rc3). Its
// "description" member gives the semantics; each case names its source test.
// The values are restated as data, not copied code.
//
// striped-placer-cases.json holds the KRaft controller's placements
// (StripedReplicaPlacer): cases of Kafka's own StripedReplicaPlacerTest
// (with its MockRandom), and placements produced by running the placer
// of Kafka 4.4.0's and 3.9.2's kafka-metadata jars with a seeded
// java.util.Random on brokers listed in the file.
package testvectors

import _ "embed"

// AssignmentCases is assignment-cases.json: replica assignment, rack
// alternation, manual assignment, topic creation and topic name cases.
//
//go:embed assignment-cases.json
var AssignmentCases []byte

// StripedPlacerCases is striped-placer-cases.json: the KRaft controller's
// replica placements for seeds and broker lists, and its errors.
//
//go:embed striped-placer-cases.json
var StripedPlacerCases []byte
