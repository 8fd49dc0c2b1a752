package kafkaops_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/kafkaops"
)

// writeFunc is one write through w, planned on s.
type writeFunc func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) error

func create(topic string, a assign.Assignment, config map[string]string) writeFunc {
	return func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) error {
		_, err := w.CreateTopic(ctx, &clusterops.TopicPlan{Name: topic, Config: config, Result: assign.Result{Assignment: a}}, clusterops.Apply)
		return err
	}
}

func addPartitions(topic string, existing, n int, a assign.Assignment) writeFunc {
	return func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) error {
		_, err := w.AddPartitions(ctx, []*clusterops.AddPartitionsPlan{{Topic: topic, Existing: existing, Partitions: n, Result: assign.Result{Assignment: a}}}, clusterops.Apply)
		return err
	}
}

func alterConfigs(as ...*clusterops.ConfigAlteration) writeFunc {
	return func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) error {
		_, err := w.AlterConfigs(ctx, as, clusterops.Apply)
		return err
	}
}

func reassign(throttle int64, rs ...cluster.Reassignment) writeFunc {
	return func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) error {
		_, _, err := w.StartReassignment(ctx, s, rs, throttle, clusterops.Apply)
		return err
	}
}

func cancel(topic string, p int) writeFunc {
	return func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) error {
		_, err := w.CancelReassignment(ctx, []cluster.TopicPartition{{Topic: topic, Partition: p}}, clusterops.Apply)
		return err
	}
}

func deleteTopic(topic string) writeFunc {
	return func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) error {
		_, err := w.DeleteTopic(ctx, s, topic, clusterops.Apply)
		return err
	}
}

// TestRefusals: a write the controller refuses fails with Kafka's error:
// errors.Is finds franz-go's value of its code, cluster.ErrorClass its
// exception's class, and it reads as Kafka's message with the code's
// name (which messages, exactly, the real-Kafka table of cmd checks). A
// refusal at validateOnly stops the write there; nothing was written,
// which MaybeWritten says.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name  string
		do    writeFunc
		code  *kerr.Error
		class string
		// sent are the requests sent before the refusal; applied the
		// writes the controller applied all the same.
		sent, applied int
	}{
		{"an existing topic", create("orders", assign.Assignment{0: {1, 2}}, nil), kerr.TopicAlreadyExists, cluster.ClassTopicExists, 1, 0},
		{"a cordoned broker", create("fresh", assign.Assignment{0: {4, 1}}, nil), kerr.InvalidReplicaAssignment, cluster.ClassInvalidReplicaAssignment, 1, 0},
		{"an invalid name", create("a b", assign.Assignment{0: {1, 2}}, nil), kerr.InvalidTopicException, cluster.ClassInvalidTopic, 1, 0},
		{"an invalid config value", create("fresh", assign.Assignment{0: {1, 2}}, map[string]string{"retention.ms": "soon"}),
			kerr.InvalidConfig, cluster.ClassInvalidConfiguration, 1, 0},
		{"a new partition on an unknown broker", addPartitions("clicks", 12, 13, assign.Assignment{12: {1, 9}}),
			kerr.InvalidReplicaAssignment, cluster.ClassInvalidReplicaAssignment, 1, 0},
		{"partitions of an unknown topic", addPartitions("nope", 1, 2, assign.Assignment{1: {1, 2}}),
			kerr.UnknownTopicOrPartition, cluster.ClassUnknownTopicOrPartition, 1, 0},
		{"an unknown topic config", alterConfigs(alteration(cluster.EntityTopics, "orders", map[string]string{"retention.mss": "1"})),
			kerr.InvalidConfig, cluster.ClassInvalidConfiguration, 1, 0},
		{"no reassignment to cancel", cancel("clicks", 0), kerr.NoReassignmentInProgress, "NoReassignmentInProgressException", 1, 0},
		{"a reassignment without throttles to a cordoned broker", reassign(-1, move("clicks", 0, 1, 4)),
			kerr.InvalidReplicaAssignment, cluster.ClassInvalidReplicaAssignment, 1, 0},
		// The throttles are validated and set, then the reassignment is
		// refused: the throttles stay, and the error says so.
		{"a throttled reassignment to a cordoned broker", reassign(1000, move("clicks", 0, 1, 4)),
			kerr.InvalidReplicaAssignment, cluster.ClassInvalidReplicaAssignment, 3, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, rec, fake := newWriter()
			err := c.do(context.Background(), w, fake.Snapshot())
			var ke *kafkaops.Error
			switch {
			case err == nil:
				t.Fatal("no error")
			case !errors.Is(err, c.code) || !errors.As(err, &ke) || ke.Err.Code != c.code:
				t.Errorf("%v: not %s", err, c.code.Message)
			case cluster.ErrorClass(err) != c.class:
				t.Errorf("%v: class %q, want %q", err, cluster.ErrorClass(err), c.class)
			case !strings.HasSuffix(ke.Error(), " ("+c.code.Message+")") || cluster.IsDenied(err):
				t.Errorf("%q", ke.Error())
			case w.MaybeWritten(err):
				t.Error("a refusal may have been written")
			}
			if len(rec.sent) != c.sent || len(fake.Applied()) != c.applied {
				t.Errorf("sent %q, applied %q", rec.summaries(), fake.Applied())
			}
			if c.applied > 0 && !strings.HasSuffix(err.Error(), "; the throttles were set (ktopo reassign --verify removes them)") {
				t.Errorf("%q does not say the throttles stay", err.Error())
			}
		})
	}

	// Kafka's refusal of a cordoned broker names it, read through the
	// error's chain.
	w, _, fake := newWriter()
	err := create("fresh", assign.Assignment{0: {2, 4}}, nil)(context.Background(), w, fake.Snapshot())
	if b, ok := clusterops.CordonedRefusal(err); !ok || b != 4 {
		t.Errorf("CordonedRefusal(%v) = %d, %v", err, b, ok)
	}

	// A topic deleted meanwhile (the snapshot still has it).
	w, _, fake = newWriter()
	s := fake.Snapshot()
	if err := deleteTopic("clicks")(context.Background(), w, s); err != nil {
		t.Fatal(err)
	}
	if err := deleteTopic("clicks")(context.Background(), w, s); !errors.Is(err, kerr.UnknownTopicOrPartition) {
		t.Errorf("deleted twice: %v", err)
	}
}

