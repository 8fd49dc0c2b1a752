package tree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
)

// details returns the right pane for n, cached until n's data, stat or the
// width change.
func (m *Model) details(n *node, w int) []string {
	k := detailKey{n: n, raw: m.raw, w: w}
	if n != nil {
		k.ver, k.denied = n.ver, n.denied
	}
	if k == m.detailKey && m.detail != nil {
		return m.detail
	}
	m.detailKey = k
	m.detail = m.buildDetails(n, w)
	return m.detail
}

func (m *Model) buildDetails(n *node, w int) []string {
	if n == nil || w <= 0 {
		return nil
	}
	st := m.st
	var out []string
	add := func(s string) { out = append(out, cell.Clip(s, w)) }
	kv := func(k, v string) { add(st.Muted.S(cell.Fit(k, 16)) + v) }
	section := func(s string) {
		if len(out) > 0 {
			out = append(out, "")
		}
		add(st.Header.S(s))
	}
	add(st.Bold.S(n.path))
	info := cluster.ParsePath(n.path)
	if info.Kind != cluster.KindUnknown {
		add(st.Accent.S("Kafka: " + meaning(info, w-len("Kafka: "))))
	}
	if !n.inMirror && !n.probed {
		add("")
		switch how(n.path) {
		case srcOpen:
			add(st.Muted.S("Not loaded. enter or → loads and watches this subtree"))
			add(st.Muted.S("while it is expanded."))
		default:
			add(st.Muted.S("No data loaded for this node yet."))
		}
		return out
	}
	data, stat := m.info(n)
	if n.denied != 0 {
		section("No access")
		add(st.Error.S("ZooKeeper's ACL does not let this session read " + n.denied.What() + ":"))
		add(st.Muted.S("it exists, what it holds is unknown (not empty). Connect with"))
		add(st.Muted.S("credentials its ACL grants READ: --zk-digest, --zk-tls-cert."))
	}
	if !m.raw && n.denied&cluster.NoData == 0 {
		if v, err := cluster.DecodeZNode(n.path, data); v != nil || err != nil {
			section("Decoded")
			for _, l := range m.decoded(v, w-16) {
				if i := strings.IndexByte(l, '\t'); i >= 0 {
					kv(l[:i], l[i+1:])
				} else {
					add(l)
				}
			}
			if err != nil {
				add(st.Error.S(err.Error()))
			}
		}
	}
	if s := stat; s != nil {
		section("Stat")
		kv("czxid", zxid(s.Czxid))
		kv("mzxid", zxid(s.Mzxid))
		kv("pzxid", zxid(s.Pzxid))
		kv("ctime", m.when(s.Ctime))
		kv("mtime", m.when(s.Mtime))
		kv("version", strconv.Itoa(int(s.Version)))
		kv("cversion", strconv.Itoa(int(s.Cversion)))
		kv("aversion", strconv.Itoa(int(s.Aversion)))
		if s.EphemeralOwner != 0 {
			kv("ephemeralOwner", "0x"+strconv.FormatInt(s.EphemeralOwner, 16)+" (session)")
		} else {
			kv("ephemeralOwner", "0 (persistent)")
		}
		kv("dataLength", strconv.Itoa(int(s.DataLength)))
		kv("numChildren", strconv.Itoa(int(s.NumChildren)))
	}
	section("Data")
	switch {
	case n.denied&cluster.NoData != 0:
		add(st.Muted.S(noAccess))
	case data == nil:
		add(st.Muted.S("(none)"))
	case len(data) == 0:
		add(st.Muted.S("(empty)"))
	default:
		for _, l := range pretty(data, 200) {
			add(l)
		}
	}
	return out
}

func zxid(z int64) string { return "0x" + strconv.FormatInt(z, 16) }

// noAccess marks what ZooKeeper's ACLs keep from the session.
const noAccess = "(no access)"

func (m *Model) when(ms int64) string {
	if ms == 0 {
		return "0"
	}
	return time.UnixMilli(ms).In(m.loc).Format("2006-01-02 15:04:05.000 MST")
}

func (m *Model) stamp(s string) string {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return s
	}
	return m.when(ms) + "  (" + s + ")"
}

// meaning describes a path's role in Kafka, a topic-partition fitted to w
// columns.
func meaning(i cluster.PathInfo, w int) string {
	switch i.Kind {
	case cluster.KindRoot:
		return "root (chroot)"
	case cluster.KindController:
		return "active controller (ephemeral)"
	case cluster.KindControllerEpoch:
		return "controller epoch"
	case cluster.KindBroker:
		return "registration of broker " + strconv.Itoa(i.BrokerID)
	case cluster.KindTopic:
		return "replica assignment of topic " + i.Topic
	case cluster.KindPartitionState:
		const what = "leader and ISR of "
		return what + cell.TopicPartition(i.Topic, i.Partition, w-len(what))
	case cluster.KindTopicConfig:
		return "config overrides of topic " + i.Topic
	case cluster.KindEntityConfig:
		return "dynamic config of " + i.EntityType + " " + i.Entity
	case cluster.KindDeleteTopic:
		return "deletion request for topic " + i.Topic
	case cluster.KindClusterID:
		return "cluster id"
	case cluster.KindReassignPartitions:
		return "pending reassignment (legacy tool)"
	case cluster.KindPreferredReplicaElection:
		return "pending preferred leader election (legacy tool)"
	case cluster.KindIsrChange:
		return "ISR change notification"
	case cluster.KindLogDirEvent:
		return "log directory failure notification"
	case cluster.KindConfigChange:
		return "config change notification"
	}
	return strings.ReplaceAll(i.Kind.String(), "_", " ")
}

