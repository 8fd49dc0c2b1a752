package quorum

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// ktopoBin is the ktopo binary, built by the first scenario that runs it
// (a benchmark-only run of the package builds nothing); configHome an
// empty XDG_CONFIG_HOME, so that no contexts file of the user's counts.
var (
	ktopoBin, configHome string
	buildOnce            sync.Once
	buildErr             error
)

// TestMain makes the binary's directory and stops the real clusters the
// scenarios started. The real-Kafka scenarios skip without Java (or fail
// under CI=true: kafkatest.Require); the sandbox's run everywhere.
func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ktopo-quorum-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ktopoBin, configHome = filepath.Join(dir, "ktopo"), filepath.Join(dir, "config")
	code := m.Run()
	kafkatest.StopAll()
	return code
}

// buildKtopo builds the binary once. The go command that runs the tests
// builds it: go test puts its GOROOT's bin first on the PATH.
func buildKtopo(t *testing.T) {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", ktopoBin, "github.com/ktopo/ktopo").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building ktopo: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// ktopo runs the binary with args and stdin, as a user's shell would,
// without the user's environment's KTOPO_ variables or contexts.
func ktopo(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	buildKtopo(t)
	cmd := exec.Command(ktopoBin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KTOPO_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+configHome)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errw.String()
	}
	if err != nil {
		t.Fatalf("ktopo %s: %v", strings.Join(args, " "), err)
	}
	return 0, out.String(), errw.String()
}
