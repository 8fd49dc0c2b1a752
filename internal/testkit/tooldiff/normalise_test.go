package tooldiff

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/kafka-4.4/*.norm from the outputs")

// kafkaNames are the names of the Kafka 4.4.0 cluster that printed
// testdata/kafka-4.4 (3 controllers, 3 brokers).
var kafkaNames = Names{
	ClusterID: "JSGiypWddbgPlOWiC3in9A",
	Nodes: map[string]string{
		"127.0.0.1:13151": "<broker 1>", "127.0.0.1:29912": "<broker 2>", "127.0.0.1:30825": "<broker 3>",
		"127.0.0.1:15765": "<controller 3000>", "127.0.0.1:14857": "<controller 3001>", "127.0.0.1:32367": "<controller 3002>",
	},
}

// placedIn is the topics placed by the controller in each output.
var placedIn = map[string][]string{"describe-placed.txt": {"diff-b"}}

// TestNormaliseKafkaOutputs normalises what Kafka 4.4.0's tools printed
// and compares with the expected text (go test -update rewrites it).
func TestNormaliseKafkaOutputs(t *testing.T) {
	files, _ := filepath.Glob("testdata/kafka-4.4/*.txt")
	if len(files) == 0 {
		t.Fatal("no outputs in testdata/kafka-4.4")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := kafkaNames.Normalise(string(raw), placedIn[filepath.Base(f)]...)
		golden := strings.TrimSuffix(f, ".txt") + ".norm"
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s:\n%s", f, Unified("want", "got", string(want), got))
		}
		// Nothing that differs between clusters is left.
		for _, leak := range []string{kafkaNames.ClusterID, "127.0.0.1", "/tmp/", "1796649"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: %q left after normalising:\n%s", f, leak, got)
			}
		}
	}
}

// other is what another cluster of the same shape (the sandbox) prints:
// each output of testdata/kafka-4.4 with its ids, addresses, paths, times,
// offsets, epochs and sizes changed.
func other(raw string) (string, Names) {
	n := Names{ClusterID: "q1Sg8Hc0RkmqIhPKxk0N2w", Nodes: map[string]string{}}
	for addr, name := range kafkaNames.Nodes {
		port := strings.TrimPrefix(addr, "127.0.0.1:")
		na := "127.0.0.1:4" + port[1:]
		raw = strings.ReplaceAll(raw, addr, na)
		n.Nodes[na] = name
	}
	raw = strings.ReplaceAll(raw, kafkaNames.ClusterID, n.ClusterID)
	for _, r := range []struct{ re, with string }{
		{`TopicId: [A-Za-z0-9_-]{22}`, "TopicId: zzzzzzzzzzzzzzzzzzzzzz"},
		{`/tmp/ktopo-kafkatest/[0-9-]+/broker-(\d)-data`, "/var/lib/kafka/broker-$1"},
		{`"size":[1-9]\d*`, `"size":12345`},
		{`(?m)^(LeaderId:\s+)3000`, "${1}3001"},
		{`(?m)^(LeaderEpoch:\s+)\d+`, "${1}4"},
		{`(?m)^(HighWatermark:\s+)\d+`, "${1}77"},
		{`"directoryId": "[^"]+"`, `"directoryId": "yyyyyyyyyyyyyyyyyyyyyy"`},
		{`1796649\d+`, "1700000000000"},
		{`\t1216 +\t`, "\t77          \t"},
		{`Epoch: 9\b`, "Epoch: 42"},
		{`(?m)^3000  \t`, "3001  \t"},
		{`(?m)^3001  \t`, "3000  \t"},
		// The observers in another order (a HashMap's in Kafka).
		{`\[\{"id": 3, ("directoryId": "\w+")\}, \{"id": 1, ("directoryId": "\w+")\}`, `[{"id": 1, $2}, {"id": 3, $1}`},
		{`(?m)^(3     \t.*)\n(1     \t.*)$`, "$2\n$1"},
	} {
		raw = regexp.MustCompile(r.re).ReplaceAllString(raw, r.with)
	}
	return raw, n
}

// TestNormaliseMasksOnlyWhatDiffers: an output that differs only in what
// Normalise masks normalises the same; one whose placement, messages or
// configs differ does not.
func TestNormaliseMasksOnlyWhatDiffers(t *testing.T) {
	files, _ := filepath.Glob("testdata/kafka-4.4/*.txt")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		placed := placedIn[filepath.Base(f)]
		theirs, names := other(string(raw))
		if theirs == string(raw) && !strings.Contains(f, "config") {
			t.Errorf("%s: the variant changes nothing", f)
		}
		a, b := kafkaNames.Normalise(string(raw), placed...), names.Normalise(theirs, placed...)
		if a != b {
			t.Errorf("%s: normalised outputs differ:\n%s", f, Unified("kafka", "variant", a, b))
		}
	}
	for _, c := range []struct{ file, from, to string }{
		{"describe-after-moves.txt", "Leader: 2\tReplicas: 2,1,3", "Leader: 1\tReplicas: 2,1,3"},
		{"describe-after-moves.txt", "Isr: 1,2,3", "Isr: 1,2"},
		{"describe-after-moves.txt", "PartitionCount: 4", "PartitionCount: 3"},
		{"describe-after-moves.txt", "max.message.bytes=2000000", "max.message.bytes=2000001"},
		{"describe-placed.txt", "ReplicationFactor: 2", "ReplicationFactor: 3"},
		{"reassign-throttled.txt", `"replicas":[1,2]`, `"replicas":[2,1]`},
		{"reassign-throttled.txt", "1024 B/s", "1000 B/s"},
		{"log-dirs.txt", `"partition":"diff-c-0"`, `"partition":"diff-c-1"`},
		{"log-dirs.txt", `"isFuture":false`, `"isFuture":true`},
		{"log-dirs.txt", `"size":0`, `"size":1`},
		{"log-dirs.txt", `"offsetLag":0`, `"offsetLag":1`},
		{"quorum-status.txt", `{"id": 3001`, `{"id": 3003`},
		{"quorum-status.txt", `{"id": 3, "directoryId"`, `{"id": 4, "directoryId"`},
		{"quorum-replication.txt", "Follower", "Observer"},
		{"quorum-replication.txt", "\n3     \t", "\n4     \t"},
		{"features.txt", "FinalizedVersionLevel: 1 ", "FinalizedVersionLevel: 0 "},
		{"features.txt", "SupportedMaxVersion: 4.4-IV2", "SupportedMaxVersion: 4.4-IV1"},
		{"topic-config-describe.txt", "DEFAULT_CONFIG:message.max.bytes=1048588", "DEFAULT_CONFIG:message.max.bytes=1048576"},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata/kafka-4.4", c.file))
		if err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(string(raw), c.from, c.to, 1)
		if changed == string(raw) {
			t.Errorf("%s: %q not found", c.file, c.from)
			continue
		}
		placed := placedIn[c.file]
		if kafkaNames.Normalise(string(raw), placed...) == kafkaNames.Normalise(changed, placed...) {
			t.Errorf("%s: %q → %q is masked, but it is a real difference", c.file, c.from, c.to)
		}
	}
}

func TestNormaliseUnknownAddressAndLiterals(t *testing.T) {
	n := kafkaNames
	n.Literals = map[string]string{"/tmp/TestDifferential1/001": "<dir>"}
	got := n.Normalise("Error connecting to node localhost:9999 (id: 1 rack: null), 127.0.0.1:13151 --command-config /tmp/TestDifferential1/001/admin.properties")
	if want := "Error connecting to node <addr> (id: 1 rack: null), <broker 1> --command-config <dir>/admin.properties"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestUnified(t *testing.T) {
	if d := Unified("a", "b", "x\ny\n", "x\ny\n"); d != "" {
		t.Errorf("equal texts: %q", d)
	}
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n"
	want := `--- a
+++ b
@@ -2,7 +2,7 @@
 2
 3
 4
-5
+five
 6
 7
 8
@@ -10,3 +10,4 @@
 10
 11
 12
+13
`
	if got := Unified("a", "b", a, b); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got, want := Unified("a", "b", "", "x\n"), "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
