package kraftfake

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/ktopo/ktopo/cluster"
)

// A refusal is Kafka's error as the controller answers it: an error code
// and its message (cluster.KafkaErrorForCode, the mapping the writer reads
// responses with).

// refuse is a refusal with Kafka's message.
func refuse(code *kerr.Error, msg string) *cluster.KafkaError {
	return cluster.KafkaErrorForCode(code.Code, &msg)
}

// refuseBare is a refusal whose message is the code's own (Kafka's
// description of it).
func refuseBare(code *kerr.Error) *cluster.KafkaError {
	return cluster.KafkaErrorForCode(code.Code, nil)
}

// checkCodes are the error codes the controller answers the exceptions
// of ktopo's checks with (ApiError.fromThrowable: the code whose
// exception it is).
var checkCodes = []*kerr.Error{kerr.InvalidReplicaAssignment, kerr.InvalidTopicException, kerr.InvalidConfig,
	kerr.TopicAlreadyExists, kerr.UnknownTopicOrPartition}

// asRefusal is one of ktopo's checks' errors (a *cluster.KafkaError in
// Kafka's words, without a code) as the controller's answer; nil stays
// nil. A ConfigException (a config's value) is INVALID_CONFIG, as
// ConfigurationControlManager answers it; an exception of no code the
// fake knows is UNKNOWN_SERVER_ERROR.
func asRefusal(err error) *cluster.KafkaError {
	if err == nil {
		return nil
	}
	var ke *cluster.KafkaError
	if errors.As(err, &ke) {
		if ke.Class == cluster.ClassConfig {
			return refuse(kerr.InvalidConfig, ke.Message)
		}
		for _, code := range checkCodes {
			if cluster.ExceptionClass(code) == ke.Class {
				return refuse(code, ke.Message)
			}
		}
	}
	return refuse(kerr.UnknownServerError, err.Error())
}

// codeMsg are a refusal's fields in a response (0, nil for none).
func codeMsg(e *cluster.KafkaError) (int16, *string) {
	if e == nil {
		return 0, nil
	}
	return e.Code.Code, &e.Message
}
