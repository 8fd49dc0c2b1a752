package kraftsandbox

import (
	"strconv"
	"testing"
	"time"

	"github.com/ktopo/ktopo/clusterops"
)

// TestCopyTakesClusteropsETA drives the simulation's clock by hand: a
// partition of 100 MiB growing at 1 MiB/s, moved under an 11 MiB/s
// throttle on both sides (as kafka-reassign-partitions --throttle sets
// it), is copied in the time clusterops.MoveBytes.ETA estimates,
// size / (throttle − growth) = 10 s; unthrottled, at ReplicationRate.
func TestCopyTakesClusteropsETA(t *testing.T) {
	for _, tc := range []struct {
		name     string
		throttle int64
	}{{"throttled", 11 << 20}, {"unthrottled", ReplicationRate}} {
		t.Run(tc.name, func(t *testing.T) {
			c := startTest(t, Config{Tick: time.Hour, NoAutoLeaderRebalance: true})
			const size, growth = 100 << 20, 1 << 20
			mkTopic(t, c, "eta", [][]int32{{1}}, nil, size)
			c.mu.Lock()
			tp := c.topics["eta"]
			tp.parts[0].rate = growth
			if tc.throttle != ReplicationRate {
				tp.configs[leaderThrottledReplicas] = "0:1"
				tp.configs[followerThrottledReplicas] = "0:4"
				v := itoa64(tc.throttle)
				c.brokerConfigs["1"] = map[string]string{leaderThrottledRate: v}
				c.brokerConfigs["4"] = map[string]string{followerThrottledRate: v}
			}
			now := time.Now()
			c.tick(now, 0)
			c.mu.Unlock()
			if code, msg := alter(t, client(t, c), 0, true, "eta", 0, []int32{4}); code != 0 {
				t.Fatalf("alter: %d %s", code, msg)
			}
			mb := clusterops.MoveBytes{Known: true, In: map[int]int64{4: size}, Out: map[int]int64{1: size},
				InRate: map[int]float64{4: growth}, OutRate: map[int]float64{1: growth}}
			want := mb.ETA(tc.throttle).Duration
			const step = 100 * time.Millisecond
			var took time.Duration
			for took = 0; took < time.Hour; took += step {
				c.mu.Lock()
				done := !c.topics["eta"].parts[0].reassigning()
				if !done {
					now = now.Add(step)
					c.tick(now, step)
				}
				c.mu.Unlock()
				if done {
					break
				}
			}
			if took < want || took > want+2*step {
				t.Errorf("copied in %v of simulated time, clusterops.ETA says %v", took, want)
			}
		})
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
