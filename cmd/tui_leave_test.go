package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/zkwatch"
)

// TestPlanSaver: the plan of a reassignment left running when the TUI
// exits goes to a file in the temporary directory named for it, and the
// command printed verifies it on the same cluster, with the flags that
// name it (never a password), quoted for a shell where needed.
func TestPlanSaver(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	plan := []byte(`{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2,6]}]}`)
	for _, tc := range []struct {
		name string
		t    target
		cf   connFlags
		args string
	}{
		{"zookeeper", target{connect: "zk1:2181,zk2:2181/kafka"}, connFlags{digest: "alice:secret", tls: zkwatch.TLSFiles{CA: "/etc/ktopo/ca.pem"}},
			"--zookeeper zk1:2181,zk2:2181/kafka --zk-tls-ca /etc/ktopo/ca.pem"},
		{"kraft", target{connect: "kafka1:9092", kraft: true, commandConfig: "/home/me/my client.properties"}, connFlags{},
			"--bootstrap-server kafka1:9092 --command-config '/home/me/my client.properties'"},
		{"context", target{connect: "zk1:2181/kafka", context: "prod"}, connFlags{}, "--context prod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, verify, err := planSaver(tc.t, &tc.cf)("drain-broker-3", plan)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(path) != os.TempDir() || !strings.HasPrefix(filepath.Base(path), "ktopo-reassign-drain-broker-3-") || !strings.HasSuffix(path, ".json") {
				t.Errorf("path %s", path)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != string(plan)+"\n" {
				t.Errorf("the file holds %q (%v)", got, err)
			}
			if want := "ktopo reassign " + tc.args + " --verify --reassignment-json-file " + path; verify != want {
				t.Errorf("verify %q, want %q", verify, want)
			}
			if strings.Contains(verify, "secret") {
				t.Errorf("a password in %q", verify)
			}
		})
	}
	if got := shellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote: %s", got)
	}
}
