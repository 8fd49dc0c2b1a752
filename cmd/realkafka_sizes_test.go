package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestRealKafkaSizes: on a ZooKeeper-mode Kafka 3.9.2 cluster and a KRaft
// Kafka 4.4 cluster of 3 brokers, Kafka's own kafka-producer-perf-test
// writes 3 topics of about 70 MB each; ktopo brokers --sizes and topics
// describe --sizes (JSON, exact bytes) then equal what kafka-log-dirs
// --describe reports, within 1 %; broker 3 is drained through ktopo
// reassign --generate and --execute --throttle, the throttle chosen so
// that the copies take about 30 s: the ETA --execute prints holds within
// ±25 % of the time the reassignment took (logged), --verify's progress
// rises to 100 %, the throttles are gone at the end, and a consumer reads
// every record produced.
func TestRealKafkaSizes(t *testing.T) {
	t.Run("zookeeper-3.9", func(t *testing.T) {
		kafkatest.Require(t, kafkatest.Kafka39)
		c, err := kafkatest.Start(kafkatest.Options{Version: kafkatest.Kafka39, Brokers: 3,
			Connect: zktest.Addr(t) + zktest.ChrootPath("kafka-sizes"),
			Props:   map[string]string{"auto.leader.rebalance.enable": "false"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Stop)
		kafkatest.Attach(t, c)
		testSizes(t, sizesRig{dist: c.Dist(), bootstrap: c.Bootstrap(), conn: []string{"--zookeeper", c.Connect()}})
	})
	t.Run("kraft-4.4", func(t *testing.T) {
		kafkatest.Require(t, kafkatest.Kafka44)
		c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Controllers: 1, Brokers: 3,
			Props: map[string]string{"auto.leader.rebalance.enable": "false"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Stop)
		kafkatest.Attach(t, c)
		testSizes(t, sizesRig{dist: c.Dist(), bootstrap: c.Bootstrap(), conn: []string{"--bootstrap-server", c.Bootstrap()}})
	})
}

type sizesRig struct {
	dist      *kafkatest.Dist
	bootstrap string
	// conn are ktopo's connection flags.
	conn []string
}

func (r sizesRig) ktopo(t *testing.T, args ...string) string {
	t.Helper()
	return runOK(t, append(args, r.conn...)...)
}

// ktopoAll runs ktopo and returns its standard output and error (the
// progress by bytes is on standard error), failing on a non-zero exit.
func (r sizesRig) ktopoAll(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, append(args, r.conn...)...)
	if code != 0 {
		t.Fatalf("ktopo %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out + errOut
}

func (r sizesRig) tool(t *testing.T, script string, args ...string) string {
	t.Helper()
	res, err := r.dist.Command(script, args...)
	if err != nil || res.Code != 0 {
		t.Fatalf("%s %s: %v %+v", script, strings.Join(args, " "), err, res)
	}
	return res.Stdout
}

var sizesTopics = []string{"sz-a", "sz-b", "sz-c"}

const (
	sizesRecords    = 70000
	sizesRecordSize = 1000
)

func testSizes(t *testing.T, r sizesRig) {
	for _, topic := range sizesTopics {
		r.tool(t, "kafka-topics", "--bootstrap-server", r.bootstrap, "--create", "--topic", topic, "--partitions", "3", "--replication-factor", "2")
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, topic := range sizesTopics {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Kafka's own producer benchmark, in a JVM of its own (it exits
			// the JVM when done), acknowledged by both replicas.
			res, err := r.dist.Run("org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
				"--num-records", strconv.Itoa(sizesRecords), "--record-size", strconv.Itoa(sizesRecordSize), "--throughput", "-1",
				"--producer-props", "bootstrap.servers="+r.bootstrap, "acks=all", "linger.ms=20", "batch.size=262144")
			if err != nil || res.Code != 0 {
				t.Errorf("kafka-producer-perf-test %s: %v %+v", topic, err, res)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("produced %d × %d records of %d bytes in %s", len(sizesTopics), sizesRecords, sizesRecordSize, time.Since(start).Round(time.Millisecond))
	// Every follower caught up: no partition under-replicated.
	waitUntil(t, "every replica in sync", func() bool {
		out := r.ktopo(t, "topics", "describe", "--under-replicated-partitions")
		return strings.TrimSpace(out) == ""
	})
	t.Run("sizes equal kafka-log-dirs'", func(t *testing.T) { compareLogDirs(t, r) })
	t.Run("throttled drain", func(t *testing.T) { drainBySizes(t, r) })
	t.Run("every record is there", func(t *testing.T) { countRecords(t, r, len(sizesTopics)*sizesRecords) })
}

// logDirsReport is kafka-log-dirs --describe's JSON.
type logDirsReport struct {
	Brokers []struct {
		Broker  int `json:"broker"`
		LogDirs []struct {
			LogDir     string `json:"logDir"`
			Partitions []struct {
				Partition string `json:"partition"`
				Size      int64  `json:"size"`
				IsFuture  bool   `json:"isFuture"`
			} `json:"partitions"`
		} `json:"logDirs"`
	} `json:"brokers"`
}

func compareLogDirs(t *testing.T, r sizesRig) {
	out := r.tool(t, "kafka-log-dirs", "--bootstrap-server", r.bootstrap, "--describe")
	var rep logDirsReport
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil {
		t.Fatalf("kafka-log-dirs: %v\n%s", err, out)
	}
	theirBroker := map[int]int64{}
	theirReplica := map[string]int64{} // "topic-p@broker"
	for _, b := range rep.Brokers {
		for _, d := range b.LogDirs {
			for _, p := range d.Partitions {
				theirBroker[b.Broker] += p.Size
				if !p.IsFuture {
					theirReplica[fmt.Sprintf("%s@%d", p.Partition, b.Broker)] = p.Size
				}
			}
		}
	}

	var brokers struct {
		Brokers []struct {
			ID    int `json:"id"`
			Sizes *struct {
				Bytes       int64  `json:"bytes"`
				UsableBytes *int64 `json:"usableBytes"`
			} `json:"sizes"`
		} `json:"brokers"`
	}
	bout := r.ktopo(t, "brokers", "--sizes", "--output", "json")
	if err := json.Unmarshal([]byte(bout), &brokers); err != nil {
		t.Fatalf("brokers --sizes --output json: %v\n%s", err, bout)
	}
	t.Logf("brokers --sizes:\n%s", r.ktopo(t, "brokers", "--sizes"))
	var worst float64
	within := func(what string, ours, theirs int64) {
		t.Helper()
		if theirs == 0 && ours == 0 {
			return
		}
		e := math.Abs(float64(ours-theirs)) / math.Max(1, float64(theirs))
		worst = max(worst, e)
		if e > 0.01 {
			t.Errorf("%s: ktopo %d bytes, kafka-log-dirs %d (%.2f%% apart)", what, ours, theirs, 100*e)
		}
	}
	var total int64
	for _, b := range brokers.Brokers {
		if b.Sizes == nil {
			t.Errorf("broker %d: no sizes\n%s", b.ID, bout)
			continue
		}
		if b.Sizes.UsableBytes == nil {
			t.Errorf("broker %d: no usable bytes (Kafka 3.3+ reports them)", b.ID)
		}
		within(fmt.Sprintf("broker %d", b.ID), b.Sizes.Bytes, theirBroker[b.ID])
		total += b.Sizes.Bytes
	}
	if want := int64(len(sizesTopics) * sizesRecords * sizesRecordSize * 2); total < want {
		t.Errorf("the brokers hold %d bytes, less than the %d produced (× 2 replicas)", total, want)
	}

	var desc struct {
		Topics []struct {
			Name       string `json:"name"`
			Bytes      *int64 `json:"bytes"`
			Partitions []struct {
				Partition    int `json:"partition"`
				ReplicaSizes []struct {
					Broker int   `json:"broker"`
					Bytes  int64 `json:"bytes"`
				} `json:"replicaSizes"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	dout := r.ktopo(t, "topics", "describe", "--sizes", "--output", "json", "--topic", "sz-.*")
	if err := json.Unmarshal([]byte(dout), &desc); err != nil {
		t.Fatalf("topics describe --sizes --output json: %v\n%s", err, dout)
	}
	compared := 0
	for _, tp := range desc.Topics {
		for _, p := range tp.Partitions {
			for _, rs := range p.ReplicaSizes {
				key := fmt.Sprintf("%s-%d@%d", tp.Name, p.Partition, rs.Broker)
				theirs, ok := theirReplica[key]
				if !ok {
					t.Errorf("%s: kafka-log-dirs does not report it", key)
					continue
				}
				within(key, rs.Bytes, theirs)
				compared++
			}
		}
	}
	if want := len(sizesTopics) * 3 * 2; compared != want {
		t.Errorf("compared %d replicas, want %d\n%s", compared, want, dout)
	}
	t.Logf("sizes: %d brokers and %d replicas equal kafka-log-dirs' within 1%% (at most %.3f%% apart; %d bytes in all)", len(brokers.Brokers), compared, 100*worst, total)
}

var (
	etaRE      = regexp.MustCompile(`Estimated time at --throttle \d+ B/s: about (\S+)`)
	progressRE = regexp.MustCompile(`Progress by bytes: .* \((\d+\.\d)%\)`)
)

func parseETA(t *testing.T, out string) time.Duration {
	t.Helper()
	m := etaRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no ETA in:\n%s", out)
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatalf("ETA %q: %v", m[1], err)
	}
	return d
}

// drainBySizes drains broker 3 with a throttle set for about 30 s of
// copying and follows it with --verify.
func drainBySizes(t *testing.T, r sizesRig) {
	dir := t.TempDir()
	topicsFile := filepath.Join(dir, "topics.json")
	var ts []string
	for _, topic := range sizesTopics {
		ts = append(ts, fmt.Sprintf(`{"topic":%q}`, topic))
	}
	if err := os.WriteFile(topicsFile, []byte(`{"version":1,"topics":[`+strings.Join(ts, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	gen := r.ktopo(t, "reassign", "--generate", "--topics-to-move-json-file", topicsFile, "--broker-list", "1,2", "--strategy", "minimal")
	if !strings.Contains(gen, "Bytes to move: ") {
		t.Fatalf("--generate printed no bytes to move:\n%s", gen)
	}
	lines := strings.Split(strings.TrimSpace(gen), "\n")
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(lines[len(lines)-1]), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "Bytes to move") {
			t.Logf("--generate: %s", l)
		}
	}
	// The throttle for 30 s: the estimate is inversely proportional to
	// it (nothing is produced meanwhile).
	probe := int64(1 << 20)
	dry := r.ktopo(t, "reassign", "--execute", "--reassignment-json-file", plan, "--throttle", strconv.FormatInt(probe, 10), "--dry-run")
	throttle := int64(float64(probe) * parseETA(t, dry).Seconds() / 30)
	start := time.Now()
	exec := r.ktopo(t, "reassign", "--execute", "--reassignment-json-file", plan, "--throttle", strconv.FormatInt(throttle, 10), "--no-wait")
	eta := parseETA(t, exec)
	t.Logf("--execute --throttle %d: %s", throttle, etaRE.FindString(exec))

	var took time.Duration
	var pcts []float64
	var last string
	deadline := time.Now().Add(3 * eta)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("the reassignment did not finish in %s (3 × its ETA); last --verify:\n%s", time.Since(start), last)
		}
		last = r.ktopoAll(t, "reassign", "--verify", "--reassignment-json-file", plan)
		if m := progressRE.FindStringSubmatch(last); m != nil {
			p, _ := strconv.ParseFloat(m[1], 64)
			if n := len(pcts); n > 0 && p < pcts[n-1] {
				t.Errorf("progress went back from %.1f%% to %.1f%%:\n%s", pcts[n-1], p, last)
			}
			pcts = append(pcts, p)
		}
		if !strings.Contains(last, "in progress") {
			took = time.Since(start)
			break
		}
		time.Sleep(time.Second)
	}
	if n := len(pcts); n < 3 || pcts[n-1] != 100 {
		t.Errorf("--verify's progress %v: want several readings ending at 100%%; last --verify:\n%s", pcts, last)
	}
	errPct := 100 * (eta.Seconds() - took.Seconds()) / took.Seconds()
	t.Logf("ETA %s, took %s: error %+.1f%%; progress by --verify: %v", eta, took.Round(100*time.Millisecond), errPct, pcts)
	if math.Abs(errPct) > 25 {
		t.Errorf("the ETA %s is %.1f%% off the %s the reassignment took (want within ±25%%)", eta, errPct, took)
	}
	// --verify removed the throttles once all was done.
	for _, kind := range []string{"brokers", "topics"} {
		out := r.tool(t, "kafka-configs", "--bootstrap-server", r.bootstrap, "--describe", "--entity-type", kind)
		if strings.Contains(out, "throttled") {
			t.Errorf("throttles left on the %s:\n%s", kind, out)
		}
	}
	// Broker 3 holds nothing of the topics any more.
	desc := r.ktopo(t, "topics", "describe", "--topic", "sz-.*")
	for _, rec := range describeRecords(t, desc) {
		if reps, ok := rec["Replicas"]; ok && strings.Contains(","+reps+",", ",3,") {
			t.Errorf("broker 3 still holds %s-%s (%s)", rec["Topic"], rec["Partition"], reps)
		}
	}
}

// countRecords consumes the topics from the start and counts the records.
func countRecords(t *testing.T, r sizesRig, want int) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(r.bootstrap, ",")...), kgo.ConsumeTopics(sizesTopics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n := 0
	for n < want && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachError(func(topic string, p int32, err error) {
			if ctx.Err() == nil {
				t.Logf("fetch %s-%d: %v", topic, p, err)
			}
		})
		n += fs.NumRecords()
	}
	if n != want {
		t.Errorf("consumed %d records, produced %d", n, want)
	}
}
