package kafkaops

import (
	"context"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/clusterops"
)

var _ clusterops.Unregisterer = (*Writer)(nil)

// UnregisterBroker sends UnregisterBroker (what kafka-cluster unregister
// --id sends): the controller removes the broker's registration, takes it
// out of every ISR and ELR and elects new leaders where it led. The
// request has no validateOnly: Validate sends nothing.
func (w *Writer) UnregisterBroker(ctx context.Context, broker int, m clusterops.Mode) (clusterops.Writes, error) {
	what := "unregister broker " + strconv.Itoa(broker)
	ws := writes(what, []string{"UnregisterBroker brokerId=" + strconv.Itoa(broker)})
	if m != clusterops.Apply {
		return ws, nil
	}
	req := kmsg.NewPtrUnregisterBrokerRequest()
	req.BrokerID = int32(broker)
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := send[*kmsg.UnregisterBrokerResponse](ctx, w.cl, req)
	if err != nil {
		return ws, err
	}
	return ws, codeError(resp.ErrorCode, resp.ErrorMessage, what, "ALTER on the CLUSTER")
}
