package kraftsandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// unregisterAnswer sends UnregisterBroker of id to the brokers at bs
// (they forward it to the active controller) and sums up the answer.
func unregisterAnswer(t *testing.T, bs string, id int32) string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := kmsg.NewPtrUnregisterBrokerRequest()
	req.BrokerID = id
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	msg := "<null>"
	if resp.ErrorMessage != nil {
		msg = *resp.ErrorMessage
	}
	return fmt.Sprintf("error %d %q", resp.ErrorCode, msg)
}

// TestUnregisterLikeRealKafka: UnregisterBroker of an id no broker has
// is refused as Kafka 4.4 refuses it (BROKER_ID_NOT_REGISTERED, "Broker
// ID 99 is not currently registered"), through a broker; ktopo brokers
// unregister refuses it in the same words before sending.
func TestUnregisterLikeRealKafka(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	realBS, _ := realKRaft(t)
	c := startTest(t, Config{Brokers: 3, Controllers: 3})
	want := unregisterAnswer(t, realBS, 99)
	if got := unregisterAnswer(t, c.Bootstrap(), 99); got != want {
		t.Errorf("UnregisterBroker 99:\nsandbox:    %s\nreal Kafka: %s", got, want)
	}
	t.Logf("real Kafka 4.4: %s", want)
}
