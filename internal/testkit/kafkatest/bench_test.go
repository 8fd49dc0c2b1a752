package kafkatest_test

import (
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// BenchmarkStartCombined measures a one-node KRaft cluster's start, from
// StartKRaft to ready (storage formatted in the warm tool JVM, the JVM
// started with its class archive, the broker registered and unfenced),
// and its clean stop, per version.
func BenchmarkStartCombined(b *testing.B) {
	for _, v := range []string{kafkatest.Kafka44, kafkatest.Kafka39} {
		b.Run(v, func(b *testing.B) {
			d := kafkatest.Require(b, v)
			// The tool JVM is warm in a test package that uses Kafka's
			// tools; it formats the storage.
			if _, err := d.Command("kafka-storage", "random-uuid"); err != nil {
				b.Fatal(err)
			}
			var start, stop time.Duration
			for b.Loop() {
				t0 := time.Now()
				c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: v, Combined: true})
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				c.Stop()
				start += t1.Sub(t0)
				stop += time.Since(t1)
			}
			b.ReportMetric(float64(start.Milliseconds())/float64(b.N), "start-ms/op")
			b.ReportMetric(float64(stop.Milliseconds())/float64(b.N), "stop-ms/op")
		})
	}
}
