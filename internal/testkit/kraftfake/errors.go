package kraftfake

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/ktopo/ktopo/cluster"
)

// apiError is a refusal as the controller answers it: an error code and
// its message (nil: Kafka sends none, and its client shows the code's
// description).
type apiError struct {
	code int16
	msg  *string
}

func (e *apiError) Error() string {
	if e.msg != nil {
		return *e.msg
	}
	return kerr.ErrorForCode(e.code).Error()
}

// refuse is a refusal with Kafka's message.
func refuse(code *kerr.Error, msg string) *apiError { return &apiError{code: code.Code, msg: &msg} }

// refuseBare is a refusal Kafka sends without a message.
func refuseBare(code *kerr.Error) *apiError { return &apiError{code: code.Code} }

// codeOfClass maps the exceptions of ktopo's checks in Kafka's words to
// the error codes Kafka answers them with.
var codeOfClass = map[string]*kerr.Error{
	cluster.ClassInvalidReplicaAssignment: kerr.InvalidReplicaAssignment,
	cluster.ClassInvalidTopic:             kerr.InvalidTopicException,
	cluster.ClassInvalidConfiguration:     kerr.InvalidConfig,
	cluster.ClassConfig:                   kerr.InvalidConfig,
	cluster.ClassTopicExists:              kerr.TopicAlreadyExists,
	cluster.ClassUnknownTopicOrPartition:  kerr.UnknownTopicOrPartition,
}

// asRefusal is one of ktopo's checks' errors (a *cluster.KafkaError in
// Kafka's words) as the controller's answer; nil stays nil.
func asRefusal(err error) *apiError {
	if err == nil {
		return nil
	}
	var ke *cluster.KafkaError
	if errors.As(err, &ke) {
		if code, ok := codeOfClass[ke.Class]; ok {
			return refuse(code, ke.Message)
		}
	}
	return refuse(kerr.UnknownServerError, err.Error())
}

// codeMsg are a refusal's fields in a response (0, nil for none).
func codeMsg(e *apiError) (int16, *string) {
	if e == nil {
		return 0, nil
	}
	return e.code, e.msg
}
