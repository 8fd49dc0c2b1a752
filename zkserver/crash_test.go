package zkserver_test

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
)

// childDataDirEnv makes the test binary run only a durable server on that
// directory (see TestMain), for TestCrashRecovery to kill.
const childDataDirEnv = "ZKSERVER_TEST_CHILD_DATADIR"

// childMemory as the data directory runs the child without one.
const childMemory = ":memory:"

// childServer serves until killed and prints its address on stdout.
func childServer(dir string) int {
	every, _ := strconv.Atoi(os.Getenv("ZKSERVER_TEST_CHILD_SNAPSHOT_EVERY"))
	if dir == childMemory {
		dir = ""
	}
	s, err := zkserver.Start(zkserver.Config{DataDir: dir, SnapshotEvery: every, Logger: stderrLogger{}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("listening on %s\n", s.Addr())
	<-s.Done()
	fmt.Fprintln(os.Stderr, s.Err())
	return 1
}

type stderrLogger struct{}

func (stderrLogger) Printf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// child is a server process.
type child struct {
	cmd    *exec.Cmd
	addr   string
	stderr *bytes.Buffer
}

func startChild(t testing.TB, dir string, snapshotEvery int) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDataDirEnv+"="+dir, "ZKSERVER_TEST_CHILD_SNAPSHOT_EVERY="+strconv.Itoa(snapshotEvery))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stderr: &stderr}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child server did not start: %q %v; stderr:\n%s", line, err, stderr.String())
	}
	c.addr = addr
	return c
}

// kill9 kills the child with SIGKILL and waits for it.
func (c *child) kill9(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
}

// crashWorker writes in its own directory, one request at a time, and
// remembers what the server acknowledged: at a kill, at most its one
// request in flight is in doubt.
type crashWorker struct {
	dir      string
	rng      *rand.Rand
	acked    map[string]string // node name → data, as acknowledged
	creates  int               // acknowledged creates under dir (its childCreates)
	nextName int
	maxSeq   int // highest sequence number handed out
	maxZxid  int64
	pending  *pendingOp // the request in flight when the server died
	done     int        // acknowledged requests this round
}

// pendingOp is a request whose reply never came, as its effects.
type pendingOp struct {
	creates map[string]string
	sets    map[string]string
	deletes []string
	seq     string // prefix of a sequential create ("" for none)
	seqData string
	desc    string
}

func (p *pendingOp) createCount() int {
	n := len(p.creates)
	if p.seq != "" {
		n++
	}
	return n
}

// apply returns acked with p's effects (a sequential create's name is
// unknown: seqName gives it).
func (p *pendingOp) apply(acked map[string]string, seqName string) map[string]string {
	out := maps.Clone(acked)
	maps.Copy(out, p.creates)
	maps.Copy(out, p.sets)
	for _, d := range p.deletes {
		delete(out, d)
	}
	if p.seq != "" {
		out[seqName] = p.seqData
	}
	return out
}

func (w *crashWorker) names() []string {
	return slices.Sorted(maps.Keys(w.acked))
}

