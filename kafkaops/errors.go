package kafkaops

import (
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/kafkawatch"
)

// Error is Kafka's refusal of one resource of a request: the error
// code's name, the broker's message (Kafka's description of the code when
// the broker sent none) and the exception class Kafka's Java clients
// raise for it. An authorization failure (Denied) says what the session
// may not do and which ACL Kafka checks for it.
type Error struct {
	Code int16
	// Name is the code's name (TOPIC_ALREADY_EXISTS); Message the broker's
	// message; Class the exception's simple name (TopicExistsException).
	Name, Message, Class string
	// What is the write refused, in words ("create topic orders").
	What string
	// ACL is, for an authorization failure, the ACL Kafka checks
	// ("CREATE on TOPIC orders, or CREATE on the CLUSTER").
	ACL string
}

// Denied reports an authorization failure: the session's principal lacks
// the ACL.
func (e *Error) Denied() bool {
	return (&kafkawatch.KafkaError{Code: e.Code}).Denied()
}

// Error is the broker's message and the code's name; an authorization
// failure reads "no access: …" with the ACL Kafka wants.
func (e *Error) Error() string {
	if e.Denied() {
		msg := cluster.NoAccessText + ": this session may not " + e.What + " (" + e.Name + ")"
		if e.ACL != "" {
			msg += "; Kafka wants the ACL " + e.ACL + " for its principal"
		}
		return msg
	}
	return e.Message + " (" + e.Name + ")"
}

// Unwrap gives the error as kafkawatch's KafkaError (code, name and
// message) and as cluster's KafkaError (class and message), so that
// cluster.ErrorClass and kafkawatch.IsDenied read it.
func (e *Error) Unwrap() []error {
	return []error{
		&kafkawatch.KafkaError{Code: e.Code, Name: e.Name, Message: e.Message},
		&cluster.KafkaError{Class: e.Class, Message: e.Message},
	}
}

// codeError is the *Error of a code and the broker's message (nil, or
// empty: Kafka's description of the code), nil for code 0. what and acl
// are the write and the ACL it needs, for a refusal.
func codeError(code int16, msg *string, what, acl string) error {
	if code == 0 {
		return nil
	}
	e := &Error{Code: code, What: what, ACL: acl}
	if ke := kerr.TypedErrorForCode(code); ke != nil && ke.Code == code {
		e.Name, e.Message = ke.Message, ke.Description
	} else {
		e.Name, e.Message = "error code "+strconv.Itoa(int(code)), "Unknown error code"
	}
	if msg != nil && strings.TrimSpace(*msg) != "" {
		e.Message = strings.TrimSpace(*msg)
	}
	e.Class = exceptionClass(e.Name)
	return e
}

// classNames are the exception classes whose names are not the code's
// name in camel case with "Exception".
var classNames = map[string]string{
	"TOPIC_ALREADY_EXISTS":           "TopicExistsException",
	"INVALID_CONFIG":                 "InvalidConfigurationException",
	"TOPIC_AUTHORIZATION_FAILED":     "TopicAuthorizationException",
	"CLUSTER_AUTHORIZATION_FAILED":   "ClusterAuthorizationException",
	"GROUP_AUTHORIZATION_FAILED":     "GroupAuthorizationException",
	"UNKNOWN_SERVER_ERROR":           "UnknownServerException",
	"REQUEST_TIMED_OUT":              "TimeoutException",
	"INVALID_TOPIC_EXCEPTION":        "InvalidTopicException",
	"NOT_CONTROLLER":                 "NotControllerException",
	"UNSUPPORTED_VERSION":            "UnsupportedVersionException",
	"INVALID_REPLICATION_FACTOR":     "InvalidReplicationFactorException",
	"INVALID_REPLICA_ASSIGNMENT":     "InvalidReplicaAssignmentException",
	"UNKNOWN_TOPIC_OR_PARTITION":     "UnknownTopicOrPartitionException",
	"REASSIGNMENT_IN_PROGRESS":       "ReassignmentInProgressException",
	"TOPIC_DELETION_DISABLED":        "TopicDeletionDisabledException",
	"UNKNOWN_TOPIC_ID":               "UnknownTopicIdException",
	"THROTTLING_QUOTA_EXCEEDED":      "ThrottlingQuotaExceededException",
	"PREFERRED_LEADER_NOT_AVAILABLE": "PreferredLeaderNotAvailableException",
}

// exceptionClass is the Java exception Kafka raises for an error code's
// name.
func exceptionClass(name string) string {
	if c, ok := classNames[name]; ok {
		return c
	}
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(name), "_") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	b.WriteString("Exception")
	return b.String()
}

// The ACLs Kafka checks for each write (its authorizer's operation on a
// resource).
func aclTopic(op, topic string) string { return op + " on TOPIC " + topic }

const aclAlterCluster = "ALTER on the CLUSTER"

func aclCreate(topic string) string {
	return aclTopic("CREATE", topic) + ", or CREATE on the CLUSTER"
}