// denier answers every write as Kafka does when the session lacks the ACL:
// a topic's refusal per topic (TOPIC_AUTHORIZATION_FAILED), a broker's
// configs' per resource and a cluster operation's for the whole request
// (CLUSTER_AUTHORIZATION_FAILED).
func denier(req kmsg.Request) (kmsg.Response, error) {
	topic, clusterOp := kerr.TopicAuthorizationFailed.Code, kerr.ClusterAuthorizationFailed.Code
	onResource := func(rt kmsg.ConfigResourceType) int16 {
		if rt == kmsg.ConfigResourceTypeTopic {
			return topic
		}
		return clusterOp
	}
	resp := req.ResponseKind()
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		for _, t := range r.Topics {
			rt := kmsg.NewCreateTopicsResponseTopic()
			rt.Topic, rt.ErrorCode = t.Topic, topic
			resp.(*kmsg.CreateTopicsResponse).Topics = append(resp.(*kmsg.CreateTopicsResponse).Topics, rt)
		}
	case *kmsg.CreatePartitionsRequest:
		for _, t := range r.Topics {
			rt := kmsg.NewCreatePartitionsResponseTopic()
			rt.Topic, rt.ErrorCode = t.Topic, topic
			resp.(*kmsg.CreatePartitionsResponse).Topics = append(resp.(*kmsg.CreatePartitionsResponse).Topics, rt)
		}
	case *kmsg.DeleteTopicsRequest:
		for _, t := range r.Topics {
			rt := kmsg.NewDeleteTopicsResponseTopic()
			rt.Topic, rt.ErrorCode = t.Topic, topic
			resp.(*kmsg.DeleteTopicsResponse).Topics = append(resp.(*kmsg.DeleteTopicsResponse).Topics, rt)
		}
	case *kmsg.IncrementalAlterConfigsRequest:
		for _, res := range r.Resources {
			rr := kmsg.NewIncrementalAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, onResource(res.ResourceType)
			resp.(*kmsg.IncrementalAlterConfigsResponse).Resources = append(resp.(*kmsg.IncrementalAlterConfigsResponse).Resources, rr)
		}
	case *kmsg.DescribeConfigsRequest:
		for _, res := range r.Resources {
			rr := kmsg.NewDescribeConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = res.ResourceType, res.ResourceName, onResource(res.ResourceType)
			resp.(*kmsg.DescribeConfigsResponse).Resources = append(resp.(*kmsg.DescribeConfigsResponse).Resources, rr)
		}
	case *kmsg.AlterPartitionAssignmentsRequest:
		resp.(*kmsg.AlterPartitionAssignmentsResponse).ErrorCode = clusterOp
	case *kmsg.ElectLeadersRequest:
		resp.(*kmsg.ElectLeadersResponse).ErrorCode = clusterOp
	default:
		return nil, errors.New("not a write: " + kmsg.NameForKey(req.Key()))
	}
	return resp, nil
}

