package kafkatest_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m, kafkatest.StopAll) }

// TestCluster starts each version's cluster, checks the registrations, and
// kills, stops and restarts brokers.
func TestCluster(t *testing.T) {
	for _, v := range []string{kafkatest.Kafka39, kafkatest.Kafka28} {
		t.Run(v, func(t *testing.T) {
			if testing.Short() && v == kafkatest.Kafka28 {
				t.Skip("-short: 2.8's brokers are started, killed and stopped by cmd's real-Kafka tests")
			}
			c := kafkatest.Shared(t, v)
			conn := zktest.Connect(t, strings.Split(c.Connect(), "/")[0])
			ids, _, err := conn.Children(c.Chroot() + "/brokers/ids")
			if err != nil || strings.Join(ids, ",") == "" || len(ids) != 3 {
				t.Fatalf("registered brokers %v, %v", ids, err)
			}
			for _, b := range c.Brokers() {
				data, _, err := conn.Get(c.Chroot() + "/brokers/ids/" + itoa(b.ID))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(data), `"rack":"`+b.Rack+`"`) || !strings.Contains(string(data), b.Addr()) {
					t.Errorf("broker %d registration %s: want rack %s and %s", b.ID, data, b.Rack, b.Addr())
				}
			}
			ctrl, epoch, err := c.Controller()
			if err != nil || ctrl < 1 || epoch < 1 {
				t.Fatalf("controller %d epoch %d: %v", ctrl, epoch, err)
			}
			// A killed controller's registration expires, another broker
			// takes over with the next epoch; a clean stop deregisters.
			c.Broker(ctrl).Kill()
			if err := c.WaitReady(time.Minute); err != nil {
				t.Fatal(err)
			}
			ctrl2, epoch2, err := c.Controller()
			if err != nil || ctrl2 == ctrl || epoch2 <= epoch {
				t.Fatalf("after killing controller %d (epoch %d): controller %d epoch %d: %v", ctrl, epoch, ctrl2, epoch2, err)
			}
			other := 1
			if other == ctrl || other == ctrl2 {
				other = 6 - ctrl - ctrl2
			}
			c.Broker(other).Stop()
			if err := c.WaitReady(time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := c.Heal(); err != nil {
				t.Fatal(err)
			}
			res, err := c.Topics("--list")
			if err != nil || res.Code != 0 {
				t.Fatalf("kafka-topics --list: %v %+v", err, res)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
