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
		// The totals of the topics shown, not of those half read (the
		// sum of their TopicHealth). Their partitions led by brokers
		// not live are counted only when there are such leaders (rare
		// during a first load): not a walk of every partition after
		// every batch.
		h := m.partialHealth
		h.Offline = h.NoLeader
		if s.deadLeaders {
			for _, t := range s.topics {
				for _, p := range t.Partitions {
					if _, live := m.brokers[p.Leader]; p.HasLeader() && !live {
						h.Offline++
					}
				}
			}
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
// first load is under way (their znode and every partition state in), and
// counts those still being read. Only the first partial snapshot walks
// every topic; each one after it starts from the previous one's list (by
// then sorted, and right but for the topics changed since: those of
// m.pending, as every change goes through mutable) and places only those
// topics in it, by binary search, so that a batch of a first load costs
// what it changed and a copy of the list, not a walk of the cluster
// (100,000 topics: tens of milliseconds a batch). It keeps the sum of
// the health of the topics listed (partialHealth) the same way.
func (m *Model) partialTopics(prev *Snapshot) ([]*Topic, int) {
	if prev == nil || !prev.partial {
		var list []*Topic
		m.partialHealth = TopicHealth{}
		for _, ts := range m.topics {
			if ts.hasNode && ts.t.Health.Uninitialized == 0 {
				list = append(list, ts.t)
				m.partialHealth.add(ts.t.Health, 1)
			}
		}
		slices.SortFunc(list, func(a, b *Topic) int { return strings.Compare(a.Name, b.Name) })
		return list, m.visibleTopics - len(list)
	}
	// The names changed, once each (a topic dropped and created again
	// in the same batch is twice in m.pending), sorted.
	names := make([]string, 0, len(m.pending))
	for _, ts := range m.pending {
		names = append(names, ts.t.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	list := prev.topics
	var out []*Topic
	i := 0 // list[:i] is in out
	for _, name := range names {
		var t *Topic
		if ts := m.topics[name]; ts != nil && ts.hasNode && ts.t.Health.Uninitialized == 0 {
			t = ts.t
		}
		j, was := slices.BinarySearchFunc(list[i:], name, func(t *Topic, n string) int { return strings.Compare(t.Name, n) })
		j += i
		if !was && t == nil {
			continue
		}
		if out == nil {
			out = make([]*Topic, 0, len(list)+len(names))
		}
		out = append(out, list[i:j]...)
		i = j
		if was {
			m.partialHealth.add(list[i].Health, -1)
			i++
		}
		if t != nil {
			out = append(out, t)
			m.partialHealth.add(t.Health, 1)
		}
	}
	if out == nil {
		return list, m.visibleTopics - len(list)
	}
	out = append(out, list[i:]...)
	return out, m.visibleTopics - len(out)
}
