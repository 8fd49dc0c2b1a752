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
package testvectors

import _ "embed"

// AssignmentCases is assignment-cases.json: replica assignment, rack
// alternation, manual assignment, topic creation and topic name cases.
//
//go:embed assignment-cases.json
var AssignmentCases []byte
