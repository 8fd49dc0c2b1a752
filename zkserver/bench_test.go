package zkserver_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
	"github.com/ktopo/ktopo/zkserver/internal/proto"
	"github.com/ktopo/ktopo/zkwatch"
)

// The benchmarks below compare the embedded server with Apache ZooKeeper
// 3.8 (started through scripts/zk-test-server) in the same run.
// Each runs its workload in several rounds, alternating the servers (and
// their order) so that load from elsewhere on the machine hits both
// alike, and reports the median of each. Run them with
//
//	go test -run '^$' -bench . -benchtime 1x ./zkserver/
//
// (ZKSERVER_BENCH_ROUNDS changes the number of rounds, default 5). They
// are skipped under -short. The embedded server runs in a child process
// (this test binary re-executed), as Apache's runs in its JVM: in this
// process it would share the benchmark client's Go scheduler and skip the
// cross-process wake-ups Apache pays for. Server kinds:
//
//	embedded          in memory (no Config.DataDir)
//	embedded-durable  Config.DataDir on the local disk: every write fsync'd before its reply
//	apache            Apache ZooKeeper 3.8 as the test script runs it (forceSync=no)
//	apache-fsync      the same with forceSync=yes (ZooKeeper's production default)

// benchServer is one server under benchmark.
type benchServer struct {
	kind string
	addr string
	pid  int // Apache's JVM
	emb  *zkserver.Server
}

// startBench starts a server of the given kind; ok is false for an Apache
// kind when Apache ZooKeeper is not installed.
func startBench(b *testing.B, kind string) (*benchServer, bool) {
	b.Helper()
	switch kind {
	case "embedded", "embedded-durable":
		dir := childMemory
		if kind == "embedded-durable" {
			dir = b.TempDir()
		}
		ch := startChild(b, dir, 0)
		return &benchServer{kind: kind, addr: ch.addr}, true
	case "apache", "apache-fsync":
		if zktest.Kind() != "apache" {
			return nil, false
		}
		sync := "no"
		if kind == "apache-fsync" {
			sync = "yes"
		}
		b.Setenv("ZK_FORCE_SYNC", sync)
		s := zktest.StartServer(b, zktest.Options{})
		pid, _ := os.ReadFile(filepath.Join(s.Dir(), "zk.pid"))
		n, _ := strconv.Atoi(strings.TrimSpace(string(pid)))
		return &benchServer{kind: kind, addr: s.Addr(), pid: n}, true
	}
	b.Fatalf("unknown server kind %s", kind)
	return nil, false
}

