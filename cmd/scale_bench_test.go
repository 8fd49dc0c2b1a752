package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/scaletree"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// BenchmarkDescribeScale measures `ktopo topics describe --output json`, end
// to end as a process, on 10,000 topics × 10 partitions (RF 3, partition
// states as Kafka leaves them) in real ZooKeeper, against a bare pipelined
// reader of the same znodes (list /brokers/topics, get every topic znode,
// get every state named by the assignments; 128 requests in flight on one
// connection). Rounds alternate; medians are reported, with the process's
// peak RSS as /usr/bin/time reports it. Budget: ≤ 1.5× the bare reader,
// under 300 MiB. Run with: go test -run '^$' -bench DescribeScale .
func BenchmarkDescribeScale(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 110,000-znode tree")
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Skip("needs /usr/bin/time (Debian package time)")
	}
	topics, parts := 10_000, 10
	if s := os.Getenv("KTOPO_SCALE_TOPICS"); s != "" {
		topics, _ = strconv.Atoi(s)
	}
	srv := zktest.StartServer(b, zktest.Options{})
	conn := zktest.Connect(b, srv.Addr())
	root := "/scale"
	start := time.Now()
	if err := (scaletree.Scale{Topics: topics, Partitions: parts, Brokers: 6}).Write(conn, root); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d topics × %d partitions in %s", topics, parts, time.Since(start).Round(time.Millisecond))
	bin := filepath.Join(b.TempDir(), "ktopo")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ktopo/ktopo").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var bare, proc []time.Duration
	var rss []int
	for range 5 {
		t0 := time.Now()
		n, err := bareScaleRead(srv.Addr(), root, 128)
		if err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(t0))
		if want := 1 + topics + topics*parts; n != want {
			b.Fatalf("bare reader read %d znodes, want %d", n, want)
		}
		t0 = time.Now()
		cmd := exec.Command("/usr/bin/time", "-f", "%M", bin, "topics", "describe", "--zookeeper", srv.Addr()+root, "--output", "json")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("describe: %v: %s", err, stderr.String())
		}
		proc = append(proc, time.Since(t0))
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		kb, err := strconv.Atoi(lines[len(lines)-1])
		if err != nil {
			b.Fatalf("rss from %q: %v", stderr.String(), err)
		}
		rss = append(rss, kb)
		if c := bytes.Count(stdout.Bytes(), []byte(`"partition":`)); c != topics*parts {
			b.Fatalf("describe printed %d partitions, want %d", c, topics*parts)
		}
	}
	mb, mp := median(bare), median(proc)
	slices.Sort(rss)
	b.ReportMetric(float64(mb.Milliseconds()), "bare-ms")
	b.ReportMetric(float64(mp.Milliseconds()), "describe-ms")
	b.ReportMetric(float64(mp)/float64(mb), "ratio")
	b.ReportMetric(float64(rss[len(rss)/2])/1024, "peak-RSS-MiB")
	b.Logf("bare %v, describe %v (ratio %.2f), peak RSS %d MiB (rounds: bare %v, describe %v)",
		mb.Round(time.Millisecond), mp.Round(time.Millisecond), float64(mp)/float64(mb), rss[len(rss)/2]/1024, bare, proc)
}

// BenchmarkDescribeVsKafka measures `ktopo topics describe` against Kafka
// 2.8's own `kafka-topics.sh --zookeeper … --describe` on the same 10,000
// topics × 10 partitions (RF 3, configs and partition states as Kafka
// leaves them) in Apache ZooKeeper, both as whole processes (Kafka's with
// kafka-run-class.sh's JVM options: -Xmx256M, G1), rounds alternating:
// median wall time and peak RSS of each, and the ratios. Run with:
// go test -run '^$' -bench DescribeVsKafka ./cmd
func BenchmarkDescribeVsKafka(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 120,000-znode tree")
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Skip("needs /usr/bin/time (Debian package time)")
	}
	kafka := kafkatest.Require(b, kafkatest.Kafka28)
	topics, parts := 10_000, 10
	if s := os.Getenv("KTOPO_SCALE_TOPICS"); s != "" {
		topics, _ = strconv.Atoi(s)
	}
	srv := zktest.StartServer(b, zktest.Options{})
	conn := zktest.Connect(b, srv.Addr())
	root := "/scale"
	if err := (scaletree.Scale{Topics: topics, Partitions: parts, Brokers: 6, Configs: true}).Write(conn, root); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "ktopo")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ktopo/ktopo").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	connect := srv.Addr() + root
	ktopoCmd := []string{bin, "topics", "describe", "--zookeeper", connect}
	kafkaCmd := []string{"java", "-Xmx256M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
		"-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15",
		"-Djava.awt.headless=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-cp", kafka.Classpath(), kafka.TopicCommand(), "--zookeeper", connect, "--describe"}
	var kt, kk []time.Duration
	var ktRSS, kkRSS []int
	for range 5 {
		for _, side := range []struct {
			argv []string
			d    *[]time.Duration
			rss  *[]int
		}{{ktopoCmd, &kt, &ktRSS}, {kafkaCmd, &kk, &kkRSS}} {
			d, kb, out := timedRun(b, side.argv)
			if n := strings.Count(out, "\tPartition: "); n != topics*parts {
				b.Fatalf("%s printed %d partition lines, want %d", side.argv[0], n, topics*parts)
			}
			*side.d = append(*side.d, d)
			*side.rss = append(*side.rss, kb)
		}
	}
	mt, mk := median(kt), median(kk)
	rt, rk := medianInt(ktRSS), medianInt(kkRSS)
	b.ReportMetric(float64(mt.Milliseconds()), "ktopo-ms")
	b.ReportMetric(float64(mk.Milliseconds()), "kafka-ms")
	b.ReportMetric(float64(mk)/float64(mt), "time-ratio")
	b.ReportMetric(float64(rt)/1024, "ktopo-RSS-MiB")
	b.ReportMetric(float64(rk)/1024, "kafka-RSS-MiB")
	b.Logf("ktopo %v, %d MiB; kafka-topics 2.8 %v, %d MiB: Kafka takes %.1f× the time and %.1f× the memory (rounds: ktopo %v, kafka %v)",
		mt.Round(time.Millisecond), rt/1024, mk.Round(time.Millisecond), rk/1024, float64(mk)/float64(mt), float64(rk)/float64(rt), kt, kk)
}

// timedRun runs argv under /usr/bin/time and returns its wall time, peak
// RSS (KiB) and standard output.
func timedRun(b *testing.B, argv []string) (time.Duration, int, string) {
	b.Helper()
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M"}, argv...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v: %s", argv[0], err, stderr.String())
	}
	d := time.Since(t0)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	kb, err := strconv.Atoi(lines[len(lines)-1])
	if err != nil {
		b.Fatalf("rss from %q: %v", stderr.String(), err)
	}
	return d, kb, stdout.String()
}

func medianInt(xs []int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// bareScaleRead reads what describe needs with plain go-zookeeper calls
// (scaletree.BareRead), inflight at a time on one new connection, and
// returns the znodes read.
func bareScaleRead(addr, root string, inflight int) (int, error) {
	conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return scaletree.BareRead(conn, root, inflight, false, false)
}
