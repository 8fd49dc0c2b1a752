package kafkaops_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/kafkaops"
)

// answerer answers UnregisterBroker with code and message, and counts
// what it was sent.
type answerer struct {
	code int16
	msg  *string
	sent []int32
}

func (a *answerer) Request(_ context.Context, req kmsg.Request) (kmsg.Response, error) {
	r, ok := req.(*kmsg.UnregisterBrokerRequest)
	if !ok {
		return nil, errors.New("unexpected request")
	}
	a.sent = append(a.sent, r.BrokerID)
	resp := kmsg.NewPtrUnregisterBrokerResponse()
	resp.ErrorCode, resp.ErrorMessage = a.code, a.msg
	return resp, nil
}

// TestUnregisterBroker: the request is described without being sent
// (UnregisterBroker has no validateOnly: Validate sends nothing either),
// sent once with Apply, and Kafka's refusals read as its errors, an
// authorization failure as no access with the ACL.
func TestUnregisterBroker(t *testing.T) {
	ctx := context.Background()
	a := &answerer{}
	w := kafkaops.New(a, 0)
	for _, m := range []clusterops.Mode{clusterops.Describe, clusterops.Validate} {
		ws, err := w.UnregisterBroker(ctx, 4, m)
		if err != nil || !slices.Equal(ws.Lines(), []string{"UnregisterBroker brokerId=4"}) {
			t.Fatalf("mode %d: %v %q", m, err, ws.Lines())
		}
	}
	if len(a.sent) != 0 {
		t.Fatalf("sent %v before Apply", a.sent)
	}
	if _, err := w.UnregisterBroker(ctx, 4, clusterops.Apply); err != nil || !slices.Equal(a.sent, []int32{4}) {
		t.Fatalf("apply: %v, sent %v", err, a.sent)
	}
	msg := "Broker ID 9 is not currently registered"
	_, err := kafkaops.New(&answerer{code: kerr.BrokerIDNotRegistered.Code, msg: &msg}, 0).UnregisterBroker(ctx, 9, clusterops.Apply)
	if !errors.Is(err, kerr.BrokerIDNotRegistered) || err.Error() != msg+" (BROKER_ID_NOT_REGISTERED)" {
		t.Errorf("not registered: %v", err)
	}
	_, err = kafkaops.New(&answerer{code: kerr.ClusterAuthorizationFailed.Code}, 0).UnregisterBroker(ctx, 4, clusterops.Apply)
	if err == nil || err.Error() != "no access: this session may not unregister broker 4 (CLUSTER_AUTHORIZATION_FAILED); Kafka wants the ACL ALTER on the CLUSTER for its principal" {
		t.Errorf("no access: %v", err)
	}
}