func benchRounds() int {
	if n, err := strconv.Atoi(os.Getenv("ZKSERVER_BENCH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 5
}

func skipShort(b *testing.B) {
	if testing.Short() {
		b.Skip("needs big trees or Apache ZooKeeper: skipped under -short")
	}
}

// compare runs measure on every server for rounds rounds, alternating the
// order, and reports each server's median (and the rounds in the log).
func compare(b *testing.B, unit string, servers []*benchServer, measure func(s *benchServer, round int) float64) map[string]float64 {
	b.Helper()
	rounds := benchRounds()
	got := map[string][]float64{}
	for r := range rounds {
		order := slices.Clone(servers)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, s := range order {
			got[s.kind] = append(got[s.kind], measure(s, r))
		}
	}
	med := map[string]float64{}
	for _, s := range servers {
		v := slices.Clone(got[s.kind])
		slices.Sort(v)
		med[s.kind] = v[len(v)/2]
		b.ReportMetric(med[s.kind], s.kind+"-"+unit)
		b.Logf("%-17s median %12.1f %s   rounds %s", s.kind, med[s.kind], unit, fmtRounds(got[s.kind]))
	}
	return med
}

func fmtRounds(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(parts, " ")
}

// servers starts the given kinds, leaving out Apache ones when it is not
// installed.
func servers(b *testing.B, kinds ...string) []*benchServer {
	var out []*benchServer
	for _, k := range kinds {
		if s, ok := startBench(b, k); ok {
			out = append(out, s)
		} else {
			b.Logf("%s: Apache ZooKeeper not installed, not measured", k)
		}
	}
	return out
}

// pipeline keeps depth requests in flight on one raw session for d and
// returns the number of replies and the time until the last one. req builds the
// i-th request payload (after xid and opcode) into e; check, when set,
// inspects each reply payload.
type pipeline struct {
	r     *raw
	op    int32
	depth int
	req   func(e *proto.Encoder, i int)
	check func(payload []byte) error
}

func (p *pipeline) run(d time.Duration) (int, time.Duration, error) {
	tokens := make(chan struct{}, p.depth)
	for range p.depth {
		tokens <- struct{}{}
	}
	var sent atomic.Int64
	stopped := make(chan struct{})
	progress := make(chan struct{}, 1)
	writeErr := make(chan error, 1)
	start := time.Now()
	go func() {
		defer close(stopped)
		e := proto.Encoder{}
		i := 0
		for time.Since(start) < d {
			<-tokens
			k := 1
		more:
			for k < p.depth {
				select {
				case <-tokens:
					k++
				default:
					break more
				}
			}
			e.B = e.B[:0]
			for range k {
				off := e.BeginFrame()
				p.r.xid++
				e.Int(p.r.xid)
				e.Int(p.op)
				p.req(&e, i)
				e.EndFrame(off)
				i++
			}
			if _, err := p.r.nc.Write(e.B); err != nil {
				writeErr <- err
				return
			}
			sent.Add(int64(k))
			select {
			case progress <- struct{}{}:
			default:
			}
		}
	}()
	received := 0
	var hdr [4]byte
	var buf []byte
	_ = p.r.nc.SetReadDeadline(time.Now().Add(d + 60*time.Second))
	for {
		for int64(received) == sent.Load() {
			// Nothing outstanding: wait for the writer to send more or stop.
			select {
			case <-stopped:
				if int64(received) == sent.Load() {
					select {
					case err := <-writeErr:
						return 0, 0, err
					default:
					}
					return received, time.Since(start), nil
				}
			case <-progress:
			}
		}
		if _, err := io.ReadFull(p.r.r, hdr[:]); err != nil {
			return 0, 0, err
		}
		n := int(binary.BigEndian.Uint32(hdr[:]))
		if p.check != nil {
			if cap(buf) < n {
				buf = make([]byte, n)
			}
			if _, err := io.ReadFull(p.r.r, buf[:n]); err != nil {
				return 0, 0, err
			}
			if err := p.check(buf[:n]); err != nil {
				return 0, 0, err
			}
		} else if _, err := p.r.r.Discard(n); err != nil {
			return 0, 0, err
		}
		received++
		tokens <- struct{}{}
	}
}

// BenchmarkGetData: pipelined getData of a 150-byte znode, 64 requests in
// flight per connection, over one and over four connections (raw clients,
// so the client costs little), and through go-zookeeper (64 goroutines
// sharing one connection, what zkwatch does).
func BenchmarkGetData(b *testing.B) {
	skipShort(b)
	srvs := servers(b, "embedded", "apache")
	const path = "/bench-get"
	for _, s := range srvs {
		r := session(b, s.addr, 30000)
		if f := r.create(path, make([]byte, 150), 0); f.err != 0 {
			b.Fatalf("%s: create: %d", s.kind, f.err)
		}
	}
	getData := func(e *proto.Encoder, _ int) { e.String(path); e.Bool(false) }
	const window = time.Second
	for _, conns := range []int{1, 4} {
		b.Run(fmt.Sprintf("raw/conns=%d/inflight=64", conns), func(b *testing.B) {
			sessions := map[string][]*raw{}
			for _, s := range srvs {
				for range conns {
					sessions[s.kind] = append(sessions[s.kind], session(b, s.addr, 30000))
				}
			}
			med := compare(b, "gets/s", srvs, func(s *benchServer, _ int) float64 {
				var total atomic.Int64
				var wg sync.WaitGroup
				for _, r := range sessions[s.kind] {
					wg.Add(1)
					go func() {
						defer wg.Done()
						p := &pipeline{r: r, op: proto.OpGetData, depth: 64, req: getData}
						n, took, err := p.run(window)
						if err != nil {
							b.Error(err)
						}
						total.Add(int64(float64(n) / took.Seconds()))
					}()
				}
				wg.Wait()
				return float64(total.Load())
			})
			reportRatio(b, med, "embedded", "apache")
		})
	}
	b.Run("go-zookeeper/conns=1/goroutines=64", func(b *testing.B) {
		conns := map[string]*zk.Conn{}
		for _, s := range srvs {
			conns[s.kind] = benchConn(b, s.addr)
		}
		med := compare(b, "gets/s", srvs, func(s *benchServer, _ int) float64 {
			c := conns[s.kind]
			var n atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Since(start) < window {
						if _, _, err := c.Get(path); err != nil {
							b.Error(err)
							return
						}
						n.Add(1)
					}
				}()
			}
			wg.Wait()
			return float64(n.Load()) / time.Since(start).Seconds()
		})
		reportRatio(b, med, "embedded", "apache")
	})
}

