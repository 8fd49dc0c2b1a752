package fidelity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
)

// znode is one node of a tree as the comparison sees it.
type znode struct {
	raw       []byte // the data as written
	data      string // normalised: canonical JSON (sorted members), random values masked
	version   int32  // dataVersion (a state znode's is the partition epoch)
	cversion  int32  // children created and deleted so far
	ctime     int64  // creation time (ms), for /controller
	ephemeral bool
}

// tree is a snapshot of a cluster's znodes by path, relative to its chroot.
type tree map[string]znode

// readTree walks root recursively with plain reads (no watches). A node
// deleted while the walk runs is skipped; the caller compares only trees
// that have stopped changing.
func readTree(conn *zk.Conn, root string) (tree, error) {
	t := tree{}
	var walk func(rel string) error
	walk = func(rel string) error {
		full := root + rel
		if rel == "/" {
			full = root
		}
		data, st, err := conn.Get(full)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("get %s: %w", full, err)
		}
		kids, _, err := conn.Children(full)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("children %s: %w", full, err)
		}
		t[rel] = znode{raw: data, data: normalise(rel, data), version: st.Version, cversion: st.Cversion, ctime: st.Ctime,
			ephemeral: st.EphemeralOwner != 0}
		sort.Strings(kids)
		for _, k := range kids {
			if err := walk(path.Join(rel, k)); err != nil {
				return err
			}
		}
		return nil
	}
	return t, walk("/")
}

var (
	brokerRe  = regexp.MustCompile(`^/brokers/ids/\d+$`)
	topicRe   = regexp.MustCompile(`^/brokers/topics/[^/]+$`)
	hostPort  = regexp.MustCompile(`://[^,"]*:\d+`)
	masked    = "*"
	maskPaths = map[string][]string{
		// Legitimately random or time-dependent members.
		"/cluster/id": {"id"},
		"/controller": {"timestamp"},
	}
)

// normalise renders data canonically (JSON with sorted members) and masks
// what is legitimately different between two clusters: timestamps, the
// cluster id, topic ids, hosts and ports.
func normalise(rel string, data []byte) string {
	if len(data) == 0 {
		return ""
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil || d.More() {
		return string(data)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return canonical(v)
	}
	for _, k := range maskPaths[rel] {
		if _, ok := obj[k]; ok {
			obj[k] = masked
		}
	}
	switch {
	case brokerRe.MatchString(rel):
		for _, k := range []string{"timestamp", "host", "port"} {
			if _, ok := obj[k]; ok {
				obj[k] = masked
			}
		}
		if eps, ok := obj["endpoints"].([]any); ok {
			for i, e := range eps {
				if s, ok := e.(string); ok {
					eps[i] = hostPort.ReplaceAllString(s, "://"+masked)
				}
			}
		}
	case topicRe.MatchString(rel):
		if _, ok := obj["topic_id"]; ok {
			obj["topic_id"] = masked
		}
	}
	return canonical(obj)
}

func canonical(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// memberOrder lists the members of JSON objects in data in the order
// they are written, nested objects in braces ("a b{c d}"); "" when data is
// not JSON.
func memberOrder(data []byte) string {
	d := json.NewDecoder(bytes.NewReader(data))
	var sb strings.Builder
	var inObject []bool // per open container: an object (keys expected)?
	expectKey := false
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				sb.WriteString("{")
				inObject = append(inObject, true)
				expectKey = true
				continue
			case '[':
				inObject = append(inObject, false)
				expectKey = false
				continue
			case '}':
				sb.WriteString("}")
				fallthrough
			case ']':
				inObject = inObject[:len(inObject)-1]
			}
		case string:
			if expectKey {
				sb.WriteString(" " + v)
				expectKey = false
				continue
			}
		}
		expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
	}
	return sb.String()
}

// difference is one way two trees differ.
type difference struct {
	path string
	// what differs: "only in kafka", "only in sandbox", "version",
	// "cversion", "ephemeral", "data" (not JSON objects), "member <name>"
	// (a member of a JSON object) or "member order" (the same JSON
	// written with its members in another order).
	what           string
	kafka, sandbox string
}

func (d difference) String() string {
	return fmt.Sprintf("%s: %s: kafka %s, sandbox %s", d.path, d.what, d.kafka, d.sandbox)
}

// compare lists the differences between the Kafka tree and the sandbox
// tree, member by member for JSON objects.
func compare(k, s tree) (diffs []difference) {
	paths := map[string]bool{}
	for p := range k {
		paths[p] = true
	}
	for p := range s {
		paths[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		kn, kok := k[p]
		sn, sok := s[p]
		switch {
		case !sok:
			diffs = append(diffs, difference{p, "only in kafka", kn.data, "-"})
			continue
		case !kok:
			diffs = append(diffs, difference{p, "only in sandbox", "-", sn.data})
			continue
		}
		if kn.version != sn.version {
			diffs = append(diffs, difference{p, "version", strconv.Itoa(int(kn.version)), strconv.Itoa(int(sn.version))})
		}
		if kn.cversion != sn.cversion {
			diffs = append(diffs, difference{p, "cversion", strconv.Itoa(int(kn.cversion)), strconv.Itoa(int(sn.cversion))})
		}
		if kn.ephemeral != sn.ephemeral {
			diffs = append(diffs, difference{p, "ephemeral", strconv.FormatBool(kn.ephemeral), strconv.FormatBool(sn.ephemeral)})
		}
		if kn.data == sn.data {
			if ko, so := memberOrder(kn.raw), memberOrder(sn.raw); ko != so {
				diffs = append(diffs, difference{p, "member order", ko, so})
			}
			continue
		}
		km, kobj := object(kn.data)
		sm, sobj := object(sn.data)
		if !kobj || !sobj {
			diffs = append(diffs, difference{p, "data", kn.data, sn.data})
			continue
		}
		members := map[string]bool{}
		for m := range km {
			members[m] = true
		}
		for m := range sm {
			members[m] = true
		}
		for _, m := range slices.Sorted(maps.Keys(members)) {
			kv, sv := memberText(km, m), memberText(sm, m)
			if kv != sv {
				diffs = append(diffs, difference{p, "member " + m, kv, sv})
			}
		}
	}
	return diffs
}

func object(s string) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if !strings.HasPrefix(s, "{") || json.Unmarshal([]byte(s), &m) != nil {
		return nil, false
	}
	return m, true
}

func memberText(m map[string]json.RawMessage, k string) string {
	v, ok := m[k]
	if !ok {
		return "(absent)"
	}
	return string(v)
}

// fingerprint is what "the tree changed" means for the quiet period:
// every path, version and normalised data.
func (t tree) fingerprint() string {
	var sb strings.Builder
	for _, p := range slices.Sorted(maps.Keys(t)) {
		n := t[p]
		fmt.Fprintf(&sb, "%s v%d c%d %t %s\n", p, n.version, n.cversion, n.ephemeral, n.data)
	}
	return sb.String()
}
