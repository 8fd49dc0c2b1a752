package cluster

import (
	"errors"
	"slices"
)

func (m *Model) topicState(name string, create bool) *topicState {
	ts := m.topics[name]
	if ts == nil && create {
		ts = &topicState{t: &Topic{Name: name, MinISR: m.minISRDefault()}}
		m.topics[name] = ts
	}
	return ts
}

// mutable returns ts's topic ready to be changed: copied if a snapshot may
// reference it, and queued for the next snapshot.
func (m *Model) mutable(ts *topicState) *Topic {
	if ts.t.sealed {
		c := *ts.t
		c.Partitions = slices.Clone(ts.t.Partitions)
		c.sealed = false
		ts.t = &c
	}
	if !ts.pending {
		ts.pending = true
		m.pending = append(m.pending, ts)
	}
	m.changed = true
	return ts.t
}

// dropIfEmpty forgets a topic that has no znode of any kind left.
func (m *Model) dropIfEmpty(ts *topicState) {
	t := ts.t
	if !ts.hasNode && !t.HasConfig && !t.MarkedForDeletion && len(t.Partitions) == 0 {
		delete(m.topics, t.Name)
	}
}

// account adds (sign +1) or removes (-1) a partition's contribution to the
// topic's counts and, when global (the topic znode exists, so the topic is
// in snapshots), to the cluster's counts and the per-broker counts.
func (m *Model) account(t *Topic, p *Partition, sign int, global bool) {
	h := partitionHealth(p, minISRFor(t, p, m.brokerMinISR))
	t.Health.add(h, sign)
	if !global {
		return
	}
	m.totals.add(h, sign)
	for _, r := range p.Replicas {
		bump(m.replicaCount, r, sign)
	}
	if p.HasLeader() {
		bump(m.leaderCount, p.Leader, sign)
	}
	m.accountPreferred(p, sign)
}

// accountPreferred counts p for its preferred leader (first replica of an
// assigned partition), and whether that broker leads it.
func (m *Model) accountPreferred(p *Partition, sign int) {
	if pl := p.PreferredLeader(); pl >= 0 && p.InAssignment {
		bump(m.prefCount, pl, sign)
		if p.HasLeader() && p.Leader == pl {
			bump(m.prefLed, pl, sign)
		}
	}
}

// accountDiff replaces old's contribution by nw's, skipping replica
// bookkeeping when the replica list is the same slice.
func (m *Model) accountDiff(t *Topic, old, nw *Partition, global bool) {
	hOld, hNew := partitionHealth(old, minISRFor(t, old, m.brokerMinISR)), partitionHealth(nw, minISRFor(t, nw, m.brokerMinISR))
	t.Health.add(hOld, -1)
	t.Health.add(hNew, 1)
	if !global {
		return
	}
	m.totals.add(hOld, -1)
	m.totals.add(hNew, 1)
	if !sameSlice(old.Replicas, nw.Replicas) {
		for _, r := range old.Replicas {
			bump(m.replicaCount, r, -1)
		}
		for _, r := range nw.Replicas {
			bump(m.replicaCount, r, 1)
		}
	}
	ol, nl := -1, -1
	if old.HasLeader() {
		ol = old.Leader
	}
	if nw.HasLeader() {
		nl = nw.Leader
	}
	if ol != nl {
		if ol >= 0 {
			bump(m.leaderCount, ol, -1)
		}
		if nl >= 0 {
			bump(m.leaderCount, nl, 1)
		}
	}
	m.accountPreferred(old, -1)
	m.accountPreferred(nw, 1)
}

func bump(c map[int]int, k, d int) {
	if v := c[k] + d; v == 0 {
		delete(c, k)
	} else {
		c[k] = v
	}
}

