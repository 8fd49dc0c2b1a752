package cluster

import (
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestKafkaErrorForCode: an error code of a response is Kafka's error,
// found by errors.Is with franz-go's value of the code (also wrapped
// further), by its class, and read as the broker's message (or Kafka's
// description of the code) with the code's name.
func TestKafkaErrorForCode(t *testing.T) {
	msg := "  Topic 'orders' already exists. "
	err := fmt.Errorf("create: %w", KafkaErrorForCode(kerr.TopicAlreadyExists.Code, &msg))
	if got := err.Error(); got != "create: Topic 'orders' already exists. (TOPIC_ALREADY_EXISTS)" {
		t.Errorf("message: %q", got)
	}
	if !errors.Is(err, kerr.TopicAlreadyExists) || errors.Is(err, kerr.InvalidReplicaAssignment) {
		t.Error("errors.Is with the code's kerr value")
	}
	if ErrorClass(err) != ClassTopicExists || !errors.Is(err, &KafkaError{Class: ClassTopicExists}) {
		t.Errorf("class %q", ErrorClass(err))
	}
	if IsDenied(err) {
		t.Error("denied")
	}

	for _, c := range []struct {
		code          *kerr.Error
		class         string
		denied        bool
		msg, wantText string
	}{
		{kerr.InvalidReplicaAssignment, ClassInvalidReplicaAssignment, false, "",
			"Replica assignment is invalid. (INVALID_REPLICA_ASSIGNMENT)"},
		{kerr.InvalidConfig, ClassInvalidConfiguration, false, " ", "Configuration is invalid. (INVALID_CONFIG)"},
		{kerr.InvalidTopicException, ClassInvalidTopic, false, "", "The request attempted to perform an operation on an invalid topic. (INVALID_TOPIC_EXCEPTION)"},
		{kerr.NoReassignmentInProgress, "NoReassignmentInProgressException", false, "", kerr.NoReassignmentInProgress.Description + " (NO_REASSIGNMENT_IN_PROGRESS)"},
		{kerr.RequestTimedOut, "TimeoutException", false, "Timed out waiting for a node assignment.", "Timed out waiting for a node assignment. (REQUEST_TIMED_OUT)"},
		{kerr.TopicAuthorizationFailed, "TopicAuthorizationException", true, "", kerr.TopicAuthorizationFailed.Description + " (TOPIC_AUTHORIZATION_FAILED)"},
		{kerr.ClusterAuthorizationFailed, "ClusterAuthorizationException", true, "", "Cluster authorization failed. (CLUSTER_AUTHORIZATION_FAILED)"},
		{kerr.GroupAuthorizationFailed, "GroupAuthorizationException", true, "", kerr.GroupAuthorizationFailed.Description + " (GROUP_AUTHORIZATION_FAILED)"},
	} {
		m := c.msg
		ke := KafkaErrorForCode(c.code.Code, &m)
		if ke.Error() != c.wantText || ke.Class != c.class || ke.Denied() != c.denied || ke.Name() != c.code.Message || !errors.Is(ke, c.code) {
			t.Errorf("%s: %q class %q denied %v name %q", c.code.Message, ke.Error(), ke.Class, ke.Denied(), ke.Name())
		}
	}

	if KafkaErrorForCode(0, nil) != nil {
		t.Error("code 0 is no error")
	}
	// A code franz-go does not know is named by its number, never taken
	// for UNKNOWN_SERVER_ERROR's code.
	unknown := KafkaErrorForCode(-42, nil)
	if unknown.Error() != "Unknown error code (error code -42)" || unknown.Code.Code != -42 || unknown.Class != ClassUnknownServer ||
		errors.Is(unknown, kerr.UnknownServerError) {
		t.Errorf("unknown code: %q %#v", unknown.Error(), unknown)
	}
}

// TestKafkaErrorOfCheck: a refusal of ktopo's own checks (no code) reads
// as Kafka's message alone, as kafka-topics prints it, is found by its
// class, and is no error code and no authorization failure.
func TestKafkaErrorOfCheck(t *testing.T) {
	err := fmt.Errorf("plan: %w", kafkaErr(ClassInvalidReplicaAssignment, "Duplicate replica assignment found: [1, 1]"))
	if err.Error() != "plan: Duplicate replica assignment found: [1, 1]" {
		t.Errorf("message: %q", err.Error())
	}
	if ErrorClass(err) != ClassInvalidReplicaAssignment || !errors.Is(err, &KafkaError{Class: ClassInvalidReplicaAssignment}) {
		t.Error("class")
	}
	if errors.Is(err, &KafkaError{Class: ClassInvalidReplicaAssignment, Message: "another"}) {
		t.Error("a target's message must match when given")
	}
	var ke *KafkaError
	if !errors.As(err, &ke) || ke.Unwrap() != nil || ke.Name() != "" || IsDenied(err) || errors.Is(err, kerr.InvalidReplicaAssignment) {
		t.Errorf("a check's refusal carries no code: %#v", ke)
	}
}

// TestExceptionClass: the classes of the codes ktopo's callers test are
// Kafka's exceptions', those named otherwise than their code included.
func TestExceptionClass(t *testing.T) {
	for code, want := range map[*kerr.Error]string{
		kerr.TopicAlreadyExists:          ClassTopicExists,
		kerr.UnknownTopicOrPartition:     ClassUnknownTopicOrPartition,
		kerr.ReassignmentInProgress:      ClassReassignmentInProgress,
		kerr.PreferredLeaderNotAvailable: ClassPreferredLeaderNotAvailable,
		kerr.InvalidPartitions:           "InvalidPartitionsException",
		kerr.PolicyViolation:             "PolicyViolationException",
		kerr.ElectionNotNeeded:           "ElectionNotNeededException",
		kerr.EligibleLeadersNotAvailable: "EligibleLeadersNotAvailableException",
	} {
		if got := ExceptionClass(code); got != want {
			t.Errorf("%s: %q, want %q", code.Message, got, want)
		}
	}
}
