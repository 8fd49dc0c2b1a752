package kafkatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// StartZooKeeper starts a dedicated Apache ZooKeeper server of a version
// (ZooKeeper35, ZooKeeper39; fetched as RequireZooKeeper does) for one test
// and stops it when the test ends; a failed test prints the server's log.
func StartZooKeeper(t testing.TB, version string) *zktest.Server {
	t.Helper()
	cp := RequireZooKeeper(t, version)
	s := zktest.StartServer(t, zktest.Options{Classpath: cp})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- ZooKeeper %s log ---\n%s", version, tail(s.Log(), 60))
		}
	})
	return s
}

// OnZooKeeper runs the tests of the calling package that match pattern (a
// -test.run expression) again, in a child process of the test binary whose
// package server (zktest.Main) is Apache ZooKeeper of version instead of
// Debian's, with a zktest.Recorder in front of it. It fails t if a test
// fails there, if the tests sent an opcode that version lacks, or if the
// server logged a request it did not know: ktopo must never send an
// operation a server lacks. Dedicated servers the tests start
// (zktest.StartServer) run that version too. -short is passed on.
func OnZooKeeper(t *testing.T, version, pattern string) *zktest.Report {
	t.Helper()
	if os.Getenv(zktest.ReportEnv) != "" {
		t.Skip("already running on another ZooKeeper version")
	}
	cp := RequireZooKeeper(t, version)
	report := filepath.Join(t.TempDir(), "report.json")
	args := []string{"-test.run", pattern, "-test.count=1", "-test.v"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if d, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout", time.Until(d).Round(time.Second).String())
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), zktest.ClasspathEnv+"="+cp, zktest.VersionEnv+"="+version, zktest.ReportEnv+"="+report)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	passed := passedTests(string(out))
	if err != nil {
		t.Fatalf("tests %s on ZooKeeper %s: %v\n%s", pattern, version, err, tail(string(out), 150))
	}
	if len(passed) == 0 {
		t.Fatalf("tests %s on ZooKeeper %s: no test ran\n%s", pattern, version, tail(string(out), 30))
	}
	rep, err := zktest.ReadReport(report)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ZooKeeper %s: %d tests passed in %s (%s)\nrequests: %s\ndetails: %s",
		version, len(passed), time.Since(start).Round(time.Millisecond), strings.Join(passed, " "), rep.Summary(), rep.DetailSummary())
	if len(rep.Opcodes()) == 0 {
		t.Errorf("ZooKeeper %s: no request went through the recorder", version)
	}
	for _, op := range rep.Unsupported() {
		t.Errorf("ZooKeeper %s lacks opcode %d (%s), which the tests sent %d times", version, op, zktest.OpName(op), rep.Opcodes()[op])
	}
	for _, l := range rep.Refused {
		t.Errorf("ZooKeeper %s refused a request: %s", version, l)
	}
	return rep
}

// passedTests returns the top-level tests a -test.v run reports as passed.
func passedTests(out string) []string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "--- PASS: "); ok {
			if name, _, ok := strings.Cut(rest, " "); ok && !strings.Contains(name, "/") {
				names = append(names, name)
			}
		}
	}
	return names
}
