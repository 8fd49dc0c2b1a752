package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestInterruptedWaits: ctrl+c while a command waits for the controller,
// after its write, says what goes on without ktopo and how to follow it
// (for a throttled reassignment, what removes the throttles), and exits
// with 130, as a shell reports an interrupted command. The built binary
// gets a real SIGINT; the seeded cluster has no controller at work, so
// the waits never end by themselves.
func TestInterruptedWaits(t *testing.T) {
	bin := buildKtopo(t)
	addr := seed(t)
	conn := connectTest(t, addr)
	// What brokers create at startup, which the throttles' config changes
	// go under.
	for _, p := range []string{"/config/changes", "/config/brokers"} {
		if err := zktest.CreateAll(conn, p); err != nil {
			t.Fatal(err)
		}
	}
	// The seeded "moving" is being reassigned: no other reassignment starts.
	if _, err := conn.Set("/brokers/topics/moving", []byte(`{"version":3,"partitions":{"0":[3,1]},"adding_replicas":{},"removing_replicas":{}}`), -1); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	writeFile(t, plan, `{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2,3]}]}`)
	for _, tc := range []struct {
		name    string
		args    []string
		written string   // the line on stdout after the write
		want    []string // on stderr
	}{
		{"topics create", []string{"topics", "create", "--topic", "waiting", "--partitions", "2", "--replication-factor", "1"},
			"Created topic waiting.",
			[]string{"Interrupted: topic waiting is created; the controller brings its partitions online without ktopo (ktopo topics describe --topic waiting shows them)."}},
		{"topics alter", []string{"topics", "alter", "--topic", "orders", "--partitions", "5"},
			"Adding partitions succeeded!",
			[]string{"Interrupted: the partitions are added; the controller brings them online without ktopo (ktopo topics describe --topic orders shows them)."}},
		{"reassign --execute", []string{"reassign", "--execute", "--reassignment-json-file", plan, "--throttle", "5000000"},
			"Successfully started partition reassignment for orders-0",
			[]string{"Interrupted: the reassignment goes on without ktopo, and so does its throttle of 5000000 B/s",
				"ktopo reassign --verify --reassignment-json-file " + plan + " shows its progress and, once every partition is done, removes the throttles."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append(tc.args, "--zookeeper", addr)...)
			cmd.Env = append(os.Environ(), "KTOPO_ZOOKEEPER=", "KTOPO_LOG="+filepath.Join(t.TempDir(), "log"))
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			written := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					if strings.Contains(sc.Text(), tc.written) {
						written <- true
					}
				}
			}()
			select {
			case <-written:
			case <-time.After(30 * time.Second):
				t.Fatalf("never printed %q; stderr:\n%s", tc.written, errOut.String())
			}
			// The wait is armed right after the line: give it a moment, so
			// that the signal does not arrive before the handler.
			time.Sleep(200 * time.Millisecond)
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != interruptedStatus {
				t.Errorf("exit: %v, want status %d", err, interruptedStatus)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut.String())
				}
			}
		})
	}
}