func sameSlice(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (m *Model) applyTopic(name string, ev *NodeEvent, del bool) {
	ts := m.topicState(name, !del)
	if ts == nil {
		return
	}
	if del {
		if ts.hasNode {
			m.deleteTopic(ts, ev)
		}
		return
	}
	if unchanged(ts.hasNode, ts.t.Mzxid, ev) && ts.t.Czxid == ev.Stat.Czxid {
		return
	}
	a, err := decodedAs(ev, DecodeTopicAssignment)
	m.noteErr(ev.Path, err, ev)
	// Partitions known by state only were not counted globally before the
	// topic znode existed.
	wasVisible := ts.hasNode
	// A new czxid means the topic was deleted and created again meanwhile
	// (seen in reset batches); its state znodes arrive as their own events.
	recreated := wasVisible && ev.Stat.Czxid != 0 && ts.t.Czxid != 0 && ev.Stat.Czxid != ts.t.Czxid
	if recreated {
		m.emit(Change{Kind: ChangeTopicDeleted, Path: ev.Path, Topic: name})
		m.dropStatesBefore(ts, ev.Stat.Czxid)
	}
	created := !wasVisible || recreated
	// After an unreadable assignment there is nothing to compare with.
	compare := !created && ts.t.Err == nil
	t := m.mutable(ts)
	if !wasVisible {
		m.visibleTopics++
	}
	ts.hasNode = true
	t.ID, t.Version, t.Err = a.TopicID, a.Version, err
	t.Czxid, t.Mzxid, t.Ctime, t.Mtime, t.ZkVersion = ev.Stat.Czxid, ev.Stat.Mzxid, ev.Stat.Ctime, ev.Stat.Mtime, ev.Stat.Version

	old := t.Partitions
	parts, added := m.mergeAssignment(name, ev, old, a, compare)
	for _, p := range old {
		m.account(t, p, -1, wasVisible)
	}
	t.Partitions = parts
	for _, p := range parts {
		m.account(t, p, 1, true)
	}
	if created {
		ts.createdBatch = m.batch
		m.topicSetChanged = m.topicSetChanged || !wasVisible
		m.emit(Change{Kind: ChangeTopicCreated, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime,
			Topic: name, TopicID: t.ID, PartitionCount: len(a.Partitions), ReplicationFactor: t.ReplicationFactor()})
	} else if len(added) > 0 {
		m.emit(Change{Kind: ChangePartitionsAdded, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime,
			Topic: name, Partitions: added})
	}
}

// deleteTopic removes the topic znode's contribution. The state znodes are
// its descendants: they are gone too. Config and deletion marker stay.
func (m *Model) deleteTopic(ts *topicState, ev *NodeEvent) {
	name := ts.t.Name
	t := m.mutable(ts)
	for _, p := range t.Partitions {
		m.account(t, p, -1, true)
		if p.StateErr() != nil {
			m.clearErr(PartitionStatePath(name, p.ID))
		}
	}
	t.Partitions = nil
	t.Health = TopicHealth{}
	t.ID, t.Version, t.Err = "", 0, nil
	t.Czxid, t.Mzxid, t.Ctime, t.Mtime, t.ZkVersion = 0, 0, 0, 0, 0
	ts.hasNode = false
	m.visibleTopics--
	m.topicSetChanged = true
	m.clearErr(ev.Path)
	m.emit(Change{Kind: ChangeTopicDeleted, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Topic: name})
	m.dropIfEmpty(ts)
}

// dropStatesBefore deletes the states older than a re-created topic's
// znode (czxid): they belong to the old topic.
func (m *Model) dropStatesBefore(ts *topicState, czxid int64) {
	name := ts.t.Name
	for i := len(ts.t.Partitions) - 1; i >= 0; i-- {
		if p := ts.t.Partitions[i]; p.HasState && p.StateMzxid != 0 && p.StateMzxid < czxid {
			m.applyState(name, p.ID, &NodeEvent{Type: NodeDeleted, Path: PartitionStatePath(name, p.ID)}, true)
		}
	}
}

// mergeAssignment builds the topic's new partition list: the assignment
// plus the partitions known only by their state, in id order, sharing
// every partition that did not change. With compare it also reports the
// partitions the assignment added and emits the reassignment changes.
func (m *Model) mergeAssignment(name string, ev *NodeEvent, old []*Partition, a TopicAssignment, compare bool) ([]*Partition, []int) {
	ids := make([]int, 0, len(a.Partitions)+len(old))
	for p := range a.Partitions {
		ids = append(ids, p)
	}
	for _, p := range old {
		if _, ok := a.Partitions[p.ID]; !ok && p.HasState {
			ids = append(ids, p.ID)
		}
	}
	slices.Sort(ids)
	parts := make([]*Partition, len(ids))
	var added []int
	j := 0
	for i, id := range ids {
		for j < len(old) && old[j].ID < id {
			j++
		}
		hadPrev := j < len(old) && old[j].ID == id
		// prev and np live on the stack: only a partition that changed
		// is allocated (a first load builds 100,000).
		prev := Partition{ID: id, Leader: NoLeader}
		if hadPrev {
			prev = *old[j]
		}
		np := prev
		if r, ok := a.Partitions[id]; ok {
			np.InAssignment = true
			if !slices.Equal(prev.Replicas, r) || !prev.InAssignment {
				np.Replicas = r
			}
			np = np.SetMoves(a.AddingReplicas[id], a.RemovingReplicas[id])
		} else {
			np.InAssignment, np.Replicas = false, nil
			np = np.SetMoves(nil, nil)
		}
		// Partitions are immutable once built: keep sharing an unchanged one.
		if hadPrev && np.InAssignment == prev.InAssignment && slices.Equal(np.Replicas, prev.Replicas) &&
			slices.Equal(np.Adding(), prev.Adding()) && slices.Equal(np.Removing(), prev.Removing()) {
			parts[i] = old[j]
		} else {
			np.born = m.seq + 1
			parts[i] = m.place(np)
		}
		if compare {
			if np.InAssignment && !prev.InAssignment {
				added = append(added, id)
			}
			m.reassignmentChange(name, ev, &prev, &np)
		}
	}
	return parts, added
}

func (m *Model) reassignmentChange(topic string, ev *NodeEvent, prev, np *Partition) {
	was, is := prev.Reassigning(), np.Reassigning()
	c := Change{Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Topic: topic, Partition: np.ID}
	switch {
	case is && (!was || !slices.Equal(prev.Adding(), np.Adding()) || !slices.Equal(prev.Removing(), np.Removing())):
		c.Kind, c.Added, c.Removed = ChangeReassignmentStarted, np.Adding(), np.Removing()
	case was && !is && np.InAssignment:
		c.Kind, c.Replicas = ChangeReassignmentFinished, np.Replicas
	default:
		return
	}
	m.emit(c)
}

// setPartition stores np (replacing the partition with its id), or removes
// the partition when it is neither assigned nor has a state.
func (m *Model) setPartition(ts *topicState, np Partition) {
	np.Replicas, np.ISR = m.ids.of(np.Replicas), m.ids.of(np.ISR)
	t := ts.t
	i, ok := t.find(np.ID)
	keep := np.InAssignment || np.HasState
	switch {
	case ok && keep:
		old := t.Partitions[i]
		m.accountDiff(t, old, &np, ts.hasNode)
		if old.born == m.seq+1 {
			// No snapshot holds it (a partition of this batch, as a
			// topic's state following its assignment in a first load):
			// changed in place rather than copied.
			np.born = old.born
			*old = np
			return
		}
		np.born = m.seq + 1
		t.Partitions[i] = &np
	case ok:
		m.account(t, t.Partitions[i], -1, ts.hasNode)
		t.Partitions = slices.Delete(t.Partitions, i, i+1)
	case keep:
		np.born = m.seq + 1
		p := m.place(np)
		m.account(t, p, 1, ts.hasNode)
		if n := len(t.Partitions); n == 0 || t.Partitions[n-1].ID < np.ID {
			t.Partitions = append(t.Partitions, p)
		} else {
			at, _ := slices.BinarySearchFunc(t.Partitions, np.ID, func(p *Partition, id int) int { return p.ID - id })
			t.Partitions = slices.Insert(t.Partitions, at, p)
		}
	}
}

// partitionBlock is how many new partitions share one allocation.
const partitionBlock = 128

// place stores a partition new to the model in the current block of
// them (with ModelOptions.PackPartitions; alone otherwise): a first load of a million partitions makes 8,000 objects, not a
// million, and the garbage collector visits each object it scans (it was
// most of what a quiet TUI cost). A block lives while any of its
// partitions does; a partition changed later is allocated alone, so the
// blocks never hold more than the partitions first placed in them.
func (m *Model) place(np Partition) *Partition {
	if !m.pack {
		p := new(Partition)
		*p = np
		return p
	}
	if len(m.block) == cap(m.block) {
		m.block = make([]Partition, 0, partitionBlock)
	}
	m.block = append(m.block, np)
	return &m.block[len(m.block)-1]
}

func (m *Model) applyState(name string, id int, ev *NodeEvent, del bool) {
	ts := m.topicState(name, !del)
	if ts == nil {
		return
	}
	i, ok := ts.t.find(id)
	if del {
		if !ok || !ts.t.Partitions[i].HasState {
			return
		}
		t := m.mutable(ts)
		np := *t.Partitions[i]
		np.HasState, np.Leader, np.LeaderEpoch, np.ControllerEpoch, np.ISR = false, NoLeader, 0, 0, nil
		np.LeaderRecoveryState, np.StateVersion, np.StateMzxid, np.StateMtime = 0, 0, 0, 0
		np = np.SetStateErr(nil)
		m.setPartition(ts, np)
		m.clearErr(ev.Path)
		m.dropIfEmpty(ts)
		return
	}
	if ok && unchanged(ts.t.Partitions[i].HasState, ts.t.Partitions[i].StateMzxid, ev) {
		return
	}
	st, err := decodedAs(ev, DecodePartitionState)
	m.noteErr(ev.Path, err, ev)
	t := m.mutable(ts)
	old := Partition{ID: id, Leader: NoLeader}
	if ok {
		old = *t.Partitions[i]
	}
	np := old
	np.HasState, np.StateVersion, np.StateMzxid, np.StateMtime = true, ev.Stat.Version, ev.Stat.Mzxid, ev.Stat.Mtime
	if err == nil {
		np.Leader, np.LeaderEpoch, np.ControllerEpoch = st.Leader, st.LeaderEpoch, st.ControllerEpoch
		np.ISR, np.LeaderRecoveryState = st.ISR, st.LeaderRecoveryState
	} else {
		np.Leader, np.LeaderEpoch, np.ControllerEpoch, np.ISR, np.LeaderRecoveryState = NoLeader, 0, 0, nil, 0
	}
	if !errors.Is(np.StateErr(), err) {
		np = np.SetStateErr(err)
	}
	if err == nil && old.HasState && old.StateErr() == nil && slices.Equal(old.ISR, np.ISR) {
		np.ISR = old.ISR // keep sharing the slice
	}
	m.setPartition(ts, np)
	if err != nil {
		return
	}
	base := Change{Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Topic: name, Partition: id,
		Epoch: np.LeaderEpoch, ISR: np.ISR}
	switch {
	case !old.HasState:
		c := base
		c.Kind, c.Leader, c.Replicas = ChangePartitionAppeared, np.Leader, np.Replicas
		m.emit(c)
	case old.StateErr() != nil:
		// The state was unreadable: there is nothing to compare with.
	default:
		if old.Leader != np.Leader {
			c := base
			c.Kind, c.From, c.To = ChangeLeaderMoved, old.Leader, np.Leader
			m.emit(c)
		}
		m.emitISR(base, old, np)
	}
}

// emitISR emits the ISR's shrink and expansion from old's to np's. When
// one write (or one poll) shows both, each row's ISR is the one after it.
// A move's adding replicas join the ISR before the controller drops the
// replicas it removes: when those that left are no longer replicas, or
// those that joined were being added, the expansion comes first (3,1,2
// +4 → 3,1,2,4, then −3 → 1,2,4); otherwise the shrink does (a replica
// fell out, another caught up).
func (m *Model) emitISR(base Change, old, np Partition) {
	isr := np.ISR
	removed, added := minus(old.ISR, isr), minus(isr, old.ISR)
	shrink, expand := base, base
	shrink.Kind, shrink.Removed = ChangeIsrShrank, removed
	expand.Kind, expand.Added = ChangeIsrExpanded, added
	switch {
	case len(removed) == 0 && len(added) == 0:
	case len(removed) == 0:
		m.emit(expand)
	case len(added) == 0:
		m.emit(shrink)
	case slices.ContainsFunc(added, func(b int) bool { return slices.Contains(old.Adding(), b) }) ||
		!slices.ContainsFunc(removed, func(b int) bool { return slices.Contains(np.Replicas, b) }):
		expand.ISR = append(slices.Clone(old.ISR), added...)
		m.emit(expand)
		m.emit(shrink)
	default:
		shrink.ISR = minus(old.ISR, removed)
		m.emit(shrink)
		m.emit(expand)
	}
}

// minus returns the members of a not in b, in a's order.
func minus(a, b []int) []int {
	var out []int
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func (m *Model) applyConfig(name string, ev *NodeEvent, del bool) {
	ts := m.topicState(name, !del)
	if ts == nil {
		return
	}
	var entries []ConfigEntry
	var cerr error
	if del {
		if !ts.t.HasConfig {
			return
		}
		m.clearErr(ev.Path)
	} else {
		c, err := DecodeEntityConfig(ev.Data)
		m.noteErr(ev.Path, err, ev)
		entries, cerr = c.Config, err
	}
	oldEntries, hadConfig := ts.t.Config, ts.t.HasConfig
	var version int32
	if !del {
		version = ev.Stat.Version
	}
	if !del && hadConfig && slices.Equal(oldEntries, entries) && errString(ts.t.ConfigErr) == errString(cerr) && version == ts.t.ConfigVersion {
		return
	}
	t := m.mutable(ts)
	t.HasConfig, t.Config, t.ConfigErr, t.ConfigVersion = !del, entries, cerr, version
	if throttled := hasConfigKey(entries, TopicThrottleKeys); throttled != m.throttledTopics[name] {
		if throttled {
			m.throttledTopics[name] = true
		} else {
			delete(m.throttledTopics, name)
		}
		m.throttledDirty = true
	}
	minISR, set := m.minISRDefault(), false
	for _, e := range entries {
		if e.Key == ConfigMinInsyncReplicas {
			if v := parseMinISR(e.Value, 0); v > 0 {
				minISR, set = v, true
			}
		}
	}
	if minISR != t.MinISR || set != t.minISRSet {
		for _, p := range t.Partitions {
			m.account(t, p, -1, ts.hasNode)
		}
		t.MinISR, t.minISRSet = minISR, set
		for _, p := range t.Partitions {
			m.account(t, p, 1, ts.hasNode)
		}
	}
	// A config read in the batch that created the topic is part of the
	// creation (the mirror may report it after the topic znode).
	if keys := configDiff(oldEntries, entries); len(keys) > 0 && ts.hasNode && ts.createdBatch != m.batch {
		m.emit(Change{Kind: ChangeConfigChanged, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime,
			Topic: name, Keys: keys})
	}
	if del {
		m.dropIfEmpty(ts)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// configDiff returns the keys added, changed or removed, sorted.
func configDiff(a, b []ConfigEntry) []string {
	am := make(map[string]string, len(a))
	for _, e := range a {
		am[e.Key] = e.Value
	}
	var keys []string
	for _, e := range b {
		if v, ok := am[e.Key]; !ok || v != e.Value {
			keys = append(keys, e.Key)
		}
		delete(am, e.Key)
	}
	for k := range am {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (m *Model) applyMarker(name string, ev *NodeEvent, del bool) {
	ts := m.topicState(name, !del)
	if ts == nil || ts.t.MarkedForDeletion == !del {
		return
	}
	t := m.mutable(ts)
	t.MarkedForDeletion = !del
	m.markersDirty = true
	if del {
		m.dropIfEmpty(ts)
		return
	}
	m.emit(Change{Kind: ChangeTopicMarkedForDeletion, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Topic: name})
}