func reportRatio(b *testing.B, med map[string]float64, a, c string) {
	if med[a] > 0 && med[c] > 0 {
		b.Logf("%s / %s = %.2f", a, c, med[a]/med[c])
	}
}

// multiCreate is a multi request body creating parent and n children of
// 150 bytes (names as long as Kafka topic paths).
func multiCreate(e *proto.Encoder, parent string, n int, data []byte) {
	acl := []proto.ACL{{Perms: proto.PermAll, Scheme: "world", ID: "anyone"}}
	op := func(p string, d []byte) {
		e.Int(proto.OpCreate)
		e.Bool(false)
		e.Int(-1)
		e.String(p)
		e.Buffer(d)
		e.ACLs(acl)
		e.Int(0)
	}
	op(parent, nil)
	for j := range n {
		op(parent+"/bench-topic-name-"+fmt.Sprintf("%06d", j), data)
	}
	e.Int(-1)
	e.Bool(true)
	e.Int(-1)
}

// multiOK checks a multi reply: header error 0 and a successful first op.
func multiOK(p []byte) error {
	d := proto.NewDecoder(p)
	_, _, herr := d.Int(), d.Long(), d.Int()
	typ := d.Int()
	if herr != 0 || typ == proto.OpError || d.Err() != nil {
		return fmt.Errorf("multi failed: header err %d, first result type %d", herr, typ)
	}
	return nil
}

var benchSeq atomic.Int64

// BenchmarkMultiCreate: creates through multis of 1,000 creates (150-byte
// znodes), one multi in flight and four (pipelined on one connection: the
// durable servers then share fsyncs between multis).
func BenchmarkMultiCreate(b *testing.B) {
	skipShort(b)
	srvs := servers(b, "embedded", "embedded-durable", "apache", "apache-fsync")
	data := make([]byte, 150)
	for _, inflight := range []int{1, 4} {
		b.Run(fmt.Sprintf("batch=1000/inflight=%d", inflight), func(b *testing.B) {
			sessions := map[string]*raw{}
			for _, s := range srvs {
				sessions[s.kind] = session(b, s.addr, 30000)
			}
			med := compare(b, "creates/s", srvs, func(s *benchServer, _ int) float64 {
				p := &pipeline{r: sessions[s.kind], op: proto.OpMulti, depth: inflight, check: multiOK,
					req: func(e *proto.Encoder, _ int) {
						multiCreate(e, fmt.Sprintf("/bench-multi-%d", benchSeq.Add(1)), 1000, data)
					}}
				n, took, err := p.run(time.Second)
				if err != nil {
					b.Fatal(err)
				}
				return float64(n*1000) / took.Seconds()
			})
			reportRatio(b, med, "embedded", "apache")
			reportRatio(b, med, "embedded-durable", "apache-fsync")
		})
	}
}

