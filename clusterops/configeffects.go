package clusterops

import (
	"fmt"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// ConfigEffects is what a topic's new overrides do to its partitions as
// the cluster stands, for a preview before they are written.
type ConfigEffects struct {
	// Lines describe the effects in words, one per line.
	Lines []string
	// UncleanLeaders are the partitions (with their replicas) that the
	// controller elects an unclean leader for once
	// unclean.leader.election.enable turns true: no live in-sync replica,
	// but a live replica (spec §4.5).
	UncleanLeaders map[int][]int
}

// TopicConfigEffects compares topic's current overrides with after: a
// changed min.insync.replicas (the partitions under it before and after,
// a value above the replication factor), and unclean leader election
// turned on (which leaderless partitions get which unclean leader: the
// first live replica in assignment order, as the Offline strategy picks).
func TopicConfigEffects(s *cluster.Snapshot, topic string, after map[string]string) ConfigEffects {
	var fx ConfigEffects
	t := s.Topic(topic)
	if t == nil {
		return fx
	}
	before := map[string]string{}
	for _, e := range t.Config {
		before[e.Key] = e.Value
	}
	oldMin, newMin := cluster.EffectiveMinISR(before, s.DefaultMinISR()), cluster.EffectiveMinISR(after, s.DefaultMinISR())
	if oldMin != newMin {
		under := func(m int) int {
			n := 0
			for _, p := range t.Partitions {
				if p.InAssignment && p.HasState && p.UnderMinISR(m) {
					n++
				}
			}
			return n
		}
		line := fmt.Sprintf("Effect: min.insync.replicas %d -> %d: %d of %d partitions under min ISR (now %d)", oldMin, newMin, under(newMin), len(t.Partitions), under(oldMin))
		if under(newMin) > 0 {
			line += "; producers with acks=all get NOT_ENOUGH_REPLICAS from them"
		}
		fx.Lines = append(fx.Lines, line+".")
		if rf := t.ReplicationFactor(); newMin > rf {
			fx.Lines = append(fx.Lines, fmt.Sprintf("Warning: min.insync.replicas %d is above the replication factor %d: no acks=all produce to %s can succeed.", newMin, rf, topic))
		}
	}
	if uncleanEnabled(before) || !uncleanEnabled(after) {
		return fx
	}
	fx.UncleanLeaders = map[int][]int{}
	for _, p := range t.Partitions {
		if !p.InAssignment || !p.HasState || p.HasLeader() && s.IsLive(p.Leader) {
			continue
		}
		liveISR := false
		for _, r := range p.ISR {
			liveISR = liveISR || s.IsLive(r)
		}
		leader := -1
		for _, r := range p.Replicas {
			if s.IsLive(r) {
				leader = r
				break
			}
		}
		if liveISR || leader < 0 {
			continue
		}
		fx.UncleanLeaders[p.ID] = p.Replicas
		fx.Lines = append(fx.Lines, fmt.Sprintf("Effect: partition %d has no live in-sync replica (ISR %s): the controller elects broker %d, which is not in sync: records it lacks are lost.",
			p.ID, text.List(p.ISR), leader))
	}
	if len(fx.UncleanLeaders) == 0 {
		fx.Lines = append(fx.Lines, "Effect: unclean.leader.election.enable=true: no partition needs an unclean leader now; from now on an out-of-sync replica may become leader when no in-sync one is alive.")
	}
	return fx
}

// uncleanEnabled reads unclean.leader.election.enable as Kafka's brokers
// do (case-insensitive "true").
func uncleanEnabled(config map[string]string) bool {
	return strings.EqualFold(cluster.JavaTrim(config[cluster.ConfigUncleanLeaderElectionEnable]), "true")
}
