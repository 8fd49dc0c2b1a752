package kafkaops

import (
	"github.com/ktopo/ktopo/cluster"
)

// Error is Kafka's refusal of one resource of a write: Kafka's error (Err:
// the code, the broker's message, the exception class), with the write
// it refused and, for an authorization failure, the ACL Kafka checks for
// it. It unwraps to Err, so errors.Is(err, kerr.X) tests for a code,
// cluster.ErrorClass for a class and cluster.IsDenied for a missing ACL.
type Error struct {
	Err *cluster.KafkaError
	// What is the write refused, in words ("create topic orders").
	What string
	// ACL is, for an authorization failure, the ACL Kafka checks
	// ("CREATE on TOPIC orders, or CREATE on the CLUSTER").
	ACL string
}

// Error is the broker's message and the code's name; an authorization
// failure reads "no access: …" with the ACL Kafka wants.
func (e *Error) Error() string {
	if e.Err.Denied() {
		msg := cluster.NoAccessText + ": this session may not " + e.What + " (" + e.Err.Name() + ")"
		if e.ACL != "" {
			msg += "; Kafka wants the ACL " + e.ACL + " for its principal"
		}
		return msg
	}
	return e.Err.Error()
}

// Unwrap gives Kafka's error.
func (e *Error) Unwrap() error { return e.Err }

// codeError is the *Error of a code and the broker's message (nil, or
// empty: Kafka's description of the code), nil for code 0. what and acl
// are the write and the ACL it needs, for a refusal.
func codeError(code int16, msg *string, what, acl string) error {
	if ke := cluster.KafkaErrorForCode(code, msg); ke != nil {
		return &Error{Err: ke, What: what, ACL: acl}
	}
	return nil
}

// The ACLs Kafka checks for each write (its authorizer's operation on a
// resource).
func aclTopic(op, topic string) string { return op + " on TOPIC " + topic }

const aclAlterCluster = "ALTER on the CLUSTER"

func aclCreate(topic string) string {
	return aclTopic("CREATE", topic) + ", or CREATE on the CLUSTER"
}