// mntrValue reads one numeric mntr key.
func mntrValue(b *testing.B, addr, key string) float64 {
	out, err := zktest.FourLetter(addr, "mntr")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok && k == key {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	b.Fatalf("mntr of %s has no %s", addr, key)
	return 0
}

// BenchmarkConcurrentWrites: setData of 150 bytes from many connections,
// each with one request in flight (as go-zookeeper clients write): with a
// durable log, group commit lets concurrent writes share an fsync. The
// log shows the fsyncs each server made and the writes per fsync (mntr's
// zk_cnt_fsynctime, zk_sum_sync_processor_batch_size).
func BenchmarkConcurrentWrites(b *testing.B) {
	skipShort(b)
	srvs := servers(b, "embedded-durable", "apache-fsync")
	data := make([]byte, 150)
	for _, conns := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			sessions := map[string][]*raw{}
			for _, s := range srvs {
				for i := range conns {
					r := session(b, s.addr, 30000)
					if f := r.create(fmt.Sprintf("/cw-%d-%d", conns, i), nil, 0); f.err != 0 && f.err != proto.ErrNodeExists {
						b.Fatalf("create: %d", f.err)
					}
					sessions[s.kind] = append(sessions[s.kind], r)
				}
			}
			perSync := map[string][]float64{}
			compare(b, "writes/s", srvs, func(s *benchServer, _ int) float64 {
				syncs0, recs0 := mntrValue(b, s.addr, "zk_cnt_fsynctime"), mntrValue(b, s.addr, "zk_sum_sync_processor_batch_size")
				var total atomic.Int64
				var wg sync.WaitGroup
				for i, r := range sessions[s.kind] {
					wg.Add(1)
					go func() {
						defer wg.Done()
						path := fmt.Sprintf("/cw-%d-%d", conns, i)
						p := &pipeline{r: r, op: proto.OpSetData, depth: 1,
							req: func(e *proto.Encoder, _ int) { e.String(path); e.Buffer(data); e.Int(-1) }}
						n, took, err := p.run(time.Second)
						if err != nil {
							b.Error(err)
						}
						total.Add(int64(float64(n) / took.Seconds()))
					}()
				}
				wg.Wait()
				syncs, recs := mntrValue(b, s.addr, "zk_cnt_fsynctime")-syncs0, mntrValue(b, s.addr, "zk_sum_sync_processor_batch_size")-recs0
				if syncs > 0 {
					perSync[s.kind] = append(perSync[s.kind], recs/syncs)
				}
				return float64(total.Load())
			})
			for _, s := range srvs {
				b.Logf("%-17s transactions per fsync by round: %s", s.kind, fmtRounds(perSync[s.kind]))
			}
		})
	}
}

var heapUsed = regexp.MustCompile(`generation\s+total \d+K, used (\d+)K`)

// jvmHeap returns the JVM's live heap after a full collection.
func jvmHeap(b *testing.B, pid int) float64 {
	b.Helper()
	if out, err := exec.Command("jcmd", strconv.Itoa(pid), "GC.run").CombinedOutput(); err != nil {
		b.Skipf("jcmd GC.run: %v: %s", err, out)
	}
	out, err := exec.Command("jcmd", strconv.Itoa(pid), "GC.heap_info").CombinedOutput()
	if err != nil {
		b.Skipf("jcmd GC.heap_info: %v: %s", err, out)
	}
	var kb float64
	for _, m := range heapUsed.FindAllStringSubmatch(string(out), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		kb += v
	}
	return kb * 1024
}

// goHeap returns the live Go heap after a full collection.
func goHeap() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}

// BenchmarkMemory100k: the heap 100,000 znodes of 150 bytes take (under
// one parent, names like Kafka topic paths), on a fresh server each round:
// for the embedded server the Go heap of this process (the raw client
// keeps nothing), for Apache the JVM heap after a full GC (jcmd).
func BenchmarkMemory100k(b *testing.B) {
	skipShort(b)
	data := make([]byte, 150)
	rounds := max(benchRounds()/2, 1)
	res := map[string][]float64{}
	for range rounds {
		for _, kind := range []string{"embedded", "embedded-durable", "apache"} {
			var before float64
			measure := func(s *benchServer) float64 {
				if s.emb != nil {
					return goHeap()
				}
				return jvmHeap(b, s.pid)
			}
			func() {
				var s *benchServer
				if strings.HasPrefix(kind, "embedded") {
					// In this process: its heap is what is measured.
					cfg := zkserver.Config{}
					if kind == "embedded-durable" {
						cfg.DataDir = b.TempDir()
					}
					emb, err := zkserver.Start(cfg)
					if err != nil {
						b.Fatal(err)
					}
					s = &benchServer{kind: kind, addr: emb.Addr(), emb: emb}
				} else if s, _ = startBench(b, kind); s == nil {
					return
				}
				r := session(b, s.addr, 30000)
				before = measure(s)
				for i := range 100 {
					f := r.call(proto.OpMulti, func(e *proto.Encoder) { multiCreate(e, fmt.Sprintf("/mem%03d", i), 1000, data) })
					if f.err != 0 || f.dec().Int() == proto.OpError {
						b.Fatalf("%s: multi failed", kind)
					}
				}
				r.closeSession()
				after := measure(s)
				res[kind] = append(res[kind], (after-before)/(1<<20))
				if s.emb != nil {
					_ = s.emb.Close()
				}
			}()
		}
	}
	for _, kind := range []string{"embedded", "embedded-durable", "apache"} {
		v := res[kind]
		if len(v) == 0 {
			continue
		}
		slices.Sort(v)
		b.ReportMetric(v[len(v)/2], kind+"-MiB/100k-znodes")
		b.Logf("%-17s median %6.1f MiB per 100,000 znodes of 150 B   rounds %s", kind, v[len(v)/2], fmtRounds(v))
	}
}

