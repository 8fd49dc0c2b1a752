package kafkawatch

import (
	"encoding/base64"
	"encoding/binary"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// layout turns successive polls into node events in Kafka's ZooKeeper
// layout: what Kafka's own ZooKeeper-to-KRaft migration writes for the
// same metadata (/brokers/ids/<id>, /brokers/topics/<t> with its
// adding/removing replicas, its partitions' state znodes, /config/topics,
// /config/brokers, /controller, /controller_epoch, /cluster/id). It keeps
// what the previous polls said, so that only what changed becomes an
// event. Stats are synthesized: a counter stands for the zxid (it orders
// the events and tells a re-created topic or a re-registered broker by
// its czxid), the poll's time for ctime and mtime, and a state's version
// counts its changes.
type layout struct {
	zxid int64
	gen  uint64 // poll number: topics not seen in a poll are gone
	// protocol is the security protocol ktopo connects with, standing for
	// the listener name in the brokers' synthesized endpoints.
	protocol string

	clusterID, controller, controllerEpoch node
	quorumEpoch                            int
	brokers                                map[int32]*node
	brokerCfg                              map[string]*node
	topics                                 map[string]*topicNode
	partitions                             int
	// lists holds every replica list the partitions name, once.
	lists lists
	// metaHash is the hash of the topics of the Metadata response applied
	// last (metaResponse.hash).
	metaHash uint64
	// What a poll asks of some topics, kept as the topics change rather
	// than found by looking at every topic every poll: setGen counts the
	// topics created and deleted; fresh are the topics whose configs were
	// never read; unsure those that may have eligible leader replicas
	// (elrTopics).
	setGen uint64
	fresh  map[string]*topicNode
	unsure map[string]*topicNode
	moving map[string]*topicNode // topics with a partition being reassigned

	kraft        *cluster.KRaft
	lastBrokers  []brokerInfo
	fencedListed bool
	quorum       cluster.Quorum
	quorumErr    string
	logDirs      map[int32][2]int
	features     []cluster.Feature
	elrKnown     bool
	inherit      []cluster.ConfigEntry
}

// node is a synthesized znode's last data and stat.
type node struct {
	stat
	data []byte
}

// stat is a synthesized znode's stat: all a node whose data is not kept
// (a partition's state) needs. It holds no pointer, so that a million
// partitions' worth of them is memory the garbage collector never scans.
type stat struct {
	present      bool
	version      int32
	czxid, mzxid int64
	ctime, mtime int64
}

type topicNode struct {
	name string
	id   [16]byte
	gen  uint64
	node node // the topic znode (its data is not kept: rebuilt on change)
	// parts by partition id (Kafka's partitions are 0..n-1).
	parts []partNode
	// config is /config/topics/<t> (not present until its configs were
	// read once).
	config node
	// elr: some partition has eligible leader replicas, or had them;
	// unsure: some partition is under-replicated or without leader (it
	// may get some); reassigning: some partition is being reassigned.
	elr, unsure, reassigning bool
	// hash is the hash of its partitions' bytes in the Metadata response
	// last applied (metaResponse).
	hash uint64
}

// partNode is what the layout keeps of a partition: its replica lists
// as ids of the layout's lists (no pointer: a topic's partNodes are one
// block the garbage collector does not scan; at a million partitions
// slices here were 260 MB of the heap it scanned every collection).
type partNode struct {
	present       bool
	leader, epoch int32
	// replicas are those of its topic znode: the controller's during a
	// reassignment (ListPartitionReassignments, which a broker's metadata
	// may trail), else meta, Metadata's.
	replicas, meta, isr listID
	adding, removing    listID
	elrList, lastKnown  listID
	state               stat
}

// lastPartitions are a topic's partitions as the last poll read them
// from Metadata.
func (l *layout) lastPartitions(tn *topicNode) []kmsg.MetadataResponseTopicPartition {
	ps := make([]kmsg.MetadataResponseTopicPartition, 0, len(tn.parts))
	for i := range tn.parts {
		pn := &tn.parts[i]
		if !pn.present {
			continue
		}
		p := kmsg.NewMetadataResponseTopicPartition()
		p.Partition, p.Leader, p.LeaderEpoch, p.Replicas, p.ISR = int32(i), pn.leader, pn.epoch, l.lists.get(pn.meta), l.lists.get(pn.isr)
		ps = append(ps, p)
	}
	return ps
}

// listID names a replica list held in a layout's lists; 0 is the empty
// list.
type listID uint32

// lists interns replica lists: a cluster's partitions name a few
// distinct lists many times over (6 brokers, replication factor 3: at
// most 120), each held once. Lists are never dropped: there are at most
// as many as partitions ever seen, and far fewer in practice.
type lists struct {
	ids map[string]listID
	all [][]int32 // by id; all[0] is nil
	key []byte    // scratch for lookups
}

// id is xs's id (nil and empty are 0), interning it when new. xs is
// copied: the caller may reuse it.
func (ls *lists) id(xs []int32) listID {
	if len(xs) == 0 {
		return 0
	}
	ls.key = ls.key[:0]
	for _, x := range xs {
		ls.key = binary.BigEndian.AppendUint32(ls.key, uint32(x))
	}
	if id, ok := ls.ids[string(ls.key)]; ok { // no allocation for the lookup
		return id
	}
	if ls.ids == nil {
		ls.ids, ls.all = map[string]listID{}, [][]int32{nil}
	}
	id := listID(len(ls.all))
	ls.ids[string(ls.key)] = id
	ls.all = append(ls.all, slices.Clone(xs))
	return id
}

// get is the list of id (nil for 0). It is shared: never changed.
func (ls *lists) get(id listID) []int32 {
	if id == 0 {
		return nil
	}
	return ls.all[id]
}

func newLayout(protocol string) *layout {
	if protocol == "" {
		protocol = "PLAINTEXT"
	}
	return &layout{protocol: protocol, brokers: map[int32]*node{}, brokerCfg: map[string]*node{},
		topics: map[string]*topicNode{}, fresh: map[string]*topicNode{}, unsure: map[string]*topicNode{}, moving: map[string]*topicNode{}, logDirs: map[int32][2]int{}, quorum: cluster.Quorum{LeaderID: -1}}
}

// out collects a poll's events.
type out struct {
	l      *layout
	ms     int64
	events []cluster.NodeEvent
}

// set records path's new data (creating the node if absent) and emits
// its event; unchanged data emits nothing.
func (o *out) set(n *node, path string, data []byte, denied cluster.Access) {
	if n.present && string(n.data) == string(data) && denied == 0 {
		return
	}
	o.l.zxid++
	typ := cluster.NodeChanged
	if !n.present {
		typ = cluster.NodeCreated
		n.czxid, n.ctime, n.version = o.l.zxid, o.ms, 0
	} else {
		n.version++
	}
	n.present, n.data, n.mzxid, n.mtime = true, data, o.l.zxid, o.ms
	o.events = append(o.events, cluster.NodeEvent{Type: typ, Path: path, Data: data, Denied: denied,
		Stat: cluster.Stat{Czxid: n.czxid, Mzxid: n.mzxid, Ctime: n.ctime, Mtime: n.mtime, Version: n.version}})
}

// setState is set for a topic or state znode, whose data is not kept:
// it goes to the model as its value (NodeEvent.Value), never encoded.
func (o *out) setState(n *stat, path string, value any) {
	o.l.zxid++
	typ := cluster.NodeChanged
	if !n.present {
		typ = cluster.NodeCreated
		n.czxid, n.ctime, n.version = o.l.zxid, o.ms, 0
	} else {
		n.version++
	}
	n.present, n.mzxid, n.mtime = true, o.l.zxid, o.ms
	o.events = append(o.events, cluster.NodeEvent{Type: typ, Path: path, Value: value,
		Stat: cluster.Stat{Czxid: n.czxid, Mzxid: n.mzxid, Ctime: n.ctime, Mtime: n.mtime, Version: n.version}})
}

// del emits the deletion of a present node.
func (o *out) del(n *node, path string) {
	o.delStat(&n.stat, path)
	n.data = nil
}

// delStat is del for a node whose data is not kept.
func (o *out) delStat(n *stat, path string) {
	if !n.present {
		return
	}
	o.l.zxid++
	o.events = append(o.events, cluster.NodeEvent{Type: cluster.NodeDeleted, Path: path,
		Stat: cluster.Stat{Mzxid: o.l.zxid, Mtime: o.ms}})
	*n = stat{}
}

// apply folds a poll into the layout and returns its events (in write
// order), the KRaft facts when they changed, and the eligible leader
// replicas that changed.
func (l *layout) apply(v *view) ([]cluster.NodeEvent, *cluster.KRaft, []cluster.PartitionELR) {
	o := &out{l: l, ms: v.at.UnixMilli()}
	if !v.cont {
		l.gen++
	}
	if v.clusterID != "" {
		o.set(&l.clusterID, cluster.ClusterIDPath, cluster.EncodeClusterID(v.clusterID), 0)
	}
	l.applyQuorum(o, v)
	if v.hasTopics && !v.cont {
		l.applyBrokers(o, v)
	}
	l.applyBrokerConfigs(o, v)
	elr := l.applyTopics(o, v)
	if v.features != nil {
		l.features = v.features
	}
	if v.logDirs != nil {
		l.logDirs = v.logDirs
	}
	if v.inherited != nil {
		l.inherit = v.inherited.update(l.inherit)
	}
	if v.hasTopics && !v.cont {
		l.lastBrokers, l.fencedListed = v.brokers, v.fencedListed
	}
	l.noteQuorum(v)
	l.elrKnown = l.elrKnown || v.elrKnown
	return o.events, l.facts(), elr
}

func (l *layout) applyQuorum(o *out, v *view) {
	q := v.quorum
	if q == nil {
		return // unknown this poll: the last known leader stays
	}
	if q.LeaderID < 0 {
		o.del(&l.controller, cluster.ControllerPath)
		return
	}
	l.quorumEpoch = int(q.LeaderEpoch)
	ci := cluster.ControllerInfo{Version: 2, BrokerID: int(q.LeaderID), KRaftControllerEpoch: int(q.LeaderEpoch)}
	if l.controller.present {
		if old, err := cluster.DecodeController(l.controller.data); err == nil && old.BrokerID == ci.BrokerID && old.KRaftControllerEpoch == ci.KRaftControllerEpoch {
			ci.Timestamp = old.Timestamp
		}
	}
	if ci.Timestamp == "" {
		ci.Timestamp = strconv.FormatInt(o.ms, 10)
	}
	o.set(&l.controllerEpoch, cluster.ControllerEpochPath, cluster.EncodeControllerEpoch(int(q.LeaderEpoch)), 0)
	o.set(&l.controller, cluster.ControllerPath, cluster.EncodeController(ci), 0)
}

// applyBrokers: a live broker (unfenced) has a registration znode; a
// fenced or gone one has none, as a ZooKeeper-mode broker whose session
// ended. Becoming live again is a new registration (a new czxid, Kafka's
// broker epoch).
func (l *layout) applyBrokers(o *out, v *view) {
	live := make(map[int32]bool, len(v.brokers))
	for _, b := range v.brokers {
		if b.fenced {
			continue
		}
		live[b.id] = true
		rack := ""
		if b.rack != nil {
			rack = *b.rack
		}
		ep := cluster.BrokerEndpoint{Listener: l.protocol, SecurityProtocol: l.protocol, Host: b.host, Port: int(b.port)}
		reg := cluster.NewBrokerRegistration(5, []cluster.BrokerEndpoint{ep}, -1, rack, 0, nil)
		if b.rack != nil && rack == "" {
			reg.Rack, reg.RackPresence = "", cluster.Present
		}
		reg.Timestamp = "" // KRaft does not say when a broker registered
		n := l.brokers[b.id]
		if n == nil {
			n = &node{}
			l.brokers[b.id] = n
		}
		o.set(n, cluster.BrokerIDPath(int(b.id)), cluster.EncodeBroker(reg), 0)
	}
	for id, n := range l.brokers {
		if !live[id] {
			o.del(n, cluster.BrokerIDPath(int(id)))
			delete(l.brokers, id)
		}
	}
}

func (l *layout) applyBrokerConfigs(o *out, v *view) {
	for entity, c := range v.brokerConfigs {
		n := l.brokerCfg[entity]
		if n == nil {
			n = &node{}
			l.brokerCfg[entity] = n
		}
		path := cluster.ConfigBrokersPath + "/" + entity
		switch {
		case cluster.IsDenied(c.err):
			o.set(n, path, nil, cluster.NoData)
		case c.err != nil:
			// Kept as last read.
		case len(c.entries) == 0:
			o.del(n, path)
		default:
			o.set(n, path, cluster.EncodeEntityConfigEntries(c.entries), 0)
		}
	}
}

func topicID(id [16]byte) string {
	if id == ([16]byte{}) {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(id[:])
}

func ints(xs []int32) []int {
	if xs == nil {
		return nil
	}
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

// applyTopics diffs the topics and their partitions (when the poll read
// them), then applies the configs and eligible leader replicas read; it
// returns the eligible leader replicas that changed.
func (l *layout) applyTopics(o *out, v *view) []cluster.PartitionELR {
	if v.hasTopics && v.sameTopics {
		l.keepTopics(o, v)
	} else if v.hasTopics {
		total := 0
		for i := range v.topics {
			mt := &v.topics[i]
			name := mt.name
			tn := l.topics[name]
			if tn != nil && tn.id == mt.id && !mt.changed() && !(v.reassign != nil && (tn.reassigning || v.reassign[name] != nil)) {
				tn.gen = l.gen // as it was: nothing to look at
				total += len(tn.parts)
				continue
			}
			var ps []kmsg.MetadataResponseTopicPartition
			if tn != nil && tn.id == mt.id && !mt.changed() {
				// Only its reassignment may have changed: the partitions
				// are those of the last poll (the response's bytes were
				// not copied, as they equal them).
				ps = l.lastPartitions(tn)
			} else {
				ps = mt.partitions()
			}
			if mt.err != 0 && len(ps) == 0 {
				// A topic being created, or one the broker could not
				// describe this time: as it was.
				if tn != nil {
					tn.gen = l.gen
					total += len(tn.parts)
				}
				continue
			}
			if tn != nil && tn.id != mt.id {
				l.deleteTopic(o, tn) // deleted and created again since
				tn = nil
			}
			if tn == nil {
				tn = &topicNode{name: name, id: mt.id}
				l.topics[name] = tn
				l.fresh[name] = tn
				l.setGen++
			}
			tn.gen, tn.hash = l.gen, mt.hash
			total += len(ps)
			l.applyPartitions(o, v, tn, ps)
		}
		if !v.more { // the poll's last topics: those it did not list are gone
			for _, tn := range l.topics {
				if tn.gen != l.gen {
					l.deleteTopic(o, tn)
				}
			}
		}
		if v.cont {
			total += l.partitions
		}
		l.partitions = total
		if !v.more {
			l.metaHash = v.metaHash
		}
	}
	for name, c := range v.configs {
		tn := l.topics[name]
		if tn == nil {
			continue
		}
		path := cluster.TopicConfigPath(name)
		switch {
		case cluster.IsDenied(c.err):
			o.set(&tn.config, path, nil, cluster.NoData)
		case c.err == nil:
			o.set(&tn.config, path, cluster.EncodeEntityConfigEntries(c.entries), 0)
		}
		if tn.config.present {
			delete(l.fresh, name)
		}
	}
	var elr []cluster.PartitionELR
	for name, ps := range v.elr {
		tn := l.topics[name]
		if tn == nil {
			continue
		}
		tn.elr = false
		for j := range ps {
			p := &ps[j]
			if int(p.Partition) >= len(tn.parts) {
				continue
			}
			pn := &tn.parts[p.Partition]
			if len(p.EligibleLeaderReplicas) > 0 || len(p.LastKnownELR) > 0 {
				tn.elr = true
			}
			if e, k := l.lists.id(p.EligibleLeaderReplicas), l.lists.id(p.LastKnownELR); e != pn.elrList || k != pn.lastKnown {
				pn.elrList, pn.lastKnown = e, k
				elr = append(elr, cluster.PartitionELR{Topic: name, Partition: int(p.Partition),
					ELR: ints(l.lists.get(e)), LastKnownELR: ints(l.lists.get(k))})
			}
		}
		l.noteUnsure(tn)
	}
	return elr
}

// keepTopics is applyTopics's part for a poll whose Metadata listed the
// topics and partitions as the one before: every topic stays, and only
// the reassignments, read apart, may have changed: those of the topics
// being reassigned, or listed as such now. (The topics' generations are
// left: the next poll that reads the topics sets those it lists, and
// finds gone those it does not.)
func (l *layout) keepTopics(o *out, v *view) {
	if v.reassign == nil {
		return
	}
	var moving []*topicNode
	for _, tn := range l.moving {
		moving = append(moving, tn)
	}
	for name := range v.reassign {
		if tn := l.topics[name]; tn != nil && l.moving[name] == nil {
			moving = append(moving, tn)
		}
	}
	slices.SortFunc(moving, func(a, b *topicNode) int { return strings.Compare(a.name, b.name) })
	for _, tn := range moving {
		l.applyPartitions(o, v, tn, l.lastPartitions(tn))
	}
}

// applyPartitions emits the topic znode when its assignment changed, then
// the state znodes that changed.
func (l *layout) applyPartitions(o *out, v *view, tn *topicNode, ps []kmsg.MetadataResponseTopicPartition) {
	slices.SortFunc(ps, func(a, b kmsg.MetadataResponseTopicPartition) int { return int(a.Partition - b.Partition) })
	n := 0
	if len(ps) > 0 {
		n = int(ps[len(ps)-1].Partition) + 1
	}
	assignChanged := !tn.node.present
	if n < len(tn.parts) {
		for id := n; id < len(tn.parts); id++ {
			o.delStat(&tn.parts[id].state, cluster.PartitionStatePath(tn.name, id))
		}
		tn.parts = tn.parts[:n]
		assignChanged = true
	}
	if n > len(tn.parts) {
		tn.parts = append(tn.parts, make([]partNode, n-len(tn.parts))...)
	}
	reassign := v.reassign[tn.name]
	tn.unsure, tn.reassigning = false, false
	ls := &l.lists
	for i := range ps {
		p := &ps[i]
		pn := &tn.parts[p.Partition]
		adding, removing := pn.adding, pn.removing
		pn.meta = ls.id(p.Replicas)
		replicas := pn.meta
		if v.reassign != nil {
			r, listed := reassign[p.Partition]
			adding, removing = ls.id(r.adding), ls.id(r.removing)
			if listed && len(r.replicas) > 0 {
				replicas = ls.id(r.replicas)
			}
		}
		if !pn.present || pn.replicas != replicas || pn.adding != adding || pn.removing != removing {
			pn.replicas, pn.adding, pn.removing = replicas, adding, removing
			assignChanged = true
		}
		tn.reassigning = tn.reassigning || adding != 0 || removing != 0
		tn.unsure = tn.unsure || p.Leader < 0 || len(p.ISR) < len(p.Replicas)
	}
	l.noteUnsure(tn)
	if tn.reassigning {
		l.moving[tn.name] = tn
	} else {
		delete(l.moving, tn.name)
	}
	if assignChanged {
		a := cluster.NewTopicAssignment(make(map[int][]int, len(ps)), topicID(tn.id))
		for i := range ps {
			pn := &tn.parts[ps[i].Partition]
			id := int(ps[i].Partition)
			a.Partitions[id] = ints(ls.get(pn.replicas))
			if pn.adding != 0 {
				a.AddingReplicas[id] = ints(ls.get(pn.adding))
			}
			if pn.removing != 0 {
				a.RemovingReplicas[id] = ints(ls.get(pn.removing))
			}
		}
		tn.node.data = nil
		o.setState(&tn.node.stat, cluster.TopicPath(tn.name), &a)
	}
	for i := range ps {
		p := &ps[i]
		pn := &tn.parts[p.Partition]
		isr := ls.id(p.ISR)
		if pn.present && pn.leader == p.Leader && pn.epoch == p.LeaderEpoch && pn.isr == isr {
			continue
		}
		pn.present, pn.leader, pn.epoch, pn.isr = true, p.Leader, p.LeaderEpoch, isr
		st := cluster.PartitionState{Version: 1, ControllerEpoch: l.quorumEpoch, Leader: int(p.Leader), LeaderEpoch: int(p.LeaderEpoch), ISR: ints(p.ISR)}
		if st.ISR == nil {
			st.ISR = []int{}
		}
		o.setState(&pn.state, cluster.PartitionStatePath(tn.name, int(p.Partition)), &st)
	}
}

// deleteTopic emits a topic's deletion: its states, its znode, its config.
func (l *layout) deleteTopic(o *out, tn *topicNode) {
	for id := range tn.parts {
		o.delStat(&tn.parts[id].state, cluster.PartitionStatePath(tn.name, id))
	}
	o.del(&tn.node, cluster.TopicPath(tn.name))
	o.del(&tn.config, cluster.TopicConfigPath(tn.name))
	delete(l.topics, tn.name)
	delete(l.fresh, tn.name)
	delete(l.unsure, tn.name)
	delete(l.moving, tn.name)
	l.setGen++
}

// facts builds the KRaft facts from what the polls said last; nil when
// they are those the layout gave last.
func (l *layout) facts() *cluster.KRaft {
	k := &cluster.KRaft{FencedListed: l.fencedListed, Features: l.features, ELR: l.elrKnown,
		InheritedConfigs: l.inherit, CordonKnown: len(l.logDirs) > 0, Quorum: l.quorum, QuorumErr: l.quorumErr}
	for _, b := range l.lastBrokers {
		kb := cluster.KRaftBroker{ID: int(b.id), Fenced: b.fenced, Host: b.host, Port: int(b.port)}
		if b.rack != nil {
			kb.Rack, kb.HasRack = *b.rack, true
		}
		if d, ok := l.logDirs[b.id]; ok {
			kb.CordonedDirs, kb.Dirs = d[0], d[1]
			kb.Cordoned = d[1] > 0 && d[0] == d[1]
		}
		k.Brokers = append(k.Brokers, kb)
	}
	if l.kraft != nil && reflect.DeepEqual(l.kraft, k) {
		return nil
	}
	l.kraft = k
	return k
}

// noteQuorum keeps what a poll said of the quorum (nothing when it did
// not ask).
func (l *layout) noteQuorum(v *view) {
	switch {
	case v.quorumErr != nil && cluster.IsDenied(v.quorumErr):
		l.quorum, l.quorumErr = cluster.Quorum{LeaderID: -1}, cluster.NoAccessText
	case v.quorumErr != nil:
		l.quorum, l.quorumErr = cluster.Quorum{LeaderID: -1}, v.quorumErr.Error()
	case v.quorum != nil:
		q := v.quorum
		end := int64(-1) // the leader's log end
		for _, r := range q.CurrentVoters {
			if r.ReplicaID == q.LeaderID {
				end = r.LogEndOffset
			}
		}
		l.quorum = cluster.Quorum{LeaderID: int(q.LeaderID), LeaderEpoch: int(q.LeaderEpoch),
			Voters: replicas(q.CurrentVoters, end), Observers: replicas(q.Observers, end)}
		l.quorumErr = ""
	}
}

// replicas are quorum members with their lag behind end, the leader's
// log end (kafka-metadata-quorum --replication's Lag).
func replicas(rs []kmsg.DescribeQuorumResponseTopicPartitionReplicaState, end int64) []cluster.QuorumReplica {
	out := make([]cluster.QuorumReplica, 0, len(rs))
	for _, r := range rs {
		lag := int64(-1)
		if end >= 0 && r.LogEndOffset >= 0 {
			lag = max(end-r.LogEndOffset, 0)
		}
		out = append(out, cluster.QuorumReplica{ID: int(r.ReplicaID), Lag: lag})
	}
	slices.SortFunc(out, func(a, b cluster.QuorumReplica) int { return a.ID - b.ID })
	return out
}

// noteUnsure keeps l.unsure as tn's flags say.
func (l *layout) noteUnsure(tn *topicNode) {
	if tn.unsure || tn.elr {
		l.unsure[tn.name] = tn
	} else {
		delete(l.unsure, tn.name)
	}
}

// elrTopics are the topics to describe for their eligible leader
// replicas: those with a partition under-replicated or without leader
// (as the layout holds them), or with eligible leader replicas last time
// (to see them go).
func (l *layout) elrTopics() []string {
	var out []string
	for name := range l.unsure {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// names are the topics the layout holds, sorted.
func (l *layout) names() []string {
	out := make([]string, 0, len(l.topics))
	for name := range l.topics {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// liveBrokers are the unfenced brokers of the last poll.
func (l *layout) liveBrokers() []int32 {
	ids := make([]int32, 0, len(l.lastBrokers))
	for _, b := range l.lastBrokers {
		if !b.fenced {
			ids = append(ids, b.id)
		}
	}
	return ids
}
