package cluster

import (
	"fmt"
	"testing"
)

// BenchmarkPredictFailure is the what-if's cost per snapshot at 100,000
// partitions on 6 brokers (a broker holds half of them): a first
// prediction (every topic read), and one after a batch of 512 state
// writes (only the topics they touched read again); then the same on the
// cluster read from KRaft. It runs in Update, never in View.
func BenchmarkPredictFailure(b *testing.B) {
	const nBrokers, nTopics, nParts = 6, 1000, 100
	m := NewModel(ModelOptions{NoChanges: true})
	m.Apply(benchCluster(nBrokers, nTopics, nParts), true)
	batches := benchBatches(16, 512, nBrokers, nTopics, nParts)
	b.Run(fmt.Sprintf("first/partitions=%d", nTopics*nParts), func(b *testing.B) {
		s := m.Snapshot()
		b.ReportAllocs()
		for b.Loop() {
			_ = PredictFailure(s, 1)
		}
	})
	b.Run(fmt.Sprintf("after-batch/partitions=%d", nTopics*nParts), func(b *testing.B) {
		fp := NewFailurePredictor(1)
		fp.Predict(m.Snapshot())
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			m.Apply(batches[i%len(batches)], false)
			i++
			_ = fp.Predict(m.Snapshot())
		}
	})
	// The same cluster read from KRaft (eligible leader replicas on): the
	// KRaft controller's rules, for a broker and for a rack (brokers 0 and
	// 3), and after batches.
	km := NewModel(ModelOptions{NoChanges: true})
	km.Apply(benchCluster(nBrokers, nTopics, nParts), true)
	km.SetKRaft(&KRaft{Quorum: Quorum{LeaderID: 3000, Voters: []QuorumReplica{{ID: 3000}}},
		Features: []Feature{{FeatureELR, 1}, {FeatureMetadataVersion, 33}}, ELR: true})
	for _, fail := range [][]int{{1}, {0, 3}} {
		b.Run(fmt.Sprintf("kraft-first/failed=%d/partitions=%d", len(fail), nTopics*nParts), func(b *testing.B) {
			s := km.Snapshot()
			b.ReportAllocs()
			for b.Loop() {
				_ = PredictFailure(s, fail...)
			}
		})
	}
	b.Run(fmt.Sprintf("kraft-after-batch/partitions=%d", nTopics*nParts), func(b *testing.B) {
		fp := NewFailurePredictor(1)
		fp.Predict(km.Snapshot())
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			km.Apply(batches[i%len(batches)], false)
			i++
			_ = fp.Predict(km.Snapshot())
		}
	})
	b.Run(fmt.Sprintf("balance/partitions=%d", nTopics*nParts), func(b *testing.B) {
		var bt BalanceTracker
		bt.Balance(m.Snapshot())
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			m.Apply(batches[i%len(batches)], false)
			i++
			_ = bt.Balance(m.Snapshot())
		}
	})
}
