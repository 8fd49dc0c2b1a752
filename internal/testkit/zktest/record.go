package zktest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Recorder is a TCP proxy in front of a ZooKeeper server that records the
// opcode of every request its clients send: what proves that a client never
// sends an operation a server version lacks. It reads the client-to-server
// stream frame by frame (the ConnectRequest first, then request headers:
// xid, opcode) and forwards every byte unchanged; four-letter words pass
// through and are counted by word. It is a Proxy: its faults work too.
type Recorder struct {
	*Proxy

	mu      sync.Mutex
	ops     map[int32]int
	details map[string]int
	words   map[string]int
}

// Record starts a Recorder in front of target (host:port) for one test;
// it stops when the test ends.
func Record(t testing.TB, target string) *Recorder {
	t.Helper()
	r, err := NewRecorder(target)
	if err != nil {
		t.Fatalf("zktest: recorder: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

// NewRecorder starts a Recorder in front of target on a free loopback port.
// It is a Proxy whose client streams are read frame by frame on the side.
func NewRecorder(target string) (*Recorder, error) {
	r := &Recorder{ops: map[int32]int{}, details: map[string]int{}, words: map[string]int{}}
	p, err := newProxy(target, r.tap)
	if err != nil {
		return nil, err
	}
	r.Proxy = p
	return r, nil
}

// tap returns the writer one connection's client stream is copied to: a
// pipe read by a goroutine that notes each frame.
func (r *Recorder) tap() io.WriteCloser {
	pr, pw := io.Pipe()
	go func() {
		r.observe(pr)
		// Whatever follows an unparsable frame is drained unread.
		_, _ = io.Copy(io.Discard, pr)
	}()
	return pw
}

// Ops returns how many requests of each opcode went through; the
// handshake counts as OpConnect.
func (r *Recorder) Ops() map[int32]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.ops)
}

// Details returns finer counts than Ops: creates by mode
// ("create:ephemeral_sequential"), reads that set a watch
// ("getChildren2:watch"), and the ops inside multis ("multi:check",
// "multi:create:ephemeral").
func (r *Recorder) Details() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.details)
}

// Words returns the four-letter words sent through the proxy.
func (r *Recorder) Words() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.words)
}

// Reset forgets what was recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	clear(r.ops)
	clear(r.details)
	clear(r.words)
	r.mu.Unlock()
}

// Summary lists the recorded opcodes by name with their counts, sorted by
// opcode ("create(1)=12 getData(4)=40 …"), then the four-letter words.
func (r *Recorder) Summary() string { return summary(r.Ops(), r.Words()) }

// DetailSummary lists Details sorted by name ("create:ephemeral=3 …").
func (r *Recorder) DetailSummary() string { return detailSummary(r.Details()) }

func detailSummary(details map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(details)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, details[k]))
	}
	return strings.Join(parts, " ")
}

func summary(ops map[int32]int, words map[string]int) string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		parts = append(parts, fmt.Sprintf("%s(%d)=%d", OpName(op), op, ops[op]))
	}
	for _, w := range slices.Sorted(maps.Keys(words)) {
		parts = append(parts, fmt.Sprintf("4lw:%s=%d", w, words[w]))
	}
	return strings.Join(parts, " ")
}

// Unsupported returns the recorded opcodes that a server of the given
// version does not have (see Supports), sorted.
func (r *Recorder) Unsupported(version string) []int32 {
	var out []int32
	for op := range r.Ops() {
		if !Supports(version, op) {
			out = append(out, op)
		}
	}
	slices.Sort(out)
	return out
}

// observe reads a client's stream, noting each frame.
func (r *Recorder) observe(src io.Reader) {
	br := bufio.NewReaderSize(src, 64<<10)
	var hdr [4]byte
	first := true
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return
		}
		if first && isWord(hdr[:]) {
			r.mu.Lock()
			r.words[string(hdr[:])]++
			r.mu.Unlock()
			return
		}
		n := int(binary.BigEndian.Uint32(hdr[:]))
		if n < 0 || n > 64<<20 {
			return // not a frame we can follow
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		op := int32(OpConnect)
		var details []string
		if !first && n >= 8 {
			op = int32(binary.BigEndian.Uint32(body[4:8]))
			details = describe(op, body[8:])
		}
		first = false
		r.mu.Lock()
		r.ops[op]++
		for _, d := range details {
			r.details[d]++
		}
		r.mu.Unlock()
	}
}

