package cluster

import (
	"errors"
	"strconv"
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
	// ClassJsonMapping is Jackson's JsonMappingException, which Kafka's
	// tools pass on for a JSON file of the wrong shape.
	ClassJsonMapping = "JsonMappingException"
)

// KafkaError is an error Kafka would raise, with its exception class (simple
// name, e.g. "TopicExistsException") and its exact message. Error returns the
// message alone, which is what kafka-topics prints after
// "Error while executing topic command : ".
type KafkaError struct {
	Class   string
	Message string
}

// Error returns Kafka's message.
func (e *KafkaError) Error() string { return e.Message }

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

// DecodeError reports a znode whose data could not be decoded. Raw holds the
// bytes as read so that a screen can show them next to the reason.
type DecodeError struct {
	// What names the znode kind ("broker registration", "partition state" …).
	What string
	// Reason is a short human-readable cause, e.g. `missing field "leader"`.
	Reason string
	// Offset is the byte offset in Raw where a JSON syntax error was found, or -1.
	Offset int
	// Raw is the data that failed to decode.
	Raw []byte
}

// Error renders "bad <what>: <reason>" (plus the offset of a syntax error).
func (e *DecodeError) Error() string {
	s := "bad " + e.What + ": " + e.Reason
	if e.Offset >= 0 {
		s += " (at byte " + strconv.Itoa(e.Offset) + ")"
	}
	return s
}

// wrapDecode turns a scanner/field error into a *DecodeError for what.
func wrapDecode(what string, raw []byte, err error) error {
	if err == nil {
		return nil
	}
	var se *syntaxError
	if errors.As(err, &se) {
		return &DecodeError{What: what, Reason: se.msg, Offset: se.off, Raw: raw}
	}
	return &DecodeError{What: what, Reason: err.Error(), Offset: -1, Raw: raw}
}