// TestDenied: a write the session has no ACL for reads "no access" with
// the write refused, the code's name and the ACL Kafka checks for it; it
// is an authorization failure to cluster.IsDenied and franz-go's code to
// errors.Is.
func TestDenied(t *testing.T) {
	s := fakeCluster().Snapshot()
	w := kafkaops.New(requestFunc(denier), testTimeout)
	const cl = "CLUSTER_AUTHORIZATION_FAILED"
	for _, c := range []struct {
		do        writeFunc
		what, acl string
		code      string
	}{
		{create("fresh", assign.Assignment{0: {1, 2}}, nil), "create topic fresh", "CREATE on TOPIC fresh, or CREATE on the CLUSTER", ""},
		{addPartitions("clicks", 12, 13, assign.Assignment{12: {1, 2}}), "add partitions to topic clicks", "ALTER on TOPIC clicks", ""},
		{deleteTopic("clicks"), "delete topic clicks", "DELETE on TOPIC clicks", ""},
		{alterConfigs(alteration(cluster.EntityTopics, "orders", map[string]string{"retention.ms": "5"})),
			"alter the configs of topic orders", "ALTER_CONFIGS on TOPIC orders", ""},
		{alterConfigs(alteration(cluster.EntityBrokers, "2", map[string]string{cluster.ConfigLeaderThrottledRate: "5"})),
			"alter the configs of broker 2", "ALTER_CONFIGS on the CLUSTER", cl},
		{alterConfigs(alteration(cluster.EntityBrokers, cluster.BrokerDefaultEntity, map[string]string{cluster.ConfigLeaderThrottledRate: "5"})),
			"alter the default configs of the brokers", "ALTER_CONFIGS on the CLUSTER", cl},
		{func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) error {
			_, err := w.Cordon(ctx, 3, true, clusterops.Apply)
			return err
		}, "alter the configs of broker 3", "ALTER_CONFIGS on the CLUSTER", cl},
		{reassign(-1, move("clicks", 0, 1, 3)), "start a reassignment", "ALTER on the CLUSTER", cl},
		{cancel("clicks", 0), "cancel a reassignment", "ALTER on the CLUSTER", cl},
		{func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) error {
			_, _, err := w.Elect(ctx, &clusterops.ElectionPlan{Write: []cluster.TopicPartition{{Topic: "orders", Partition: 4}}}, clusterops.Apply)
			return err
		}, "elect leaders", "ALTER on the CLUSTER", cl},
		{func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) error {
			_, _, err := w.ReadConfig(ctx, cluster.EntityTopics, "orders")
			return err
		}, "read the configs of topic orders", "DESCRIBE_CONFIGS on TOPIC orders", ""},
		{func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) error {
			_, _, err := w.ReadConfig(ctx, cluster.EntityBrokers, cluster.BrokerDefaultEntity)
			return err
		}, "read the configs of default brokers", "DESCRIBE_CONFIGS on the CLUSTER", cl},
	} {
		code := kerr.TopicAuthorizationFailed
		if c.code == cl {
			code = kerr.ClusterAuthorizationFailed
		}
		err := c.do(context.Background(), w, s)
		want := "no access: this session may not " + c.what + " (" + code.Message + "); Kafka wants the ACL " + c.acl + " for its principal"
		if err == nil || err.Error() != want {
			t.Errorf("%v\nwant %s", err, want)
			continue
		}
		if !cluster.IsDenied(err) || !errors.Is(err, code) || w.MaybeWritten(err) {
			t.Errorf("%s: denied %v, is %s %v, maybe written %v", c.what, cluster.IsDenied(err), code.Message, errors.Is(err, code), w.MaybeWritten(err))
		}
	}
}

