package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// WriteList prints topic names, one per line, sorted; topics marked for
// deletion are followed by " - marked for deletion" (kafka-topics --list
// in ZooKeeper mode).
func WriteList(w io.Writer, s *cluster.Snapshot, f cluster.TopicFilter) error {
	var b strings.Builder
	if s.Access(cluster.BrokerTopicsPath)&cluster.NoChildren != 0 {
		b.WriteString(unlistedTopics + "\n")
	}
	for _, t := range f.Topics(s) {
		b.WriteString(t.Name)
		if t.MarkedForDeletion {
			b.WriteString(" - marked for deletion")
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DescribeFilter holds kafka-topics' report options: when any is set, only
// partitions matching at least one are printed, without topic lines.
type DescribeFilter struct {
	UnderReplicated bool
	Unavailable     bool
	UnderMinISR     bool
}

func (d DescribeFilter) any() bool { return d.UnderReplicated || d.Unavailable || d.UnderMinISR }

func (d DescribeFilter) match(s *cluster.Snapshot, t *cluster.Topic, p *cluster.Partition) bool {
	if !d.any() {
		return true
	}
	noLeader := !p.HasLeader()
	return d.UnderReplicated && p.UnderReplicated() ||
		d.Unavailable && (noLeader || !s.IsLive(p.Leader)) ||
		d.UnderMinISR && (noLeader || p.UnderMinISR(s.MinISR(t, p)))
}

// WriteDescribe prints topics in kafka-topics --describe format (the 3.x
// layout, ZooKeeper mode): a topic line
//
//	Topic: <t>	TopicId: <id>	PartitionCount: <n>	ReplicationFactor: <rf>	Configs: <k=v,…>[	MarkedForDeletion: true]
//
// then one line per partition, sorted by id:
//
//	<TAB>Topic: <t>	Partition: <p>	Leader: <id|none>	Replicas: <a,b>	Isr: <a,b>[	Adding Replicas: …	Removing Replicas: …][	MarkedForDeletion: true]
//
// With report options only matching partition lines are printed.
//
// A KRaft cluster is described as kafka-topics --bootstrap-server does:
// Configs are every topic config whose value is not Kafka's default (the
// topic's overrides and what it inherits from the brokers), and each
// partition line ends with its eligible leader replicas (Elr and
// LastKnownElr, "N/A" where the cluster does not report them).
func WriteDescribe(w io.Writer, s *cluster.Snapshot, f cluster.TopicFilter, d DescribeFilter) error {
	return WriteDescribeSizes(w, s, f, d, nil)
}

// WriteDescribeSizes is WriteDescribe with the replicas' sizes (sz not
// nil: topics describe --sizes): the topic line ends with its Size (one
// copy: its partitions' largest replicas) and SizeOnDisk (every replica),
// each partition line with its Size and ReplicaSizes (broker=size, in the
// order of Replicas), in binary units; "?" where no broker reported one. A
// last line says why sizes are unknown, or which brokers did not answer.
func WriteDescribeSizes(w io.Writer, s *cluster.Snapshot, f cluster.TopicFilter, d DescribeFilter, sz *cluster.Sizes) error {
	var b strings.Builder
	if s.Access(cluster.BrokerTopicsPath)&cluster.NoChildren != 0 {
		b.WriteString(unlistedTopics + "\n")
	}
	for _, t := range f.Topics(s) {
		hidden := s.Access(cluster.TopicPath(t.Name))&cluster.NoData != 0
		if !d.any() {
			b.WriteString("Topic: " + t.Name)
			configs := configString(t)
			if k := s.KRaft(); k != nil {
				configs = kraftConfigString(t, k)
			}
			if s.Access(cluster.TopicConfigPath(t.Name))&cluster.NoData != 0 {
				configs = NoAccess
			}
			switch {
			case hidden:
				// The assignment is unreadable: what it holds is unknown, not empty.
				fmt.Fprintf(&b, "\tTopicId: %s\tPartitionCount: %s\tReplicationFactor: %s\tConfigs: %s", NoAccess, NoAccess, NoAccess, configs)
			default:
				if t.ID != "" {
					b.WriteString("\tTopicId: " + t.ID)
				}
				fmt.Fprintf(&b, "\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: %s", assigned(t), t.ReplicationFactor(), configs)
			}
			if t.MarkedForDeletion {
				b.WriteString("\tMarkedForDeletion: true")
			}
			if sz != nil {
				size, disk := "?", "?"
				if dk, data, ok := sz.TopicBytes(t.Name); ok {
					size, disk = cluster.FormatBytes(data), cluster.FormatBytes(dk)
				}
				b.WriteString("\tSize: " + size + "\tSizeOnDisk: " + disk)
			}
			b.WriteByte('\n')
		}
		for i := range t.Partitions {
			p := t.Partitions[i]
			if !p.InAssignment || !d.match(s, t, p) {
				continue
			}
			leader, isr := "none", text.Ints(p.ISR)
			if p.HasLeader() {
				leader = strconv.Itoa(p.Leader)
			}
			if s.Access(cluster.PartitionStatePath(t.Name, p.ID))&cluster.NoData != 0 {
				leader, isr = NoAccess, NoAccess
			}
			fmt.Fprintf(&b, "\tTopic: %s\tPartition: %d\tLeader: %s\tReplicas: %s\tIsr: %s", t.Name, p.ID, leader, text.Ints(p.Replicas), isr)
			if p.Reassigning() {
				fmt.Fprintf(&b, "\tAdding Replicas: %s\tRemoving Replicas: %s", text.Ints(p.Adding()), text.Ints(p.Removing()))
			}
			if k := s.KRaft(); k != nil {
				elr, last := "N/A", "N/A"
				if k.ELR {
					elr, last = text.Ints(p.ELR()), text.Ints(p.LastKnownELR())
				}
				fmt.Fprintf(&b, "\tElr: %s\tLastKnownElr: %s", elr, last)
			}
			if t.MarkedForDeletion {
				b.WriteString("\tMarkedForDeletion: true")
			}
			if sz != nil {
				writePartitionSizes(&b, sz, t.Name, p)
			}
			b.WriteByte('\n')
		}
	}
	if sz != nil {
		b.WriteString(sizesNote(sz))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writePartitionSizes ends a partition line with its sizes.
func writePartitionSizes(b *strings.Builder, sz *cluster.Sizes, topic string, p *cluster.Partition) {
	size := "?"
	if n, ok := sz.PartitionBytes(topic, p.ID); ok {
		size = cluster.FormatBytes(n)
	}
	parts := make([]string, 0, len(p.Replicas))
	for _, id := range p.Replicas {
		v := "?"
		if r, ok := sz.Replica(topic, p.ID, id); ok {
			v = cluster.FormatBytes(r.Bytes)
		}
		parts = append(parts, strconv.Itoa(id)+"="+v)
	}
	if ps, ok := sz.Partition(topic, p.ID); ok {
		for _, r := range ps.Replicas {
			if r.Future {
				parts = append(parts, strconv.Itoa(int(r.Broker))+"(future)="+cluster.FormatBytes(r.Bytes))
			}
		}
	}
	b.WriteString("\tSize: " + size + "\tReplicaSizes: " + strings.Join(parts, ","))
}

// sizesNote is the line under a table with sizes: why they are unknown,
// or the brokers that did not answer ("" when all did).
func sizesNote(sz *cluster.Sizes) string {
	if !sz.Known() {
		return "Note: " + sz.Why() + "\n"
	}
	if len(sz.Unreached) == 0 {
		return ""
	}
	ids := slices.Sorted(maps.Keys(sz.Unreached))
	var parts []string
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf("broker %d: %s", id, sz.Unreached[id]))
	}
	return "Note: sizes incomplete, not answered by " + strings.Join(parts, "; ") + "\n"
}

func assigned(t *cluster.Topic) int {
	n := 0
	for i := range t.Partitions {
		if t.Partitions[i].InAssignment {
			n++
		}
	}
	return n
}

func configString(t *cluster.Topic) string {
	parts := make([]string, len(t.Config))
	for i, e := range t.Config {
		parts[i] = e.Key + "=" + e.Value
	}
	return strings.Join(parts, ",")
}

// kraftConfigString is a KRaft topic's configs as kafka-topics lists
// them: its overrides and the non-default values it inherits, by key.
func kraftConfigString(t *cluster.Topic, k *cluster.KRaft) string {
	m := map[string]string{}
	for _, e := range k.InheritedConfigs {
		m[e.Key] = e.Value
	}
	for _, e := range t.Config {
		m[e.Key] = e.Value
	}
	parts := make([]string, 0, len(m))
	for _, key := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, key+"="+m[key])
	}
	return strings.Join(parts, ",")
}

// describeJSON is --output json of topics describe.
type describeJSON struct {
	Name              string            `json:"name"`
	ID                string            `json:"topicId,omitempty"`
	PartitionCount    int               `json:"partitionCount"`
	ReplicationFactor int               `json:"replicationFactor"`
	Configs           map[string]string `json:"configs"`
	MarkedForDeletion bool              `json:"markedForDeletion"`
	Partitions        []partitionJSON   `json:"partitions"`
	Error             string            `json:"error,omitempty"`
	// Bytes (one copy: the partitions' largest replicas) and DiskBytes
	// (every replica) are set with --sizes when a broker reported them.
	Bytes     *int64 `json:"bytes,omitempty"`
	DiskBytes *int64 `json:"diskBytes,omitempty"`
	// NoAccess lists the topic's znodes ZooKeeper's ACLs keep from this
	// session: what they hold is unknown (not empty).
	NoAccess []string `json:"noAccess,omitempty"`
}

type partitionJSON struct {
	Partition       int    `json:"partition"`
	Leader          *int   `json:"leader"`
	Replicas        []int  `json:"replicas"`
	ISR             []int  `json:"isr"`
	LeaderEpoch     int    `json:"leaderEpoch"`
	Adding          []int  `json:"addingReplicas,omitempty"`
	Removing        []int  `json:"removingReplicas,omitempty"`
	UnderReplicated bool   `json:"underReplicated"`
	Unavailable     bool   `json:"unavailable"`
	UnderMinISR     bool   `json:"underMinIsr"`
	State           string `json:"state"`
	Error           string `json:"error,omitempty"`
	// Bytes is the largest replica's size and ReplicaSizes every replica
	// a broker reported (--sizes).
	Bytes        *int64            `json:"bytes,omitempty"`
	ReplicaSizes []replicaSizeJSON `json:"replicaSizes,omitempty"`
}

type replicaSizeJSON struct {
	Broker    int   `json:"broker"`
	Bytes     int64 `json:"bytes"`
	OffsetLag int64 `json:"offsetLag"`
	Future    bool  `json:"future,omitempty"`
}

// WriteDescribeJSON prints {"topics":[…]} with the same selection as
// WriteDescribe (report options select partitions; topics without a
// matching partition are left out).
func WriteDescribeJSON(w io.Writer, s *cluster.Snapshot, f cluster.TopicFilter, d DescribeFilter) error {
	return WriteDescribeSizesJSON(w, s, f, d, nil)
}

// WriteDescribeSizesJSON is WriteDescribeJSON with the sizes, in bytes
// (sz not nil): each topic's and partition's bytes, each replica's, and
// "sizesError" or "sizesUnreached" at the end where they are unknown.
func WriteDescribeSizesJSON(w io.Writer, s *cluster.Snapshot, f cluster.TopicFilter, d DescribeFilter, sz *cluster.Sizes) error {
	// Streamed a topic at a time (the same bytes as encoding the whole
	// {"topics":[...]} object): 100,000 partitions need no copy of the
	// whole document in memory.
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"topics":[`)
	n := 0
	for _, t := range f.Topics(s) {
		dj := describeJSON{Name: t.Name, ID: t.ID, PartitionCount: assigned(t), ReplicationFactor: t.ReplicationFactor(),
			Configs: map[string]string{}, MarkedForDeletion: t.MarkedForDeletion, Partitions: []partitionJSON{}}
		if t.Err != nil {
			dj.Error = t.Err.Error()
		}
		dj.NoAccess = s.TopicAccess(t)
		if len(dj.NoAccess) > 0 && s.Access(cluster.TopicPath(t.Name))&cluster.NoData != 0 {
			dj.Error = ""
		}
		for _, e := range t.Config {
			dj.Configs[e.Key] = e.Value
		}
		if disk, data, ok := sz.TopicBytes(t.Name); ok {
			dj.Bytes, dj.DiskBytes = &data, &disk
		}
		for i := range t.Partitions {
			p := t.Partitions[i]
			if !p.InAssignment || !d.match(s, t, p) {
				continue
			}
			pj := partitionJSON{Partition: p.ID, Replicas: nonNil(p.Replicas), ISR: nonNil(p.ISR), LeaderEpoch: p.LeaderEpoch,
				Adding: p.Adding(), Removing: p.Removing(), UnderReplicated: p.UnderReplicated(),
				Unavailable: !p.HasLeader() || !s.IsLive(p.Leader), UnderMinISR: !p.HasLeader() || p.UnderMinISR(s.MinISR(t, p)),
				State: partitionState(s, p)}
			if p.HasLeader() {
				l := p.Leader
				pj.Leader = &l
			}
			if p.StateErr() != nil && s.Access(cluster.PartitionStatePath(t.Name, p.ID)) == 0 {
				pj.Error = p.StateErr().Error()
			}
			if ps, ok := sz.Partition(t.Name, p.ID); ok {
				if n, ok := ps.Largest(); ok {
					pj.Bytes = &n
				}
				for _, r := range ps.Replicas {
					pj.ReplicaSizes = append(pj.ReplicaSizes, replicaSizeJSON{Broker: int(r.Broker), Bytes: r.Bytes, OffsetLag: r.OffsetLag, Future: r.Future})
				}
			}
			dj.Partitions = append(dj.Partitions, pj)
		}
		if d.any() && len(dj.Partitions) == 0 {
			continue
		}
		b, err := json.Marshal(dj)
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	bw.WriteString("]")
	if err := writeSizesTail(bw, sz); err != nil {
		return err
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// writeSizesTail adds "sizesError" (why no size is known) or
// "sizesUnreached" (the brokers that did not answer, with why) to a JSON
// object being written.
func writeSizesTail(bw *bufio.Writer, sz *cluster.Sizes) error {
	if sz == nil {
		return nil
	}
	var tail any
	switch {
	case !sz.Known():
		tail = struct {
			E string `json:"sizesError"`
		}{sz.Why()}
	case len(sz.Unreached) > 0:
		tail = struct {
			U map[int]string `json:"sizesUnreached"`
		}{sz.Unreached}
	default:
		return nil
	}
	b, err := json.Marshal(tail)
	if err != nil {
		return err
	}
	bw.WriteByte(',')
	_, err = bw.Write(b[1 : len(b)-1])
	return err
}

// partitionState names a partition's state as the controller would.
func partitionState(s *cluster.Snapshot, p *cluster.Partition) string {
	switch {
	case !p.HasState:
		return "New"
	case !p.HasLeader() || !s.IsLive(p.Leader):
		return "Offline"
	}
	return "Online"
}

func nonNil(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}

// WriteBrokers prints the registered brokers (and offline brokers that hold
// replicas) as a table: id, rack, endpoints, controller marker, JSON
// version, registration time, replicas and leaders.
//
// A KRaft cluster's brokers have no registration JSON or time: their
// table has a STATE column instead (online, fenced, cordoned, offline).
func WriteBrokers(w io.Writer, s *cluster.Snapshot) error {
	return WriteBrokersSizes(w, s, nil)
}

// WriteBrokersSizes is WriteBrokers with each broker's sizes (sz not nil:
// brokers --sizes): the bytes its replicas hold (BYTES), and its log
// directories' volumes, used and usable (DISK USED, DISK USABLE: "-"
// before Kafka 3.3, which does not report them); a broker that did not
// answer reads "?", and a line under the table says why.
func WriteBrokersSizes(w io.Writer, s *cluster.Snapshot, sz *cluster.Sizes) error {
	if s.KRaft() != nil {
		return writeKRaftBrokers(w, s, sz)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRACK\tENDPOINTS\tCONTROLLER\tVERSION\tREGISTERED\tREPLICAS\tLEADERS"+sizesHeader(sz))
	if s.Access(cluster.BrokerIDsPath)&cluster.NoChildren != 0 {
		fmt.Fprintf(tw, "?\t%s\t%s to %s: the registered brokers cannot be listed\n", NoAccess, NoAccess, cluster.BrokerIDsPath)
	}
	ctrl := s.Controller()
	for _, b := range s.Brokers() {
		rack := "-"
		if b.HasRack {
			rack = b.Rack
		}
		eps := make([]string, 0, len(b.Registration.Endpoints))
		for _, e := range b.Registration.Endpoints {
			eps = append(eps, e.String())
		}
		endpoints := strings.Join(eps, ",")
		version, registered := strconv.Itoa(b.Registration.Version), "-"
		switch {
		case !b.Live:
			endpoints, version = "(offline: not registered)", "-"
		case s.Access(cluster.BrokerIDPath(b.ID))&cluster.NoData != 0:
			rack, endpoints, version = NoAccess, NoAccess+" to "+cluster.BrokerIDPath(b.ID), "-"
		case b.Err != nil:
			endpoints = "(bad registration: " + b.Err.Error() + ")"
		}
		if b.Live && b.RegisteredAt > 0 {
			registered = time.UnixMilli(b.RegisteredAt).UTC().Format("2006-01-02 15:04:05Z")
		}
		marker := ""
		if b.IsController {
			marker = "yes (epoch " + strconv.Itoa(ctrl.Epoch) + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d%s\n", b.ID, rack, endpoints, marker, version, registered, b.Replicas, b.Leaders, sizesCells(sz, b.ID))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeSizesNote(w, sz)
}

func writeSizesNote(w io.Writer, sz *cluster.Sizes) error {
	if sz == nil {
		return nil
	}
	_, err := io.WriteString(w, sizesNote(sz))
	return err
}

func sizesHeader(sz *cluster.Sizes) string {
	if sz == nil {
		return ""
	}
	return "\tBYTES\tDISK USED\tDISK USABLE"
}

// sizesCells are a broker's size columns.
func sizesCells(sz *cluster.Sizes, id int) string {
	if sz == nil {
		return ""
	}
	d, ok := sz.Broker(id)
	if !ok {
		return "\t?\t?\t?"
	}
	used, usable := "-", "-"
	if total, u, ok := d.Disk(); ok {
		used, usable = cluster.FormatBytes(total-u), cluster.FormatBytes(u)
	}
	return "\t" + cluster.FormatBytes(d.Bytes) + "\t" + used + "\t" + usable
}

// writeKRaftBrokers is WriteBrokers for a KRaft cluster.
func writeKRaftBrokers(w io.Writer, s *cluster.Snapshot, sz *cluster.Sizes) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRACK\tENDPOINTS\tCONTROLLER\tSTATE\tREPLICAS\tLEADERS"+sizesHeader(sz))
	ctrl := s.Controller()
	for _, b := range s.Brokers() {
		rack := "-"
		if b.HasRack {
			rack = b.Rack
		}
		eps := make([]string, 0, len(b.Registration.Endpoints))
		for _, e := range b.Registration.Endpoints {
			eps = append(eps, e.String())
		}
		marker := ""
		if b.IsController {
			marker = "yes (epoch " + strconv.Itoa(ctrl.Epoch) + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d%s\n", b.ID, rack, cmpOr(strings.Join(eps, ","), "-"), marker, brokerState(&b), b.Replicas, b.Leaders, sizesCells(sz, b.ID))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, KRaftControllerLine(s)); err != nil {
		return err
	}
	return writeSizesNote(w, sz)
}

// KRaftControllerLine names a KRaft cluster's active controller under the
// brokers: a dedicated controller is in no row of theirs, and when the
// session may not read the quorum no row is marked for want of knowing.
func KRaftControllerLine(s *cluster.Snapshot) string {
	k, ctrl := s.KRaft(), s.Controller()
	switch {
	case k.QuorumErr == cluster.NoAccessText:
		return "Controller: unknown: no access (DescribeQuorum needs Describe on the cluster)"
	case k.QuorumErr != "":
		return "Controller: unknown: " + k.QuorumErr
	case ctrl.BrokerID < 0:
		return "Controller: none (the quorum has no leader)"
	}
	role := "a dedicated controller"
	if b, ok := s.Broker(ctrl.BrokerID); ok && b.Live {
		role = "a broker too"
	}
	return fmt.Sprintf("Controller: %d, the quorum's leader (epoch %d), %s", ctrl.BrokerID, ctrl.Epoch, role)
}

// brokerState names a KRaft broker's state.
func brokerState(b *cluster.Broker) string {
	switch {
	case b.Fenced:
		return "fenced"
	case !b.Live:
		return "offline"
	case b.Cordoned:
		return "cordoned"
	}
	return "online"
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// brokerJSON is one broker of `ktopo brokers --output json`.
type brokersJSON struct {
	ID           int      `json:"id"`
	Live         bool     `json:"live"`
	Rack         *string  `json:"rack"`
	Host         string   `json:"host,omitempty"`
	Port         int      `json:"port,omitempty"`
	Endpoints    []string `json:"endpoints"`
	Version      int      `json:"version,omitempty"`
	Controller   bool     `json:"controller"`
	Epoch        int64    `json:"brokerEpoch,omitempty"`
	RegisteredAt int64    `json:"registeredAt,omitempty"`
	Replicas     int      `json:"replicas"`
	Leaders      int      `json:"leaders"`
	Error        string   `json:"error,omitempty"`
	// NoAccess: ZooKeeper's ACL does not let this session read the
	// registration; what it holds is unknown.
	NoAccess bool `json:"noAccess,omitempty"`
	// State is a KRaft broker's: online, fenced, cordoned or offline.
	State string `json:"state,omitempty"`
	// Sizes are what the broker reported of its log directories
	// (--sizes); SizesError why it did not.
	Sizes      *brokerSizesJSON `json:"sizes,omitempty"`
	SizesError string           `json:"sizesError,omitempty"`
}

type brokerSizesJSON struct {
	Bytes    int64 `json:"bytes"`
	Replicas int   `json:"replicas"`
	// TotalBytes and UsableBytes sum the directories' volumes; absent
	// before Kafka 3.3.
	TotalBytes  *int64       `json:"totalBytes,omitempty"`
	UsableBytes *int64       `json:"usableBytes,omitempty"`
	LogDirs     []logDirJSON `json:"logDirs"`
}

type logDirJSON struct {
	Path        string `json:"path"`
	TotalBytes  *int64 `json:"totalBytes,omitempty"`
	UsableBytes *int64 `json:"usableBytes,omitempty"`
	Bytes       int64  `json:"bytes"`
	Replicas    int    `json:"replicas"`
	Error       string `json:"error,omitempty"`
}

// WriteBrokersJSON prints {"controller":{…},"brokers":[…]}.
func WriteBrokersJSON(w io.Writer, s *cluster.Snapshot) error {
	return WriteBrokersSizesJSON(w, s, nil)
}

// WriteBrokersSizesJSON is WriteBrokersJSON with each broker's sizes in
// bytes (sz not nil), and "sizesError" where none is known.
func WriteBrokersSizesJSON(w io.Writer, s *cluster.Snapshot, sz *cluster.Sizes) error {
	ctrl := s.Controller()
	out := struct {
		ClusterID  string `json:"clusterId,omitempty"`
		Controller *int   `json:"controller"`
		Epoch      int    `json:"controllerEpoch"`
		// QuorumError: a KRaft cluster's quorum could not be read (the
		// controller is then unknown, not absent).
		QuorumError string        `json:"quorumError,omitempty"`
		Brokers     []brokersJSON `json:"brokers"`
		SizesError  string        `json:"sizesError,omitempty"`
	}{ClusterID: s.ClusterID(), Epoch: ctrl.Epoch, Brokers: []brokersJSON{}}
	if sz != nil && !sz.Known() {
		out.SizesError = sz.Why()
	}
	if k := s.KRaft(); k != nil {
		out.QuorumError = k.QuorumErr
	}
	if ctrl.BrokerID >= 0 {
		id := ctrl.BrokerID
		out.Controller = &id
	}
	for _, b := range s.Brokers() {
		bj := brokersJSON{ID: b.ID, Live: b.Live, Endpoints: []string{}, Controller: b.IsController,
			Replicas: b.Replicas, Leaders: b.Leaders}
		if b.HasRack {
			r := b.Rack
			bj.Rack = &r
		}
		if b.Live {
			bj.Version, bj.Epoch, bj.RegisteredAt = b.Registration.Version, b.Epoch, b.RegisteredAt
			bj.Host, bj.Port = b.Registration.Host, b.Registration.Port
			for _, e := range b.Registration.Endpoints {
				bj.Endpoints = append(bj.Endpoints, e.String())
			}
		}
		if s.Access(cluster.BrokerIDPath(b.ID))&cluster.NoData != 0 {
			bj.NoAccess = true
		} else if b.Err != nil {
			bj.Error = b.Err.Error()
		}
		if s.KRaft() != nil {
			bj.State, bj.Version = brokerState(&b), 0
		}
		if d, ok := sz.Broker(b.ID); ok {
			bj.Sizes = brokerSizes(d)
		} else if sz != nil && sz.Unreached[b.ID] != "" {
			bj.SizesError = sz.Unreached[b.ID]
		}
		out.Brokers = append(out.Brokers, bj)
	}
	return json.NewEncoder(w).Encode(out)
}

func brokerSizes(d *cluster.BrokerDisk) *brokerSizesJSON {
	bs := &brokerSizesJSON{Bytes: d.Bytes, Replicas: d.Replicas, LogDirs: []logDirJSON{}}
	if total, usable, ok := d.Disk(); ok {
		bs.TotalBytes, bs.UsableBytes = &total, &usable
	}
	for _, dir := range d.Dirs {
		lj := logDirJSON{Path: dir.Path, Bytes: dir.Bytes, Replicas: dir.Replicas, Error: dir.Err}
		if dir.Total >= 0 {
			t := dir.Total
			lj.TotalBytes = &t
		}
		if dir.Usable >= 0 {
			u := dir.Usable
			lj.UsableBytes = &u
		}
		bs.LogDirs = append(bs.LogDirs, lj)
	}
	return bs
}

// WriteNodeErrors names every znode the model could not decode, one line
// each ("ktopo: bad znode <path>: <reason>"), for standard error.
func WriteNodeErrors(w io.Writer, s *cluster.Snapshot) {
	for _, e := range s.Errors() {
		fmt.Fprintf(w, "ktopo: bad znode %s: %v\n", e.Path, e.Err)
	}
	for _, p := range s.NoAccess() {
		fmt.Fprintf(w, "ktopo: no access to %s: ZooKeeper's ACL does not let this session read %s (shown as %s)\n",
			p, s.Access(p).What(), NoAccess)
	}
}

// unlistedTopics stands for the topics when /brokers/topics may not be listed.
const unlistedTopics = NoAccess + " to " + cluster.BrokerTopicsPath + ": the topics cannot be listed"

// NoAccess is what the tables show for what ZooKeeper's ACLs keep from the
// session: it exists, its content is unknown.
const NoAccess = "(no access)"
