package cluster

import (
	"errors"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Kafka exception class names carried by KafkaError.Class.
const (
	ClassInvalidTopic                  = "InvalidTopicException"
	ClassTopicExists                   = "TopicExistsException"
	ClassInvalidReplicaAssignment      = "InvalidReplicaAssignmentException"
	ClassInvalidConfiguration          = "InvalidConfigurationException"
	ClassConfig                        = "ConfigException"
	ClassAdminOperation                = "AdminOperationException"
	ClassUnknownTopicOrPartition       = "UnknownTopicOrPartitionException"
	ClassTopicAlreadyMarkedForDeletion = "TopicAlreadyMarkedForDeletionException"
	ClassIllegalArgument               = "IllegalArgumentException"
	ClassKafka                         = "KafkaException"
	ClassReassignmentInProgress        = "ReassignmentInProgressException"
	ClassPreferredLeaderNotAvailable   = "PreferredLeaderNotAvailableException"
	ClassUnknownServer                 = "UnknownServerException"
	// ClassJsonMapping is Jackson's JsonMappingException, which Kafka's
	// tools pass on for a JSON file of the wrong shape.
	ClassJsonMapping = "JsonMappingException"
)

// KafkaError is Kafka saying no, in its own words: the exception class
// Kafka's Java code raises (its simple name, TopicExistsException), the
// exact message, and the error code when a broker or controller answered
// with one. It is the one type of both kinds of refusal:
//
//   - ktopo's own checks, made before anything is sent as Kafka's tools
//     make them, have no Code; Error is the message alone, which is what
//     kafka-topics prints after "Error while executing topic command : ".
//   - An error code in a Kafka response (KafkaErrorForCode) has Code,
//     franz-go's *kerr.Error for it; Error is the broker's message (or
//     Kafka's description of the code) and the code's name:
//     "Topic 'orders' already exists. (TOPIC_ALREADY_EXISTS)".
//
// To test for an error code, use errors.Is with franz-go's value of it
// (the error unwraps to its Code): errors.Is(err, kerr.TopicAlreadyExists).
// To test for a class, whichever of the two raised it, use
// ErrorClass(err) == ClassTopicExists, or
// errors.Is(err, &KafkaError{Class: ClassTopicExists}). IsDenied tells an
// authorization failure (the session lacks an ACL).
type KafkaError struct {
	// Code is the error code Kafka answered with (its Code, its name as
	// Message, its Description); nil for a refusal of ktopo's checks.
	Code *kerr.Error
	// Class is the exception's simple name; Message Kafka's message.
	Class, Message string
}

// Error returns Kafka's message, followed by the code's name when Kafka
// answered with a code.
func (e *KafkaError) Error() string {
	if e.Code == nil {
		return e.Message
	}
	return e.Message + " (" + e.Code.Message + ")"
}

// Unwrap gives the error code (nil for none), so that
// errors.Is(err, kerr.X) works.
func (e *KafkaError) Unwrap() error {
	if e.Code == nil {
		return nil
	}
	return e.Code
}

// Is reports whether target is a *KafkaError of the same class, so that
// errors.Is(err, &KafkaError{Class: ClassTopicExists}) works. An empty target
// message matches any message; a non-empty one must be equal.
func (e *KafkaError) Is(target error) bool {
	t, ok := target.(*KafkaError)
	if !ok {
		return false
	}
	return t.Class == e.Class && (t.Message == "" || t.Message == e.Message)
}

// Name is the error code's name (TOPIC_AUTHORIZATION_FAILED), "" without
// a code.
func (e *KafkaError) Name() string {
	if e.Code == nil {
		return ""
	}
	return e.Code.Message
}

// Denied reports an authorization failure: the session may not see or do
// this (Kafka's ACLs).
func (e *KafkaError) Denied() bool {
	if e.Code == nil {
		return false
	}
	switch e.Code.Code {
	case kerr.TopicAuthorizationFailed.Code, kerr.GroupAuthorizationFailed.Code, kerr.ClusterAuthorizationFailed.Code,
		kerr.TransactionalIDAuthorizationFailed.Code, kerr.DelegationTokenAuthorizationFailed.Code:
		return true
	}
	return false
}

// IsDenied reports whether err is Kafka refusing for want of an ACL.
func IsDenied(err error) bool {
	var ke *KafkaError
	return errors.As(err, &ke) && ke.Denied()
}

// KafkaErrorForCode is the refusal of an error code in a Kafka response
// and the message that came with it (nil or blank: Kafka's description
// of the code); nil for code 0, no error. An error code franz-go does not
// know is named "error code <n>" (UnknownServerException, as Kafka's
// clients take it).
func KafkaErrorForCode(code int16, message *string) *KafkaError {
	if code == 0 {
		return nil
	}
	e := &KafkaError{Code: kerr.TypedErrorForCode(code)}
	if e.Code == nil || e.Code.Code != code { // franz-go answers an unknown code with UNKNOWN_SERVER_ERROR
		e.Code = &kerr.Error{Message: "error code " + strconv.Itoa(int(code)), Code: code, Description: "Unknown error code"}
		e.Class = ClassUnknownServer
	} else {
		e.Class = ExceptionClass(e.Code)
	}
	e.Message = e.Code.Description
	if message != nil && strings.TrimSpace(*message) != "" {
		e.Message = strings.TrimSpace(*message)
	}
	return e
}

// exceptionClasses are the exception classes whose names are not their
// code's name in camel case with "Exception".
var exceptionClasses = map[int16]string{
	kerr.TopicAlreadyExists.Code:          ClassTopicExists,
	kerr.InvalidConfig.Code:               ClassInvalidConfiguration,
	kerr.TopicAuthorizationFailed.Code:    "TopicAuthorizationException",
	kerr.ClusterAuthorizationFailed.Code:  "ClusterAuthorizationException",
	kerr.GroupAuthorizationFailed.Code:    "GroupAuthorizationException",
	kerr.UnknownServerError.Code:          ClassUnknownServer,
	kerr.RequestTimedOut.Code:             "TimeoutException",
	kerr.InvalidTopicException.Code:       ClassInvalidTopic,
	kerr.NotController.Code:               "NotControllerException",
	kerr.UnsupportedVersion.Code:          "UnsupportedVersionException",
	kerr.InvalidReplicationFactor.Code:    "InvalidReplicationFactorException",
	kerr.InvalidReplicaAssignment.Code:    ClassInvalidReplicaAssignment,
	kerr.UnknownTopicOrPartition.Code:     ClassUnknownTopicOrPartition,
	kerr.ReassignmentInProgress.Code:      ClassReassignmentInProgress,
	kerr.TopicDeletionDisabled.Code:       "TopicDeletionDisabledException",
	kerr.UnknownTopicID.Code:              "UnknownTopicIdException",
	kerr.ThrottlingQuotaExceeded.Code:     "ThrottlingQuotaExceededException",
	kerr.PreferredLeaderNotAvailable.Code: ClassPreferredLeaderNotAvailable,
}

// ExceptionClass is the Java exception Kafka's clients raise for an error
// code (TOPIC_ALREADY_EXISTS: TopicExistsException).
func ExceptionClass(code *kerr.Error) string {
	if c, ok := exceptionClasses[code.Code]; ok {
		return c
	}
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(code.Message), "_") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	b.WriteString("Exception")
	return b.String()
}

func kafkaErr(class, msg string) *KafkaError { return &KafkaError{Class: class, Message: msg} }

// ErrorClass returns the Kafka exception class of err (searching its chain),
// or "" when err carries none.
func ErrorClass(err error) string {
	var ke *KafkaError
	if errors.As(err, &ke) {
		return ke.Class
	}
	return ""
}
