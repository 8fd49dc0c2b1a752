package zkserver_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// kazooPython returns a python3 that can import kazoo, or skips: kazoo is
// optional on a laptop (Debian package python3-kazoo); .ci/run installs it
// and under CI=true its absence fails.
func kazooPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import kazoo").Run() == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no python3 with kazoo under CI (apt-get install python3-kazoo)")
	}
	t.Skip("skipping: no python3 with kazoo (apt-get install python3-kazoo)")
	return ""
}

// TestKazoo runs testdata/kazoo_session.py (data, watches, ephemerals,
// sequential nodes, transactions, a lock) against both servers and compares
// the output.
func TestKazoo(t *testing.T) {
	py := kazooPython(t)
	outs := map[string]string{}
	prefix := fmt.Sprintf("/kazoo%d", runSeq.Add(1))
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			cmd := exec.Command(py, "testdata/kazoo_session.py", tg.addr, prefix)
			done := make(chan struct{})
			go func() {
				select {
				case <-done:
				case <-time.After(90 * time.Second):
					_ = cmd.Process.Kill()
				}
			}()
			out, err := cmd.CombinedOutput()
			close(done)
			if err != nil {
				t.Fatalf("kazoo session: %v\n%s", err, out)
			}
			outs[tg.name] = string(out)
			for _, want := range []string{"watch [('CHANGED', '$P/a')]", "ephemeral deleted on close True None", "sequence $P/s-0000000004", "failed transaction ['RolledBackError', 'BadVersionError', 'RuntimeInconsistency']"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
	logs := map[string][]string{}
	for name, out := range outs {
		logs[name] = strings.Split(out, "\n")
	}
	compareTargets(t, logs)
	if t.Failed() {
		t.Logf("outputs:\n%v", outs)
	}
}
