package kraftsandbox

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// realKRaft is a real Kafka 4.4 KRaft cluster of 3 controllers and 3
// brokers to compare with: the one KTOPO_REAL_KRAFT_BOOTSTRAP and
// KTOPO_REAL_KRAFT_CONTROLLERS name (a running one, only read and given
// a topic of this test's), else one started for the test.
func realKRaft(t *testing.T) (bootstrap, controllers string) {
	t.Helper()
	bs, cs := os.Getenv("KTOPO_REAL_KRAFT_BOOTSTRAP"), os.Getenv("KTOPO_REAL_KRAFT_CONTROLLERS")
	if bs != "" && cs != "" {
		return bs, cs
	}
	rc, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44})
	if err != nil {
		if os.Getenv("CI") != "true" {
			t.Skipf("skipping: no real Kafka 4.4 cluster: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(rc.Stop)
	return rc.Bootstrap(), rc.ControllerBootstrap()
}

var (
	digits    = regexp.MustCompile(`[0-9]+`)
	dirIDs    = regexp.MustCompile(`\b[A-Za-z0-9_-]{22}\b`)
	spaces    = regexp.MustCompile(`[ \t]+`)
	clusterID = regexp.MustCompile(`ClusterId:\s+\S+`)
	epochs    = regexp.MustCompile(`Epoch: [0-9]+|controller [0-9]+`)
)

// normalQuorum is kafka-metadata-quorum's output up to ids, offsets,
// times and columns' widths; a static voter's zero directory id stays.
func normalQuorum(s string) string {
	s = clusterID.ReplaceAllString(s, "ClusterId: CID")
	s = dirIDs.ReplaceAllStringFunc(s, func(id string) string {
		if id == "AAAAAAAAAAAAAAAAAAAAAA" {
			return id
		}
		return "DIRID"
	})
	s = digits.ReplaceAllString(s, "N")
	return spaces.ReplaceAllString(s, " ")
}

// normalFeatures is kafka-features' output up to the epochs and the
// active controller's id.
func normalFeatures(s string) string {
	return spaces.ReplaceAllString(epochs.ReplaceAllString(s, "N"), " ")
}

// normalLogDirs is kafka-log-dirs' output up to broker ids, paths, the
// placement of the replicas and their order: the JSON's brokers, each
// with its directories' partitions counted.
func normalLogDirs(t *testing.T, s string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var doc struct {
		Brokers []struct {
			Broker  int `json:"broker"`
			LogDirs []struct {
				Partitions []map[string]any `json:"partitions"`
				Error      any              `json:"error"`
				LogDir     string           `json:"logDir"`
			} `json:"logDirs"`
		} `json:"brokers"`
		Version int `json:"version"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &doc); err != nil {
		t.Fatalf("kafka-log-dirs printed no JSON: %v\n%s", err, s)
	}
	out := digits.ReplaceAllString(strings.Join(lines[:len(lines)-1], "\n"), "N") + "\n"
	out += "version " + string(rune('0'+doc.Version)) + "\n"
	for _, b := range doc.Brokers {
		for _, d := range b.LogDirs {
			var keys []string
			for _, p := range d.Partitions {
				var ks []string
				for k, v := range p {
					ks = append(ks, k+"="+digits.ReplaceAllString(strings.TrimSpace(jsonString(v)), "N"))
				}
				slices.Sort(ks)
				keys = append(keys, strings.Join(ks, ","))
			}
			slices.Sort(keys)
			out += "broker: error " + jsonString(d.Error) + " partitions " + strings.Join(keys, " ") + "\n"
		}
	}
	return out
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Kafka 4.4's own tools print the same for the sandbox as for a real 4.4
// cluster, up to ids, offsets, times and placement: kafka-metadata-quorum
// (through the brokers and through the controllers), kafka-features
// (describe and the dry runs of upgrades and downgrades, refused ones
// included) and kafka-log-dirs.
func TestToolsMatchRealKafka(t *testing.T) {
	d := kafkatest.Require(t, kafkatest.Kafka44)
	realBS, realCS := realKRaft(t)
	c := startTest(t, Config{Brokers: 3, Controllers: 3})

	// A topic of this test's on both, for kafka-log-dirs.
	const topic = "quorum-logdirs"
	if r, err := d.Command("kafka-topics", "--bootstrap-server", realBS, "--create", "--if-not-exists", "--topic", topic,
		"--partitions", "3", "--replication-factor", "2"); err != nil || r.Code != 0 {
		t.Fatalf("kafka-topics --create: %v %s", err, kafkatest.ToolError(r))
	}
	t.Cleanup(func() { d.Command("kafka-topics", "--bootstrap-server", realBS, "--delete", "--topic", topic) })
	c.mu.Lock()
	a, err := c.place(0, 3, 2)
	if err != nil {
		c.mu.Unlock()
		t.Fatal(err)
	}
	c.addTopic(topic, a, nil)
	c.mu.Unlock()

	for _, tc := range []struct {
		tool string
		// controllers: --bootstrap-controller, else --bootstrap-server.
		controllers bool
		args        []string
		normal      func(string) string
	}{
		{"kafka-metadata-quorum", false, []string{"describe", "--status"}, normalQuorum},
		{"kafka-metadata-quorum", true, []string{"describe", "--status"}, normalQuorum},
		{"kafka-metadata-quorum", false, []string{"describe", "--replication"}, normalQuorum},
		{"kafka-metadata-quorum", true, []string{"describe", "--replication"}, normalQuorum},
		{"kafka-features", false, []string{"describe"}, normalFeatures},
		{"kafka-features", true, []string{"describe"}, normalFeatures},
		{"kafka-features", false, []string{"upgrade", "--metadata", "4.4", "--dry-run"}, normalFeatures},
		{"kafka-features", false, []string{"upgrade", "--metadata", "3.9", "--dry-run"}, normalFeatures},
		{"kafka-features", false, []string{"downgrade", "--metadata", "3.9", "--dry-run"}, normalFeatures},
		{"kafka-features", true, []string{"downgrade", "--metadata", "4.3", "--unsafe", "--dry-run"}, normalFeatures},
		{"kafka-features", false, []string{"upgrade", "--feature", "group.version=5", "--dry-run"}, normalFeatures},
		{"kafka-features", false, []string{"upgrade", "--feature", "foo.version=1", "--dry-run"}, normalFeatures},
		{"kafka-features", false, []string{"downgrade", "--feature", "group.version=0", "--dry-run"}, normalFeatures},
		{"kafka-features", false, []string{"disable", "--feature", "share.version", "--dry-run"}, normalFeatures},
		{"kafka-features", false, []string{"upgrade", "--feature", "kraft.version=1", "--dry-run"}, normalFeatures},
		{"kafka-log-dirs", false, []string{"--describe", "--topic-list", topic}, func(s string) string { return normalLogDirs(t, s) }},
	} {
		name := tc.tool + " " + strings.Join(tc.args, " ")
		flag, sbx, rl := "--bootstrap-server", c.Bootstrap(), realBS
		if tc.controllers {
			flag, sbx, rl = "--bootstrap-controller", c.ControllerBootstrap(), realCS
			name += " (controllers)"
		}
		want, err := d.Command(tc.tool, append([]string{flag, rl}, tc.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Command(tc.tool, append([]string{flag, sbx}, tc.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got.Code != want.Code {
			t.Errorf("%s: exit %d, real Kafka's %d\nsandbox: %s%s\nreal: %s%s", name, got.Code, want.Code, got.Stdout, got.Stderr, want.Stdout, want.Stderr)
			continue
		}
		if g, w := tc.normal(got.Stdout), tc.normal(want.Stdout); g != w {
			t.Errorf("%s:\nsandbox:\n%s\nreal Kafka:\n%s\n(as printed:\n%s\nand\n%s)", name, g, w, got.Stdout, want.Stdout)
		}
	}
}