// decoded renders a decoded value as "key\tvalue" lines, values of w
// columns at most where they hold a topic-partition.
func (m *Model) decoded(v any, w int) []string {
	var out []string
	kv := func(k, v string) { out = append(out, k+"\t"+v) }
	switch v := v.(type) {
	case cluster.BrokerRegistration:
		kv("version", strconv.Itoa(v.Version))
		if v.Host != "" {
			kv("host:port", v.Addr())
		}
		for i, e := range v.Endpoints {
			k := ""
			if i == 0 {
				k = "endpoints"
			}
			kv(k, e.String()+"  ("+e.SecurityProtocol+")")
		}
		if v.HasRack() {
			kv("rack", v.Rack)
		} else {
			kv("rack", "(none)")
		}
		if v.JMXPort >= 0 {
			kv("jmx port", strconv.Itoa(v.JMXPort))
		}
		kv("registered", m.stamp(v.Timestamp))
		for i, f := range v.Features {
			k := ""
			if i == 0 {
				k = "features"
			}
			kv(k, fmt.Sprintf("%s %d–%d", f.Name, f.MinVersion, f.MaxVersion))
		}
	case cluster.TopicAssignment:
		kv("version", strconv.Itoa(v.Version))
		if v.TopicID != "" {
			kv("topic id", v.TopicID)
		}
		kv("partitions", strconv.Itoa(len(v.Partitions)))
		for p := 0; p < len(v.Partitions) && p < 32; p++ {
			if r, ok := v.Partitions[p]; ok {
				kv("  "+strconv.Itoa(p), "replicas "+text.Ints(r))
			}
		}
		if len(v.Partitions) > 32 {
			kv("", "…")
		}
		for p, r := range v.AddingReplicas {
			kv("adding", strconv.Itoa(p)+": "+text.Ints(r))
		}
		for p, r := range v.RemovingReplicas {
			kv("removing", strconv.Itoa(p)+": "+text.Ints(r))
		}
	case cluster.PartitionState:
		kv("leader", text.Broker(v.Leader))
		kv("leader epoch", strconv.Itoa(v.LeaderEpoch))
		kv("isr", text.Ints(v.ISR))
		kv("controller epoch", strconv.Itoa(v.ControllerEpoch))
		if v.LeaderRecoveryState == cluster.LeaderRecovering {
			kv("leader recovery", "RECOVERING")
		}
	case cluster.ControllerInfo:
		kv("broker", strconv.Itoa(v.BrokerID))
		kv("elected", m.stamp(v.Timestamp))
		kv("version", strconv.Itoa(v.Version))
		if v.KRaftControllerEpoch >= 0 {
			kv("kraft epoch", strconv.Itoa(v.KRaftControllerEpoch))
		}
	case int:
		kv("epoch", strconv.Itoa(v))
	case cluster.ClusterIDInfo:
		kv("cluster id", v.ID)
	case cluster.EntityConfig:
		if len(v.Config) == 0 {
			kv("config", "(no overrides)")
		}
		for _, e := range v.Config {
			kv(e.Key, e.Value)
		}
	case cluster.ConfigChangeNotification:
		kv("entity", v.Path())
	case cluster.PartitionsNotification:
		for i, p := range v.Partitions {
			if i == 32 {
				kv("", "…")
				break
			}
			kv("partition", cell.TopicPartition(p.Topic, p.Partition, w))
		}
	case cluster.LogDirEvent:
		kv("broker", strconv.Itoa(v.Broker))
	case nil:
	default:
		out = append(out, fmt.Sprintf("%+v", v))
	}
	return out
}

// pretty renders data: indented JSON, text, or a hex dump; at most max lines.
func pretty(data []byte, max int) []string {
	var buf bytes.Buffer
	var lines []string
	if json.Valid(data) && json.Indent(&buf, data, "", "  ") == nil {
		lines = strings.Split(buf.String(), "\n")
	} else if utf8.Valid(data) && printable(data) {
		lines = strings.Split(string(data), "\n")
	} else {
		for i := 0; i < len(data) && len(lines) < max; i += 16 {
			end := min(i+16, len(data))
			lines = append(lines, fmt.Sprintf("%04x  % x", i, data[i:end]))
		}
	}
	if len(lines) > max {
		lines = append(lines[:max], "…")
	}
	return lines
}

func printable(b []byte) bool {
	for _, r := range string(b) {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}
