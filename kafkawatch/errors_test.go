package kafkawatch

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// answer is a send that answers every request with resp.
func answer(resp kmsg.Response) func(context.Context, kmsg.Request) (kmsg.Response, error) {
	return func(context.Context, kmsg.Request) (kmsg.Response, error) { return resp, nil }
}

// TestPollErrorsAreKafkas: an error code in the answers a poll reads (the
// quorum, a topic's configs, a controller's cluster id) is Kafka's error:
// errors.Is finds franz-go's value of the code, cluster.IsDenied an
// authorization failure, and it reads as the broker's message (or the
// code's description) with the code's name.
func TestPollErrorsAreKafkas(t *testing.T) {
	ctx := context.Background()

	q := kmsg.NewPtrDescribeQuorumResponse()
	q.ErrorCode = kerr.ClusterAuthorizationFailed.Code
	_, err := askQuorum(ctx, answer(q))
	if !errors.Is(err, kerr.ClusterAuthorizationFailed) || !cluster.IsDenied(err) ||
		err.Error() != "Cluster authorization failed. (CLUSTER_AUTHORIZATION_FAILED)" {
		t.Errorf("quorum denied: %v", err)
	}
	q = kmsg.NewPtrDescribeQuorumResponse()
	qt := kmsg.NewDescribeQuorumResponseTopic()
	qp := kmsg.NewDescribeQuorumResponseTopicPartition()
	qp.ErrorCode, qp.ErrorMessage = kerr.NotLeaderForPartition.Code, str("The leader is not known yet.")
	qt.Partitions = append(qt.Partitions, qp)
	q.Topics = append(q.Topics, qt)
	_, err = askQuorum(ctx, answer(q))
	if !errors.Is(err, kerr.NotLeaderForPartition) || cluster.IsDenied(err) ||
		err.Error() != "The leader is not known yet. (NOT_LEADER_FOR_PARTITION)" {
		t.Errorf("quorum's partition: %v", err)
	}

	dc := kmsg.NewPtrDescribeClusterResponse()
	dc.ErrorCode = kerr.UnsupportedVersion.Code
	_, err = controllerClusterID(ctx, answer(dc))
	if !errors.Is(err, kerr.UnsupportedVersion) || err.Error() != "DescribeCluster: "+kerr.UnsupportedVersion.Description+" (UNSUPPORTED_VERSION)" {
		t.Errorf("cluster id: %v", err)
	}

	resp := kmsg.NewPtrDescribeConfigsResponse()
	for _, r := range []struct {
		name string
		code *kerr.Error
		msg  *string
	}{
		{"locked", kerr.TopicAuthorizationFailed, nil},
		{"bad", kerr.InvalidReplicaAssignment, str("Replica assignment is not what it was.")},
		{"fine", nil, nil},
	} {
		rr := kmsg.NewDescribeConfigsResponseResource()
		rr.ResourceType, rr.ResourceName, rr.ErrorMessage = kmsg.ConfigResourceTypeTopic, r.name, r.msg
		if r.code != nil {
			rr.ErrorCode = r.code.Code
		}
		resp.Resources = append(resp.Resources, rr)
	}
	var part configPart
	part.read(resp)
	locked, bad := part.configs["locked"].err, part.configs["bad"].err
	if !errors.Is(locked, kerr.TopicAuthorizationFailed) || !cluster.IsDenied(locked) {
		t.Errorf("a topic's configs denied: %v", locked)
	}
	if !errors.Is(bad, kerr.InvalidReplicaAssignment) || cluster.IsDenied(bad) ||
		cluster.ErrorClass(bad) != cluster.ClassInvalidReplicaAssignment || bad.Error() != "Replica assignment is not what it was. (INVALID_REPLICA_ASSIGNMENT)" {
		t.Errorf("a topic's configs refused: %v", bad)
	}
	if err := part.configs["fine"].err; err != nil {
		t.Errorf("a topic read: %v", err)
	}
}
