package kraftsandbox

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestInactiveControllerRefusesWrites: a write sent to a controller that
// is not the quorum's leader is refused with NOT_CONTROLLER naming the
// active one (as TestRealKafkaInactiveController sees Kafka 4.4 answer);
// the active one writes; a read still answers.
func TestInactiveControllerRefusesWrites(t *testing.T) {
	c := startTest(t, Config{Brokers: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	send := func(id int32, req kmsg.Request) kmsg.Response {
		t.Helper()
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.controller(id).n.addr()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		resp, err := cl.Broker(-2147483648).Request(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	create := func() *kmsg.CreateTopicsRequest {
		req := kmsg.NewPtrCreateTopicsRequest()
		ct := kmsg.NewCreateTopicsRequestTopic()
		ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "inactive", 1, 1
		req.Topics = append(req.Topics, ct)
		return req
	}
	r := send(3001, create()).(*kmsg.CreateTopicsResponse)
	if tp := r.Topics[0]; tp.ErrorCode != kerr.NotController.Code || tp.ErrorMessage == nil || *tp.ErrorMessage != "The active controller appears to be node 3000." {
		t.Errorf("CreateTopics to 3001: %d %v", tp.ErrorCode, tp.ErrorMessage)
	}
	if r := send(3000, create()).(*kmsg.CreateTopicsResponse); r.Topics[0].ErrorCode != 0 {
		t.Errorf("CreateTopics to the active controller: %d", r.Topics[0].ErrorCode)
	}
	dc := kmsg.NewPtrDescribeClusterRequest()
	dc.EndpointType = 2
	if r := send(3002, dc).(*kmsg.DescribeClusterResponse); r.ErrorCode != 0 || r.ControllerID != 3000 {
		t.Errorf("DescribeCluster of 3002: %d, controller %d", r.ErrorCode, r.ControllerID)
	}
}