// lossy passes requests on to next and loses the answer to the first one
// lost says (its error instead of the answer), or answers it with
// REQUEST_TIMED_OUT (timedOut) after next applied it.
type lossy struct {
	next     kafkaops.Requester
	lose     func(kmsg.Request) bool
	timedOut bool
	lost     bool
}

func (l *lossy) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	if l.lost || !l.lose(req) {
		return l.next.Request(ctx, req)
	}
	l.lost = true
	if _, err := l.next.Request(ctx, req); err != nil {
		return nil, err
	}
	if l.timedOut {
		resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic, rt.ErrorCode = "fresh", kerr.RequestTimedOut.Code
		resp.Topics = append(resp.Topics, rt)
		return resp, nil
	}
	return nil, io.ErrUnexpectedEOF
}

// theRealCreation is the CreateTopics that is not validateOnly.
func theRealCreation(req kmsg.Request) bool {
	ct, ok := req.(*kmsg.CreateTopicsRequest)
	return ok && !ct.ValidateOnly
}

// TestLostReply: a write whose answer did not come, or came as
// REQUEST_TIMED_OUT, may have been applied (MaybeWritten); VerifyCreate
// then reads the brokers' metadata for what became of a creation: the
// planned topic, another one, or none.
func TestLostReply(t *testing.T) {
	ctx := context.Background()
	plan := &clusterops.TopicPlan{Name: "fresh", Result: assign.Result{Assignment: assign.Assignment{0: {1, 2}, 1: {2, 3}}}}

	// No answer at all.
	w := kafkaops.New(requestFunc(func(kmsg.Request) (kmsg.Response, error) { return nil, io.EOF }), testTimeout)
	_, err := w.CreateTopic(ctx, plan, clusterops.Apply)
	var se *kafkaops.SendError
	if !errors.As(err, &se) || err.Error() != "CreateTopics: no answer from Kafka: EOF" || !errors.Is(err, io.EOF) || !w.MaybeWritten(err) {
		t.Errorf("no answer: %v", err)
	}

	for _, timedOut := range []bool{false, true} {
		fake := fakeCluster()
		w := kafkaops.New(&lossy{next: fake, lose: theRealCreation, timedOut: timedOut}, testTimeout)
		_, err := w.CreateTopic(ctx, plan, clusterops.Apply)
		if !w.MaybeWritten(err) || timedOut != errors.Is(err, kerr.RequestTimedOut) {
			t.Errorf("timed out %v: %v", timedOut, err)
		}
		o := w.VerifyCreate(ctx, plan, err)
		if !o.Known || !o.Applied || o.How != "read back from the brokers' metadata" || o.Err != nil {
			t.Errorf("timed out %v: %+v", timedOut, o)
		}
	}

	// Another client created it meanwhile, otherwise.
	fake := fakeCluster()
	other := *plan
	other.Result.Assignment = assign.Assignment{0: {3, 5}}
	if _, err := kafkaops.New(fake, testTimeout).CreateTopic(ctx, &other, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	o := kafkaops.New(fake, testTimeout).VerifyCreate(ctx, plan, io.ErrUnexpectedEOF)
	if !o.Known || o.Applied || cluster.ErrorClass(o.Err) != cluster.ClassTopicExists ||
		o.Err.Error() != "Topic 'fresh' already exists. (its assignment is not the one planned: another client created it)" {
		t.Errorf("created by another: %+v", o)
	}

	// Never created: not in the metadata twice the request's timeout on.
	const short = 10 * time.Millisecond
	w = kafkaops.New(fakeCluster(), short)
	o = w.VerifyCreate(ctx, plan, io.ErrUnexpectedEOF)
	if !o.Known || o.Applied || o.Err != nil || o.How != "not in the brokers' metadata "+(2*short).String()+" after the request" {
		t.Errorf("never created: %+v", o)
	}

	// Asked to stop before it knows.
	cctx, stop := context.WithCancel(ctx)
	stop()
	o = w.VerifyCreate(cctx, plan, io.ErrUnexpectedEOF)
	if o.Known || !errors.Is(o.Err, io.ErrUnexpectedEOF) || !errors.Is(o.Err, context.Canceled) {
		t.Errorf("stopped: %+v", o)
	}
}
