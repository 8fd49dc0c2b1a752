package kafkawatch

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// ControllerNodes asks the controllers at controllers (their CONTROLLER
// listeners) for the registered controllers, observers too (KIP-919:
// DescribeCluster with endpoint type controller, which only a
// controller answers; each controller registers itself with the active
// controller once it runs), one after the other until one answers. The
// host and port of each are those of the listener the question came in
// on, ascending by id.
func ControllerNodes(ctx context.Context, d Dial, controllers []string) ([]cluster.ControllerNode, error) {
	if len(controllers) == 0 {
		return nil, errors.New("no controller given")
	}
	var errs []error
	for _, addr := range controllers {
		nodes, err := askServer(ctx, d, addr, func(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) ([]cluster.ControllerNode, error) {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.EndpointType = 2 // controller
			raw, err := send(ctx, req)
			if err != nil {
				return nil, err
			}
			resp, ok := raw.(*kmsg.DescribeClusterResponse)
			if !ok {
				return nil, fmt.Errorf("unexpected response %T", raw)
			}
			if err := codeError(resp.ErrorCode, resp.ErrorMessage); err != nil {
				return nil, fmt.Errorf("DescribeCluster: %w", err)
			}
			out := []cluster.ControllerNode{}
			for _, b := range resp.Brokers {
				out = append(out, cluster.ControllerNode{ID: int(b.NodeID), Host: b.Host, Port: int(b.Port)})
			}
			slices.SortFunc(out, func(a, b cluster.ControllerNode) int { return a.ID - b.ID })
			return out, nil
		})
		if err == nil {
			return nodes, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// LeaderRequester sends a request only the metadata quorum's leader
// takes (AddRaftVoter, RemoveRaftVoter) to the controllers at Addrs, one
// after the other, until one answers other than NOT_LEADER_OR_FOLLOWER
// (what a controller that does not lead answers): Kafka's tools given
// --bootstrap-controller reach the leader the same way. It is a
// kafkaops.Requester.
type LeaderRequester struct {
	Dial  Dial
	Addrs []string
}

// Request sends req to the leader among r.Addrs.
func (r LeaderRequester) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	var last kmsg.Response
	var errs []error
	for _, addr := range r.Addrs {
		resp, err := askServer(ctx, r.Dial, addr, func(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (kmsg.Response, error) {
			return send(ctx, req)
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", addr, err))
			continue
		}
		last = resp
		if !notLeader(resp) {
			return resp, nil
		}
	}
	if last != nil {
		return last, nil
	}
	return nil, errors.Join(errs...)
}

// notLeader reports whether a voter change's answer is a controller's
// NOT_LEADER_OR_FOLLOWER.
func notLeader(resp kmsg.Response) bool {
	code := int16(0)
	switch r := resp.(type) {
	case *kmsg.AddRaftVoterResponse:
		code = r.ErrorCode
	case *kmsg.RemoveRaftVoterResponse:
		code = r.ErrorCode
	}
	return code == kerr.NotLeaderForPartition.Code
}
