package cluster

import (
	"maps"
	"slices"
	"strings"
)

// Snapshot returns an immutable view of the current state. It is cheap: the
// same *Snapshot is returned until the next batch changes something, and a
// new one shares every unchanged *Topic with the previous one.
func (m *Model) Snapshot() *Snapshot {
	if m.snap != nil && !m.changed {
		return m.snap
	}
	prev := m.snap
	m.seq++
	s := &Snapshot{seq: m.seq, defMinISR: m.defMinISR, brokerMinISR: m.brokerMinISR}
	if prev == nil || m.brokerCfgDirty {
		s.brokerConfig = m.snapshotBrokerConfigs()
		m.brokerCfgDirty = false
	} else {
		s.brokerConfig = prev.brokerConfig
	}
	if prev == nil || m.throttledDirty {
		s.throttledTopics = slices.Sorted(maps.Keys(m.throttledTopics))
		m.throttledDirty = false
	} else {
		s.throttledTopics = prev.throttledTopics
	}

	// Topics: rebuilt when the set changed, else patched where changed.
	// A partial snapshot lists the topics read in full only, and is
	// rebuilt every time.
	switch {
	case m.loading:
		s.topics, s.loadingTopics = m.partialTopics(prev)
		s.partial = true
		m.wasLoaded = true
	case prev == nil || m.topicSetChanged || m.wasLoaded:
		m.wasLoaded = false
		list := make([]*Topic, 0, len(m.topics))
		for _, ts := range m.topics {
			if ts.hasNode {
				list = append(list, ts.t)
			}
		}
		slices.SortFunc(list, func(a, b *Topic) int { return strings.Compare(a.Name, b.Name) })
		s.topics = list
	case len(m.pending) > 0:
		s.topics = slices.Clone(prev.topics)
		for _, ts := range m.pending {
			if !ts.hasNode {
				continue
			}
			if i, ok := slices.BinarySearchFunc(s.topics, ts.t.Name, func(t *Topic, n string) int { return strings.Compare(t.Name, n) }); ok {
				s.topics[i] = ts.t
			}
		}
	default:
		s.topics = prev.topics
	}
	for _, ts := range m.pending {
		ts.t.sealed, ts.pending = true, false
	}
	m.pending = m.pending[:0]
	m.topicSetChanged = false

	if prev == nil || m.markersDirty {
		var ms []string
		for name, ts := range m.topics {
			if ts.t.MarkedForDeletion {
				ms = append(ms, name)
			}
		}
		slices.Sort(ms)
		s.markers = ms
		m.markersDirty = false
	} else {
		s.markers = prev.markers
	}
	if prev == nil || m.errorsDirty {
		errs := make([]NodeError, 0, len(m.badNodes))
		for _, p := range slices.Sorted(maps.Keys(m.badNodes)) {
			errs = append(errs, m.badNodes[p])
		}
		s.errors = errs
		m.errorsDirty = false
	} else {
		s.errors = prev.errors
	}
	if prev == nil || m.deniedDirty {
		s.denied = maps.Clone(m.denied)
		s.deniedPaths = slices.Sorted(maps.Keys(m.denied))
		m.deniedDirty = false
	} else {
		s.denied, s.deniedPaths = prev.denied, prev.deniedPaths
	}

	s.kraft = m.kraft
	m.buildBrokers(s)
	s.clusterID, s.clusterIDErr = m.clusterID.v.ID, m.clusterID.err
	s.controller = Controller{BrokerID: m.controllerID(), Info: m.controllerInfo(), Since: m.ctrl.ctime,
		Epoch: m.ctrlEpoch.v, EpochZkVersion: m.ctrlEpoch.version, Err: m.ctrl.err,
		Present: m.ctrl.present, Persistent: m.ctrl.present && !m.ctrl.ephemeral}
	if mg := &m.migration; mg.present {
		s.migration = MigrationNode{Present: true, State: mg.v, Err: mg.err, Ctime: mg.ctime, Mtime: mg.mtime,
			Czxid: mg.czxid, Mzxid: mg.mzxid, Version: mg.version}
	}
	if s.controller.Err == nil {
		s.controller.Err = m.ctrlEpoch.err
	}
	s.reassign, s.preferred = m.reassign.v, m.preferred.v
	s.isrNotes, s.logDirEvents = len(m.isrNotes), len(m.logDirEvents)

	for b, n := range m.leaderCount {
		if _, live := m.brokers[b]; !live && n > 0 {
			s.deadLeaders = true
		}
	}
	if s.partial {
		// The totals of the topics shown, not of those half read.
		var h TopicHealth
		for _, t := range s.topics {
			h.add(s.TopicHealth(t), 1)
		}
		s.health = h
	} else {
		s.health = m.totals
		s.health.Offline = m.totals.NoLeader
		for b, n := range m.leaderCount {
			if _, live := m.brokers[b]; !live {
				s.health.Offline += n
			}
		}
	}
	m.snap, m.changed = s, false
	return s
}

