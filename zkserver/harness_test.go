package zkserver_test

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDataDirEnv); dir != "" {
		// Re-executed by TestCrashRecovery as the server to kill.
		os.Exit(childServer(dir))
	}
	if slices.Contains(os.Args, "-test.fuzzworker") {
		// Fuzz targets need no shared server: do not start one per worker.
		os.Exit(m.Run())
	}
	zktest.Main(m)
}

// target is one server implementation under test.
type target struct {
	name string
	addr string // shared server for checks that use unique paths
	// fresh starts a dedicated server (pristine tree) with the tick time.
	fresh func(t *testing.T, tick time.Duration) string
}

// targets returns the embedded server and, when the package runs against
// Apache ZooKeeper, the Apache server. Every check runs on each.
func targets(t *testing.T) []*target {
	t.Helper()
	emb := startEmbedded(t, zkserver.Config{})
	out := []*target{{
		name: "embedded",
		addr: emb.Addr(),
		fresh: func(t *testing.T, tick time.Duration) string {
			return startEmbedded(t, zkserver.Config{TickTime: tick}).Addr()
		},
	}}
	if !testing.Short() {
		// The same server with a data directory: durability (replies held
		// until their transaction is synced) must change nothing a client
		// can observe.
		dur := startEmbedded(t, zkserver.Config{DataDir: t.TempDir()})
		out = append(out, &target{
			name: "embedded-durable",
			addr: dur.Addr(),
			fresh: func(t *testing.T, tick time.Duration) string {
				return startEmbedded(t, zkserver.Config{TickTime: tick, DataDir: t.TempDir()}).Addr()
			},
		})
	}
	if zktest.Kind() == "apache" {
		// A server of its own, not the package's shared one: the checks
		// compare zxids, and a transaction of another test (a session of
		// a cut connection expiring, ZooKeeper's container reaper on a
		// test's leftovers) would shift them.
		out = append([]*target{{
			name: "apache",
			addr: zktest.StartServer(t, zktest.Options{}).Addr(),
			fresh: func(t *testing.T, tick time.Duration) string {
				return zktest.StartServer(t, zktest.Options{TickTime: int(tick / time.Millisecond)}).Addr()
			},
		}}, out...)
	} else {
		t.Logf("Apache ZooKeeper is not installed: checking the embedded server against the spec only")
	}
	return out
}

