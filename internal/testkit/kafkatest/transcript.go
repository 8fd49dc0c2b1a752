package kafkatest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
)

// ZNode is one znode as a transcript records it: its data and its stat.
type ZNode struct {
	// Data is what the znode holds, as text (Kafka writes JSON or plain
	// numbers); data that is not UTF-8 is "base64:" and its base64.
	Data string `json:"data"`
	// EphemeralOwner is the session that owns an ephemeral znode
	// ("0x…"), "0" for a persistent one.
	EphemeralOwner string `json:"ephemeralOwner"`
	// Owner names who holds that session when the transcript can tell:
	// "broker N" when /brokers/ids/N has the same owner.
	Owner string `json:"owner,omitempty"`
	// Version, Cversion and Aversion count changes to the data, the
	// children and the ACL.
	Version  int32 `json:"version"`
	Cversion int32 `json:"cversion"`
	Aversion int32 `json:"aversion"`
	// Czxid, Mzxid and Pzxid are the transactions that created the znode,
	// last changed its data and last changed its children.
	Czxid int64 `json:"czxid"`
	Mzxid int64 `json:"mzxid"`
	Pzxid int64 `json:"pzxid"`
	// Ctime and Mtime are its creation and last data change (UTC,
	// milliseconds).
	Ctime string `json:"ctime"`
	Mtime string `json:"mtime"`
	// NumChildren is how many children it has.
	NumChildren int32 `json:"numChildren"`
}

// Ephemeral reports whether the znode belongs to a session.
func (z ZNode) Ephemeral() bool { return z.EphemeralOwner != "0" }

// Snapshot is every znode of a chroot at one moment, by path relative to
// the chroot ("/controller", "/brokers/ids/1", …).
type Snapshot map[string]ZNode

// TakeSnapshot reads every znode under chroot (conn without a chroot).
// Znodes that vanish while it reads are left out.
func TakeSnapshot(conn *zk.Conn, chroot string) (Snapshot, error) {
	s := Snapshot{}
	var walk func(rel string) error
	walk = func(rel string) error {
		full := chroot + rel
		if rel == "/" {
			full = chroot
		}
		data, stat, err := conn.Get(full)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("kafkatest: snapshot %s: %w", full, err)
		}
		s[rel] = zNode(data, stat)
		kids, _, err := conn.Children(full)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("kafkatest: snapshot %s: %w", full, err)
		}
		slices.Sort(kids)
		for _, k := range kids {
			child := rel + "/" + k
			if rel == "/" {
				child = "/" + k
			}
			if err := walk(child); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk("/"); err != nil {
		return nil, err
	}
	s.nameOwners()
	return s, nil
}

func zNode(data []byte, st *zk.Stat) ZNode {
	d := string(data)
	if !utf8.Valid(data) {
		d = "base64:" + base64Std(data)
	}
	owner := "0"
	if st.EphemeralOwner != 0 {
		owner = fmt.Sprintf("0x%x", st.EphemeralOwner)
	}
	ms := func(t int64) string { return time.UnixMilli(t).UTC().Format("2006-01-02T15:04:05.000Z") }
	return ZNode{Data: d, EphemeralOwner: owner, Version: st.Version, Cversion: st.Cversion, Aversion: st.Aversion,
		Czxid: st.Czxid, Mzxid: st.Mzxid, Pzxid: st.Pzxid, Ctime: ms(st.Ctime), Mtime: ms(st.Mtime), NumChildren: st.NumChildren}
}

// nameOwners names the owner of every ephemeral znode whose session is a
// broker's (the owner of its /brokers/ids/N).
func (s Snapshot) nameOwners() {
	brokers := map[string]string{}
	for p, z := range s {
		if id, ok := strings.CutPrefix(p, "/brokers/ids/"); ok && z.Ephemeral() {
			brokers[z.EphemeralOwner] = "broker " + id
		}
	}
	for p, z := range s {
		if z.Ephemeral() {
			z.Owner = brokers[z.EphemeralOwner]
			s[p] = z
		}
	}
}