// describe names what a request does beyond its opcode (see Details).
func describe(op int32, body []byte) []string {
	d := &jute{b: body}
	switch op {
	case 1, 15, 19, 21:
		return []string{"create:" + d.create(op)}
	case 3, 4, 8, 12:
		if d.string(); d.bool() {
			return []string{OpName(op) + ":watch"}
		}
	case 14:
		var out []string
		for d.ok() {
			typ, done := d.int(), d.bool()
			d.int()
			if done || !d.ok() {
				break
			}
			name := "multi:" + OpName(typ)
			switch typ {
			case 1, 15, 19, 21:
				name = "multi:create:" + d.create(typ)
			case 2, 13:
				d.string()
				d.int()
			case 5:
				d.string()
				d.buffer()
				d.int()
			default:
				return append(out, name)
			}
			out = append(out, name)
		}
		return out
	}
	return nil
}

// createModes are CreateMode's names by flag value.
var createModes = []string{"persistent", "ephemeral", "persistent_sequential", "ephemeral_sequential",
	"container", "persistent_with_ttl", "persistent_sequential_with_ttl"}

// jute reads the few request fields describe needs; a short body makes
// every later read zero (ok reports it).
type jute struct {
	b   []byte
	bad bool
}

func (j *jute) ok() bool { return !j.bad }

func (j *jute) take(n int) []byte {
	if j.bad || n < 0 || n > len(j.b) {
		j.bad = true
		return nil
	}
	out := j.b[:n]
	j.b = j.b[n:]
	return out
}

func (j *jute) int() int32 {
	b := j.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (j *jute) bool() bool {
	b := j.take(1)
	return b != nil && b[0] != 0
}

func (j *jute) buffer() []byte {
	n := j.int()
	if n < 0 {
		return nil
	}
	return j.take(int(n))
}

func (j *jute) string() string { return string(j.buffer()) }

// create reads a create record and returns its mode's name.
func (j *jute) create(op int32) string {
	j.string()
	j.buffer()
	for n := j.int(); n > 0 && j.ok(); n-- {
		j.int()
		j.string()
		j.string()
	}
	flags := j.int()
	switch {
	case !j.ok():
		return "?"
	case op == 19:
		return "container"
	case flags >= 0 && int(flags) < len(createModes):
		return createModes[flags]
	}
	return fmt.Sprintf("flags%d", flags)
}

// isWord reports whether a connection's first four bytes are lowercase
// letters: a four-letter word, not a frame length.
func isWord(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// OpConnect stands for a connection's ConnectRequest in Recorder.Ops (it
// has no opcode on the wire).
const OpConnect = -1000

// opcodes names ZooKeeper's client opcodes (ZooDefs.OpCode) and the first
// server version that has each.
var opcodes = map[int32]struct {
	name  string
	since string
}{
	OpConnect: {"connect", "3.0"},
	1:         {"create", "3.0"},
	2:         {"delete", "3.0"},
	3:         {"exists", "3.0"},
	4:         {"getData", "3.0"},
	5:         {"setData", "3.0"},
	6:         {"getACL", "3.0"},
	7:         {"setACL", "3.0"},
	8:         {"getChildren", "3.0"},
	9:         {"sync", "3.0"},
	11:        {"ping", "3.0"},
	12:        {"getChildren2", "3.0"},
	13:        {"check", "3.4"},
	14:        {"multi", "3.4"},
	15:        {"create2", "3.5"},
	16:        {"reconfig", "3.5"},
	17:        {"checkWatches", "3.5"},
	18:        {"removeWatches", "3.5"},
	19:        {"createContainer", "3.5"},
	20:        {"deleteContainer", "3.5"},
	21:        {"createTTL", "3.5"},
	22:        {"multiRead", "3.6"},
	100:       {"auth", "3.0"},
	101:       {"setWatches", "3.0"},
	102:       {"sasl", "3.4"},
	103:       {"getEphemerals", "3.6"},
	104:       {"getAllChildrenNumber", "3.6"},
	105:       {"setWatches2", "3.6"},
	106:       {"addWatch", "3.6"},
	107:       {"whoAmI", "3.7"},
	-10:       {"createSession", "3.0"},
	-11:       {"closeSession", "3.0"},
}

// OpName is an opcode's name in ZooDefs.OpCode ("op<N>" if unknown).
func OpName(op int32) string {
	if o, ok := opcodes[op]; ok {
		return o.name
	}
	return fmt.Sprintf("op%d", op)
}

// Supports reports whether a ZooKeeper server of version ("3.5.9", "3.8")
// has the client opcode op. Unknown opcodes are supported by none.
func Supports(version string, op int32) bool {
	o, ok := opcodes[op]
	return ok && !versionLess(version, o.since)
}

// versionLess compares dotted versions numerically, on their common length.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return false
}