func startEmbedded(t testing.TB, cfg zkserver.Config) *zkserver.Server {
	t.Helper()
	s, err := zkserver.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var runSeq atomic.Int64

// H runs one conformance check against one target and keeps a normalised
// transcript of what it observed; transcripts of both servers must match.
type H struct {
	t      *testing.T
	tg     *target
	addr   string
	prefix string
	base   int64
	log    []string
	sids   map[int64]string
	c      *raw // the check's main session
}

// newH prepares a check run. Both targets get the same prefix: some orders
// (a closing session's ephemerals) follow Java's string hashes, so the
// paths must be identical, not just equal after normalisation.
func newH(t *testing.T, tg *target, prefix, addr string) *H {
	return &H{t: t, tg: tg, addr: addr, prefix: prefix, sids: map[int64]string{0: "0"}}
}

// start opens the main session, creates the check's prefix node and takes
// the base zxid.
func (h *H) start() {
	h.c = session(h.t, h.addr, 30000)
	h.sid(h.c.sid)
	if f := h.c.create(h.prefix, nil, 0); f.err != 0 {
		h.t.Fatalf("create prefix %s: %d", h.prefix, f.err)
	}
	h.base = h.c.ping()
}

// P returns a path under the check's prefix.
func (h *H) P(rel string) string {
	if rel == "" {
		return h.prefix
	}
	return h.prefix + "/" + rel
}

// sess opens another raw session on the check's server.
func (h *H) sess() *raw {
	r := session(h.t, h.addr, 30000)
	h.sid(r.sid)
	return r
}

// sid names session ids in order of appearance (s1, s2, …).
func (h *H) sid(id int64) string {
	if n, ok := h.sids[id]; ok {
		return n
	}
	n := fmt.Sprintf("s%d", len(h.sids))
	h.sids[id] = n
	return n
}

// z renders a zxid relative to the check's base.
func (h *H) z(z int64) string {
	switch {
	case z == -1:
		return "-1"
	case z == 0:
		return "0"
	}
	return fmt.Sprintf("z%+d", z-h.base)
}

// st renders a Stat without absolute times or ids.
func (h *H) st(s proto.Stat) string {
	return fmt.Sprintf("czxid=%s mzxid=%s pzxid=%s ver=%d cver=%d aver=%d owner=%s len=%d nc=%d ctime=mtime:%v",
		h.z(s.Czxid), h.z(s.Mzxid), h.z(s.Pzxid), s.Version, s.Cversion, s.Aversion, h.sid(s.EphemeralOwner),
		s.DataLength, s.NumChildren, s.Ctime == s.Mtime)
}

func (h *H) norm(s string) string { return strings.ReplaceAll(s, h.prefix, "$P") }

// note records an observation.
func (h *H) note(format string, args ...any) {
	h.log = append(h.log, h.norm(fmt.Sprintf(format, args...)))
}

// eq records an observation and checks it against the spec's value.
func (h *H) eq(label string, got, want any) {
	h.t.Helper()
	h.note("%s=%v", label, got)
	if !reflect.DeepEqual(got, want) {
		h.t.Errorf("%s: %s = %#v, want %#v", h.tg.name, label, got, want)
	}
}

// hdr renders a reply header.
// Reply xids are checked by raw.call; a normal one renders as "x".
func (h *H) hdr(f frame) string {
	xid := "x"
	if f.xid < 0 {
		xid = fmt.Sprint(f.xid)
	}
	return fmt.Sprintf("{%s %s %d}", xid, h.z(f.zxid), f.err)
}

// evs renders events.
func (h *H) evs(ev []event) string {
	var b strings.Builder
	for i, e := range ev {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d:%s", e.typ, e.state, h.norm(e.path))
	}
	return "[" + b.String() + "]"
}

// expectEvents waits (generously) for n events on r, then briefly for any
// extra one, and returns them all.
func (h *H) expectEvents(r *raw, n int) []event {
	h.t.Helper()
	ev := r.waitEvents(n, 10*time.Second)
	return append(ev, r.waitEvents(1, 300*time.Millisecond)...)
}

// stat decodes a reply body that is a Stat.
func stat(f frame) proto.Stat { return f.dec().Stat() }

// check is one conformance check (ids as in spec §17).
type check struct {
	id    string
	fresh bool          // needs a dedicated, pristine server
	tick  time.Duration // tick time of the dedicated server
	slow  bool          // skipped under -short
	only  string        // run only on this target (behaviour not comparable)
	fn    func(h *H)
}

// TestConformance runs every check of spec §17 on Apache ZooKeeper (when
// installed) and on the embedded server, checks each against the spec's
// expected values, and requires both transcripts to be identical.
func TestConformance(t *testing.T) {
	tgs := targets(t)
	for _, ck := range checks {
		t.Run(ck.id, func(t *testing.T) {
			if ck.slow && testing.Short() {
				t.Skip("slow check skipped under -short")
			}
			if ck.fresh {
				// Dedicated servers are independent: run these in parallel.
				t.Parallel()
			}
			logs := map[string][]string{}
			prefix := fmt.Sprintf("/cf%d-%s", runSeq.Add(1), ck.id)
			for _, tg := range tgs {
				if ck.only != "" && !strings.HasPrefix(tg.name, ck.only) {
					continue
				}
				t.Run(tg.name, func(t *testing.T) {
					addr := tg.addr
					if ck.fresh {
						addr = tg.fresh(t, ck.tick)
					}
					if !ck.fresh {
						// Registered first, so it runs after the check's
						// sessions are closed.
						t.Cleanup(func() { removeTree(t, addr, prefix) })
					}
					h := newH(t, tg, prefix, addr)
					ck.fn(h)
					logs[tg.name] = h.log
				})
			}
			compareTargets(t, logs)
		})
	}
}

// compareTargets compares the embedded servers' transcripts with
// Apache's, or the durable one's with the in-memory one's without Apache.
func compareTargets(t *testing.T, logs map[string][]string) {
	t.Helper()
	ref := logs["apache"]
	for _, name := range []string{"embedded", "embedded-durable"} {
		if name == "embedded-durable" && ref == nil {
			ref = logs["embedded"]
		}
		if got := logs[name]; ref != nil && got != nil {
			compareLogs(t, ref, got)
		}
	}
}

func compareLogs(t *testing.T, apache, embedded []string) {
	t.Helper()
	n := max(len(apache), len(embedded))
	for i := 0; i < n; i++ {
		var a, e string
		if i < len(apache) {
			a = apache[i]
		}
		if i < len(embedded) {
			e = embedded[i]
		}
		if a != e {
			t.Errorf("transcripts differ at line %d:\n  apache:   %s\n  embedded: %s", i+1, a, e)
		}
	}
	if os.Getenv("ZKSERVER_CONFORMANCE_LOG") != "" {
		t.Logf("transcript:\n%s", strings.Join(apache, "\n"))
	}
}

// apacheAvailable reports whether this package runs against Apache ZooKeeper.
func apacheAvailable() bool { return zktest.Kind() == "apache" }

// startApache starts a dedicated Apache ZooKeeper (fresh tree).
func startApache(t *testing.T) string {
	t.Helper()
	return zktest.StartServer(t, zktest.Options{}).Addr()
}

// removeTree deletes a check's subtree from a shared server, so nothing it
// left (an emptied container the server would reap, say) makes a
// transaction during a later check.
func removeTree(t *testing.T, addr, root string) {
	r := session(t, addr, 30000)
	var rm func(p string)
	rm = func(p string) {
		f := r.children2(p, false)
		if f.err != 0 {
			return
		}
		kids, _ := children2Reply(f)
		for _, k := range kids {
			rm(p + "/" + k)
		}
		if f := r.delete(p, -1); f.err != 0 && f.err != int32(proto.ErrNoNode) {
			t.Errorf("cleaning up %s: error %d", p, f.err)
		}
	}
	rm(root)
	r.closeSession()
}