// Changes are what differs between two snapshots: znodes created,
// deleted, and changed (data or stat: a new version, a new owner, new
// children).
type Changes struct {
	Created []string `json:"created"`
	Deleted []string `json:"deleted"`
	Changed []string `json:"changed"`
}

// Diff returns what changed from before to s.
func (s Snapshot) Diff(before Snapshot) Changes {
	c := Changes{Created: []string{}, Deleted: []string{}, Changed: []string{}}
	for p, z := range s {
		b, ok := before[p]
		switch {
		case !ok:
			c.Created = append(c.Created, p)
		case b.Czxid != z.Czxid || b.Mzxid != z.Mzxid || b.Pzxid != z.Pzxid:
			c.Changed = append(c.Changed, p)
		}
	}
	for p := range before {
		if _, ok := s[p]; !ok {
			c.Deleted = append(c.Deleted, p)
		}
	}
	slices.Sort(c.Created)
	slices.Sort(c.Deleted)
	slices.Sort(c.Changed)
	return c
}

// Transcript is what ZooKeeper showed at one phase of a real migration:
// the files under testdata/migration-3.9.2/ (see doc.go for what each
// phase shows).
type Transcript struct {
	// Phase is the Migration's phase, or a moment within one
	// ("rolling-1": broker 1 in KRaft mode, the others not yet).
	Phase string `json:"phase"`
	// Kafka is the Kafka version that wrote the znodes.
	Kafka string `json:"kafka"`
	// Steps are what was done to the cluster since the previous
	// transcript, in Kafka's documentation's words.
	Steps []string `json:"steps"`
	// Nodes are the cluster's processes then: "broker 1: zk-broker
	// (migration enabled)", "controller 3000: controller", …
	Nodes []string `json:"nodes"`
	// Quorum is the KRaft quorum then (leader, epoch, high watermark,
	// the leader's log end offset), "" before the controllers ran.
	Quorum string `json:"quorum,omitempty"`
	// Changes are the znodes created, deleted and changed since the
	// previous transcript (all created, for the first).
	Changes Changes `json:"changes"`
	// ZNodes is every znode under the chroot, by path relative to it.
	ZNodes Snapshot `json:"znodes"`
}

// WriteTranscript writes t as dir/<phase>.json (indented, sorted keys).
func WriteTranscript(dir string, t Transcript) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, t.Phase+".json"), append(b, '\n'), 0o644)
}

// ReadTranscript reads dir/<phase>.json.
func ReadTranscript(dir, phase string) (Transcript, error) {
	var t Transcript
	b, err := os.ReadFile(filepath.Join(dir, phase+".json"))
	if err != nil {
		return t, err
	}
	return t, json.Unmarshal(b, &t)
}

// Snapshot reads every znode of the migrating cluster's chroot.
func (m *Migration) Snapshot() (Snapshot, error) {
	conn, err := m.zk.zk()
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return TakeSnapshot(conn, m.zk.chroot)
}

// Describe lists the cluster's processes for a transcript: each node's
// id, role, and whether it runs.
func (m *Migration) Describe() []string {
	var out []string
	for _, n := range m.Nodes() {
		if !n.everStarted() && !n.Running() {
			continue
		}
		what := string(n.Role)
		if n.Role == ZKBroker && n.Properties()["zookeeper.metadata.migration.enable"] == "true" {
			what += " (migration enabled)"
		}
		if n.Role == KRaftController {
			if n.Properties()["zookeeper.metadata.migration.enable"] == "true" {
				what += " (migration enabled, zookeeper.connect set)"
			} else {
				what += " (no migration, no zookeeper.connect)"
			}
		}
		state := "running"
		if !n.Running() {
			state = "stopped"
		}
		kind := "broker"
		if n.Role == KRaftController {
			kind = "controller"
		}
		out = append(out, kind+" "+strconv.Itoa(n.ID)+": "+what+", "+state)
	}
	return out
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