// populateKafka writes what ZooKeeper holds for topics × partitions Kafka
// topics (config, assignment, partition and state znodes: 23 per topic of
// 10 partitions) plus the cluster id and controller znodes, in multis.
func populateKafka(b *testing.B, addr string, topics, partitions int) {
	b.Helper()
	r := session(b, addr, 30000)
	acl := []proto.ACL{{Perms: proto.PermAll, Scheme: "world", ID: "anyone"}}
	var ops []multiOp
	flush := func() {
		if len(ops) == 0 {
			return
		}
		f := r.call(proto.OpMulti, multiBody(ops...))
		if f.err != 0 || f.dec().Int() == proto.OpError {
			b.Fatalf("populate: multi failed")
		}
		ops = ops[:0]
	}
	add := func(p string, data []byte) {
		ops = append(ops, multiOp{proto.OpCreate, createBody(p, data, acl, 0)})
		if len(ops) >= 1000 {
			flush()
		}
	}
	for _, p := range []string{"/cluster", "/brokers", "/brokers/ids", "/brokers/topics", "/config", "/config/topics", "/admin", "/admin/delete_topics", "/isr_change_notification"} {
		add(p, nil)
	}
	add(cluster.ClusterIDPath, cluster.EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv"))
	add(cluster.ControllerEpochPath, []byte("1"))
	for t := range topics {
		name := fmt.Sprintf("topic-%05d", t)
		parts := make(map[int][]int, partitions)
		for p := range partitions {
			parts[p] = []int{(t + p) % 6, (t + p + 1) % 6, (t + p + 2) % 6}
		}
		add(cluster.TopicConfigPath(name), cluster.EncodeEntityConfig(nil))
		add(cluster.TopicPath(name), cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(parts, cluster.NewTopicID().String())))
		add(cluster.TopicPartitionsPath(name), nil)
		for p := range partitions {
			add(cluster.PartitionPath(name, p), nil)
			add(cluster.PartitionStatePath(name, p), cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: parts[p][0], LeaderEpoch: 0, ISR: parts[p], Version: 1}))
		}
	}
	flush()
	r.closeSession()
}

// BenchmarkMirrorLoad: the time ktopo takes to load a cluster of 10,000
// topics × 10 partitions through its mirror as the TUI does (zksource.Open:
// zkwatch.Mirror with zksource.Shape, a watch on every znode, decoded into the
// cluster model; zksource.Load, for one-shot commands, sets no watches) from
// each server.
func BenchmarkMirrorLoad(b *testing.B) {
	skipShort(b)
	const topics, partitions = 10_000, 10
	srvs := servers(b, "embedded", "apache")
	for _, s := range srvs {
		start := time.Now()
		populateKafka(b, s.addr, topics, partitions)
		b.Logf("%s: populated %d topics × %d partitions in %v", s.kind, topics, partitions, time.Since(start).Round(time.Millisecond))
	}
	med := compare(b, "ms", srvs, func(s *benchServer, _ int) float64 {
		ctx := context.Background()
		conn, err := zkwatch.Connect(ctx, s.addr, zkwatch.Options{RequestTimeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		w, err := zksource.Open(conn, cluster.ModelOptions{}, zkwatch.MirrorOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		if _, err := w.Loaded(ctx); err != nil {
			b.Fatal(err)
		}
		snap := w.Model.Snapshot()
		took := time.Since(start)
		if n := len(snap.Topics()); n != topics {
			b.Fatalf("%s: loaded %d topics, want %d", s.kind, n, topics)
		}
		return float64(took) / float64(time.Millisecond)
	})
	reportRatio(b, med, "embedded", "apache")
}

func benchConn(b *testing.B, addr string) *zk.Conn {
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(zktest.NewLogger(b)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}
