package cluster

import (
	"maps"
	"slices"
)

// seenTopic records which of a topic's znodes a reset batch mentions.
type seenTopic struct {
	node, config, marker bool
	states               map[int]bool
}

// resetSeen records what a reset batch mentions; sweep deletes the rest.
type resetSeen struct {
	brokers  map[int]bool
	topics   map[string]*seenTopic
	single   [kindCount]bool // the fixed-path kinds (kindSpec.path)
	children map[string]bool
	entities map[string]bool // broker config entities
}

func newResetSeen() *resetSeen {
	return &resetSeen{brokers: map[int]bool{}, topics: map[string]*seenTopic{}, children: map[string]bool{}, entities: map[string]bool{}}
}

func (s *resetSeen) topic(name string) *seenTopic {
	st := s.topics[name]
	if st == nil {
		st = &seenTopic{}
		s.topics[name] = st
	}
	return st
}

func (s *resetSeen) mark(info PathInfo, path string) {
	switch info.Kind {
	case KindBroker:
		s.brokers[info.BrokerID] = true
	case KindTopic:
		s.topic(info.Topic).node = true
	case KindPartitionState:
		st := s.topic(info.Topic)
		if st.states == nil {
			st.states = map[int]bool{}
		}
		st.states[info.Partition] = true
	case KindTopicConfig:
		s.topic(info.Topic).config = true
	case KindDeleteTopic:
		s.topic(info.Topic).marker = true
	case KindIsrChange, KindLogDirEvent:
		s.children[path] = true
	case KindEntityConfig:
		if info.EntityType == "brokers" {
			s.entities[info.Entity] = true
		}
	default:
		s.single[info.Kind] = true
	}
}

// sweep deletes whatever the reset batch did not mention, in a deterministic
// order (brokers by id, topics by name, then the fixed-path nodes of
// kindSpecs in kind order).
func (m *Model) sweep(seen *resetSeen) {
	del := func(path string) *NodeEvent { return &NodeEvent{Type: NodeDeleted, Path: path} }
	for _, id := range slices.Sorted(maps.Keys(m.brokers)) {
		if !seen.brokers[id] {
			m.applyBroker(id, del(BrokerIDPath(id)), true)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.topics)) {
		ts := m.topics[name]
		st := seen.topics[name]
		if st == nil {
			st = &seenTopic{}
		}
		var gone []int
		for _, p := range ts.t.Partitions {
			if p.HasState && !st.states[p.ID] {
				gone = append(gone, p.ID)
			}
		}
		for _, p := range gone {
			m.applyState(name, p, del(PartitionStatePath(name, p)), true)
		}
		if ts.t.HasConfig && !st.config {
			m.applyConfig(name, del(TopicConfigPath(name)), true)
		}
		if ts.t.MarkedForDeletion && !st.marker {
			m.applyMarker(name, del(DeleteTopicPath(name)), true)
		}
		if ts.hasNode && !st.node {
			m.applyTopic(name, del(TopicPath(name)), true)
		}
	}
	for k := range kindCount {
		if spec := &kindSpecs[k]; spec.path != "" && spec.apply != nil && !seen.single[k] {
			spec.apply(m, PathInfo{Kind: k, Partition: -1, BrokerID: -1, Seq: -1}, del(spec.path), true)
		}
	}
	for _, e := range slices.Sorted(maps.Keys(m.brokerConfigs)) {
		if !seen.entities[e] {
			m.applyEntityConfig(PathInfo{Kind: KindEntityConfig, EntityType: "brokers", Entity: e}, del(EntityConfigPath("brokers", e)), true)
		}
	}
	for _, set := range []map[string]bool{m.isrNotes, m.logDirEvents} {
		for p := range set {
			if !seen.children[p] {
				delete(set, p)
				m.changed = true
			}
		}
	}
}
