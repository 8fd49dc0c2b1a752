package kraftsandbox

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
)

// apiError is a refusal as Kafka answers it (ApiError): an error code and
// its message, put in the response's ErrorCode and ErrorMessage.
type apiError struct {
	code *kerr.Error
	msg  string
	// null: no message (ApiError.fromThrowable leaves out a message that
	// is the code's own).
	null bool
}

// refuse is a refusal with Kafka's message.
func refuse(code *kerr.Error, format string, args ...any) *apiError {
	return &apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

// refuseBare is a refusal with the code's own message (new
// ApiError(Errors.X)).
func refuseBare(code *kerr.Error) *apiError {
	return &apiError{code: code, msg: kafkaMessages[code.Code]}
}

// kafkaMessages are Errors.java's default messages of the codes the
// controller answers without one of its own.
var kafkaMessages = map[int16]string{
	kerr.PreferredLeaderNotAvailable.Code: "The preferred leader was not available.",
	kerr.EligibleLeadersNotAvailable.Code: "Eligible topic partition leaders are not available.",
	kerr.ElectionNotNeeded.Code:           "Leader election not needed for topic partition.",
}

// fields are a refusal's fields in a response (0, nil: none).
func (r *apiError) fields() (int16, *string) {
	if r == nil {
		return 0, nil
	}
	if r.null {
		return r.code.Code, nil
	}
	msg := r.msg
	return r.code.Code, &msg
}