func (m *Model) buildBrokers(s *Snapshot) {
	ids := make([]int, 0, len(m.brokers)+4)
	for id := range m.brokers {
		ids = append(ids, id)
	}
	if m.kraft != nil {
		// A fenced broker is registered with the controller: shown, if
		// not live, whether or not it holds replicas.
		for _, kb := range m.kraft.Brokers {
			if _, live := m.brokers[kb.ID]; !live && !slices.Contains(ids, kb.ID) {
				ids = append(ids, kb.ID)
			}
		}
	}
	for _, c := range []map[int]int{m.replicaCount, m.leaderCount} {
		for id := range c {
			if _, live := m.brokers[id]; !live && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	ctrl := m.controllerID()
	s.brokers = make([]Broker, len(ids))
	rackIdx := map[string]int{}
	var none, unknown *Rack
	var named []Rack
	for i, id := range ids {
		b := Broker{ID: id, Replicas: m.replicaCount[id], Leaders: m.leaderCount[id], IsController: id == ctrl,
			Preferred: m.prefCount[id], PreferredLed: m.prefLed[id]}
		if n := m.brokers[id]; n != nil {
			b.Live, b.Registration, b.Err, b.Epoch = true, n.reg, n.err, n.czxid
			b.RegisteredAt = n.ctime
			if ms, ok := n.reg.TimestampMillis(); ok {
				b.RegisteredAt = ms
			} else if m.kraft != nil {
				b.RegisteredAt = 0 // KRaft does not say when a broker registered
			}
			b.Rack, b.HasRack, b.RackKnown = n.reg.Rack, n.reg.HasRack(), true
		} else if reg, ok := m.lastKnown[id]; ok {
			b.Registration = reg
			b.Rack, b.HasRack, b.RackKnown = reg.Rack, reg.HasRack(), true
		}
		if m.kraft != nil {
			if kb, ok := m.kraft.Broker(id); ok {
				b.Fenced, b.Cordoned = kb.Fenced && !b.Live, kb.Cordoned
				if !b.RackKnown {
					b.Rack, b.HasRack, b.RackKnown = kb.Rack, kb.HasRack, true
				}
			}
		}
		s.brokers[i] = b
		var r *Rack
		switch {
		case b.HasRack:
			j, ok := rackIdx[b.Rack]
			if !ok {
				j = len(named)
				rackIdx[b.Rack] = j
				named = append(named, Rack{Name: b.Rack, Kind: RackNamed})
			}
			r = &named[j]
		case b.RackKnown:
			if none == nil {
				none = &Rack{Kind: RackNone}
			}
			r = none
		default:
			if unknown == nil {
				unknown = &Rack{Kind: RackUnknown}
			}
			r = unknown
		}
		r.Brokers = append(r.Brokers, id)
		r.Replicas += b.Replicas
		r.Leaders += b.Leaders
		r.Live += b2i(b.Live)
	}
	slices.SortFunc(named, func(a, b Rack) int { return strings.Compare(a.Name, b.Name) })
	if none != nil {
		named = append(named, *none)
	}
	if unknown != nil {
		named = append(named, *unknown)
	}
	s.racks = named
}

// partialTopics lists, sorted by name, the topics read in full while the
// first load is under way, and counts those still being read. The list is
// the previous partial snapshot's (already sorted, pointers brought up to
// date, topics gone or no longer complete left out) merged with the
// topics completed since: each snapshot sorts only what is new.
func (m *Model) partialTopics(prev *Snapshot) ([]*Topic, int) {
	var kept []*Topic
	if prev != nil && prev.partial {
		kept = make([]*Topic, 0, len(prev.topics))
		for _, t := range prev.topics {
			if ts := m.topics[t.Name]; ts != nil && ts.listed && ts.hasNode && ts.t.Health.Uninitialized == 0 {
				kept = append(kept, ts.t)
			}
		}
	} else {
		for _, ts := range m.topics {
			ts.listed = false
		}
	}
	var added []*Topic
	loading := 0
	for _, ts := range m.topics {
		show := ts.hasNode && ts.t.Health.Uninitialized == 0
		if ts.hasNode && !show {
			loading++
		}
		if show && !ts.listed {
			added = append(added, ts.t)
		}
		ts.listed = show
	}
	byName := func(a, b *Topic) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(added, byName)
	if len(kept) == 0 {
		return added, loading
	}
	out := make([]*Topic, 0, len(kept)+len(added))
	i, j := 0, 0
	for i < len(kept) || j < len(added) {
		if j == len(added) || i < len(kept) && kept[i].Name < added[j].Name {
			out = append(out, kept[i])
			i++
		} else {
			out = append(out, added[j])
			j++
		}
	}
	return out, loading
}