func (w *crashWorker) pick(exclude ...string) string {
	var cands []string
	for _, n := range w.names() {
		if !slices.Contains(exclude, n) {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		return ""
	}
	return cands[w.rng.IntN(len(cands))]
}

func (w *crashWorker) fresh() string {
	w.nextName++
	return fmt.Sprintf("n%06d", w.nextName)
}

// step sends one request; it returns false once the server is gone.
func (w *crashWorker) step(c *zk.Conn) (bool, error) {
	data := strconv.Itoa(w.rng.IntN(1 << 20))
	p := &pendingOp{creates: map[string]string{}, sets: map[string]string{}}
	var err error
	var seqName string
	var st *zk.Stat
	switch r := w.rng.IntN(10); {
	case r < 3 || len(w.acked) < 4:
		name := w.fresh()
		p.creates[name], p.desc = data, "create "+name
		_, err = c.Create(w.dir+"/"+name, []byte(data), 0, zk.WorldACL(zk.PermAll))
	case r < 5:
		name := w.pick()
		p.sets[name], p.desc = data, "set "+name
		st, err = c.Set(w.dir+"/"+name, []byte(data), -1)
	case r < 6:
		name := w.pick()
		p.deletes, p.desc = []string{name}, "delete "+name
		err = c.Delete(w.dir+"/"+name, -1)
	case r < 7:
		p.seq, p.seqData, p.desc = "s-", data, "sequential create"
		var path string
		path, err = c.Create(w.dir+"/s-", []byte(data), zk.FlagSequence, zk.WorldACL(zk.PermAll))
		seqName = strings.TrimPrefix(path, w.dir+"/")
	default:
		a, b := w.fresh(), w.fresh()
		set := w.pick()
		del := w.pick(set)
		p.creates[a], p.creates[b] = data+"a", data+"b"
		p.sets[set] = data + "s"
		p.deletes = []string{del}
		p.desc = fmt.Sprintf("multi create %s %s, set %s, delete %s", a, b, set, del)
		var res []zk.MultiResponse
		res, err = c.Multi(
			&zk.CreateRequest{Path: w.dir + "/" + a, Data: []byte(data + "a"), Acl: zk.WorldACL(zk.PermAll)},
			&zk.SetDataRequest{Path: w.dir + "/" + set, Data: []byte(data + "s"), Version: -1},
			&zk.CreateRequest{Path: w.dir + "/" + b, Data: []byte(data + "b"), Acl: zk.WorldACL(zk.PermAll)},
			&zk.DeleteRequest{Path: w.dir + "/" + del, Version: -1},
		)
		if err == nil {
			st = res[1].Stat
		}
	}
	if err != nil {
		if isAPIError(err) {
			return false, fmt.Errorf("%s: %w", p.desc, err)
		}
		w.pending = p // the server died: in doubt
		return false, nil
	}
	w.acked = p.apply(w.acked, seqName)
	w.creates += p.createCount()
	if seqName != "" {
		n, _ := strconv.Atoi(strings.TrimPrefix(seqName, "s-"))
		w.maxSeq = max(w.maxSeq, n)
	}
	if st != nil {
		w.maxZxid = max(w.maxZxid, st.Mzxid)
	}
	w.done++
	return true, nil
}

// verify compares the worker's directory after a restart with what was
// acknowledged: equal, or equal with the request in doubt applied in full.
// It then adopts what it found.
func (w *crashWorker) verify(t *testing.T, c *zk.Conn) (inDoubt, applied bool) {
	t.Helper()
	kids, st, err := c.Children(w.dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, k := range kids {
		d, _, err := c.Get(w.dir + "/" + k)
		if err != nil {
			t.Fatal(err)
		}
		got[k] = string(d)
	}
	childCreates := int((st.Cversion + st.NumChildren) / 2)
	applied = false
	switch {
	case maps.Equal(got, w.acked):
	case w.pending != nil:
		seqName := ""
		if w.pending.seq != "" {
			for k := range got {
				if _, ok := w.acked[k]; !ok && strings.HasPrefix(k, w.pending.seq) {
					seqName = k
				}
			}
		}
		if !maps.Equal(got, w.pending.apply(w.acked, seqName)) {
			t.Fatalf("%s: after the crash the tree is neither the acknowledged state nor that plus the whole request in doubt (%s)\n got   %v\n acked %v",
				w.dir, w.pending.desc, got, w.acked)
		}
		applied = true
	default:
		t.Fatalf("%s: after the crash the tree differs from the acknowledged state\n got   %v\n acked %v", w.dir, got, w.acked)
	}
	wantCreates := w.creates
	if applied {
		wantCreates += w.pending.createCount()
	}
	if childCreates != wantCreates {
		t.Fatalf("%s: child creates (from cversion %d, %d children) = %d, want %d", w.dir, st.Cversion, st.NumChildren, childCreates, wantCreates)
	}
	inDoubt = w.pending != nil
	w.acked, w.creates, w.pending = got, wantCreates, nil
	for k := range got {
		if n, ok := strings.CutPrefix(k, "s-"); ok {
			v, _ := strconv.Atoi(n)
			w.maxSeq = max(w.maxSeq, v)
		}
	}
	return inDoubt, applied
}

var srvrZxid = regexp.MustCompile(`Zxid: 0x([0-9a-f]+)`)

// TestCrashRecovery streams writes (creates, sets, deletes, sequential
// creates, multis) from several clients into a durable server in a child
// process, kills it with SIGKILL mid-stream, restarts it on the same
// directory and checks that the tree holds every acknowledged write — an
// unacknowledged one in full or not at all, never half a multi — that
// child counters (cversion, sequence numbers) match, and that the zxid did
// not go back. Several rounds on one directory, with snapshots every few
// dozen transactions so kills also land in the middle of one.
func TestCrashRecovery(t *testing.T) {
	rounds, workers, maxRun := 2, 6, 300*time.Millisecond
	if !testing.Short() {
		rounds, workers, maxRun = 8, 8, 1500*time.Millisecond
	}
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("ZKSERVER_CRASH_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (ZKSERVER_CRASH_SEED repeats the run)", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	ws := make([]*crashWorker, workers)
	for i := range ws {
		ws[i] = &crashWorker{dir: fmt.Sprintf("/crash/w%d", i), rng: rand.New(rand.NewPCG(rng.Uint64(), uint64(i))), acked: map[string]string{}}
	}
	var maxZxid int64
	for round := 0; ; round++ {
		ch := startChild(t, dir, 30+rng.IntN(50))
		admin, ev := gozk(t, ch.addr, 10*time.Second)
		waitState(t, ev, zk.StateHasSession)
		if round == 0 {
			for _, p := range []string{"/crash"} {
				if _, err := admin.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
					t.Fatal(err)
				}
			}
			for _, w := range ws {
				if _, err := admin.Create(w.dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			out, err := zktest.FourLetter(ch.addr, "srvr")
			m := srvrZxid.FindStringSubmatch(out)
			if err != nil || m == nil {
				t.Fatalf("srvr: %q %v", out, err)
			}
			z, _ := strconv.ParseInt(m[1], 16, 64)
			if z < maxZxid {
				t.Fatalf("round %d: restarted at zxid 0x%x, below 0x%x that clients saw", round, z, maxZxid)
			}
			var doubts, applied int
			for _, w := range ws {
				d, a := w.verify(t, admin)
				if d {
					doubts++
				}
				if a {
					applied++
				}
				// The sequence counter goes on from where it was.
				p, err := admin.Create(w.dir+"/s-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
				if err != nil {
					t.Fatal(err)
				}
				n, _ := strconv.Atoi(strings.TrimPrefix(p, w.dir+"/s-"))
				if n != w.creates || n <= w.maxSeq && w.maxSeq > 0 {
					t.Fatalf("round %d: sequential create after restart got %d, want %d (highest handed out before: %d)", round, n, w.creates, w.maxSeq)
				}
				w.acked[strings.TrimPrefix(p, w.dir+"/")] = ""
				w.creates++
				w.maxSeq = n
			}
			t.Logf("round %d: restart checked; of %d requests in doubt, %d had been applied", round, doubts, applied)
		}
		admin.Close()
		if round == rounds {
			return
		}

		var wg sync.WaitGroup
		errs := make(chan error, len(ws))
		conns := make([]*zk.Conn, len(ws))
		for i, w := range ws {
			c, ev := gozk(t, ch.addr, 10*time.Second)
			waitState(t, ev, zk.StateHasSession)
			conns[i] = c
			w.done = 0
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					ok, err := w.step(c)
					if err != nil {
						errs <- err
					}
					if !ok {
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(rng.Int64N(int64(maxRun))) + 20*time.Millisecond)
		ch.kill9(t)
		var cwg sync.WaitGroup
		for _, c := range conns {
			cwg.Add(1)
			go func() { defer cwg.Done(); c.Close() }()
		}
		cwg.Wait()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		total := 0
		for _, w := range ws {
			total += w.done
			maxZxid = max(maxZxid, w.maxZxid)
		}
		t.Logf("round %d: killed after %d acknowledged requests", round, total)
	}
}
