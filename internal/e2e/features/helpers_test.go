package features

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// user is how the scenario runs ktopo: its own configuration and state
// directories (a context file of its own, nothing of the machine's), and
// no KTOPO_ variable of the environment the tests run in.
type user struct {
	t   *testing.T
	env []string
}

func newUser(t *testing.T) *user {
	t.Helper()
	home := t.TempDir()
	env := []string{asKtopo + "=1", "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "KTOPO_") || strings.HasPrefix(k, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	return &user{t: t, env: env}
}

// context writes the user's config file with one context.
func (u *user) context(name, yaml string) {
	u.t.Helper()
	dir := filepath.Join(u.configHome(), "ktopo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		u.t.Fatal(err)
	}
	conf := "contexts:\n  " + name + ":\n" + yaml
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(conf), 0o600); err != nil {
		u.t.Fatal(err)
	}
}

func (u *user) configHome() string {
	for _, kv := range u.env {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			return v
		}
	}
	return ""
}

// ran is one run of ktopo: its exit status and what it printed.
type ran struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r ran) String() string {
	return "ktopo " + strings.Join(r.args, " ") + ": exit " + strconv.Itoa(r.code) + "\n--- stdout ---\n" + r.stdout + "--- stderr ---\n" + r.stderr
}

// ktopo runs ktopo with args, stdin piped from stdin (not a terminal).
func (u *user) ktopo(stdin string, args ...string) ran {
	u.t.Helper()
	var out, errOut bytes.Buffer
	code := u.exec(exec.Command(os.Args[0], args...), stdin, &out, &errOut)
	return ran{args: args, code: code, stdout: out.String(), stderr: errOut.String()}
}

// exec runs c as the user, typing stdin, and returns its exit status.
func (u *user) exec(c *exec.Cmd, stdin string, stdout, stderr io.Writer) int {
	u.t.Helper()
	c.Env = u.env
	c.Stdin = strings.NewReader(stdin)
	c.Stdout, c.Stderr = stdout, stderr
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		u.t.Fatalf("%s: %v", strings.Join(c.Args, " "), err)
	}
	return 0
}

// ok runs ktopo and fails the test unless it exits 0; it returns stdout.
func (u *user) ok(args ...string) string {
	u.t.Helper()
	r := u.ktopo("", args...)
	if r.code != 0 {
		u.t.Fatalf("%s", r)
	}
	return r.stdout
}

// refused runs ktopo and checks that it fails saying want on stderr.
func (u *user) refused(want string, args ...string) {
	u.t.Helper()
	r := u.ktopo("", args...)
	if r.code == 0 || !strings.Contains(r.stderr, want) {
		u.t.Errorf("want a refusal saying %q; %s", want, r)
	}
}

// atTerminal runs ktopo on a terminal (util-linux's script gives it a
// pseudo-terminal), typing typed: what a user at a prompt does. Its
// stdout and stderr come back as one, as the terminal shows them.
func (u *user) atTerminal(typed string, args ...string) ran {
	u.t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		if os.Getenv("CI") == "true" {
			u.t.Fatal("CI=true and util-linux's script is not installed: the typed confirmation needs a terminal")
		}
		u.t.Skip("skipping the typed confirmation: util-linux's script is not installed")
	}
	line := shellQuote(os.Args[0])
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	var out bytes.Buffer
	code := u.exec(exec.Command(script, "-qec", line, "/dev/null"), typed, &out, &out)
	return ran{args: args, code: code, stdout: strings.ReplaceAll(out.String(), "\r\n", "\n")}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// quorumJSON is ktopo quorum --output json, as the scenario reads it.
type quorumJSON struct {
	Features      []featureJSON `json:"features"`
	NotAsked      []string      `json:"notAsked"`
	FencedListed  bool          `json:"fencedListed"`
	Registrations []struct {
		ID       int  `json:"id"`
		Fenced   bool `json:"fenced"`
		Answered bool `json:"answered"`
		Observer bool `json:"observer"`
		Stale    bool `json:"stale"`
	} `json:"registrations"`
}

// featureJSON is one feature of ktopo quorum --output json.
type featureJSON struct {
	Name      string   `json:"name"`
	Finalized int      `json:"finalized"`
	Ceiling   int      `json:"ceiling"`
	Highest   int      `json:"highest"`
	HeldBy    []string `json:"heldBy"`
	Nodes     []struct {
		Node  string `json:"node"`
		Min   int    `json:"min"`
		Max   int    `json:"max"`
		Known bool   `json:"known"`
	} `json:"nodes"`
	UpgradeCheck *checkJSON  `json:"upgradeCheck"`
	HeldCheck    *checkJSON  `json:"heldCheck"`
	Blockers     []blockJSON `json:"blockers"`
}

type checkJSON struct {
	Level    int    `json:"level"`
	Accepted bool   `json:"accepted"`
	Refusal  string `json:"refusal"`
	Error    string `json:"error"`
}

type blockJSON struct {
	Node        string `json:"node"`
	Level       int    `json:"level"`
	Max         int    `json:"max"`
	FromRefusal bool   `json:"fromRefusal"`
	Registered  bool   `json:"registered"`
	Fenced      bool   `json:"fenced"`
	Answered    bool   `json:"answered"`
}

func (u *user) quorum(args ...string) (quorumJSON, string) {
	u.t.Helper()
	out := u.ok(append([]string{"quorum", "--output", "json"}, args...)...)
	var q quorumJSON
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		u.t.Fatalf("ktopo quorum --output json: %v\n%s", err, out)
	}
	return q, out
}

// registration returns broker id's registration as ktopo reads it.
func (q quorumJSON) registration(id int) (fenced, answered, ok bool) {
	for _, r := range q.Registrations {
		if r.ID == id {
			return r.Fenced, r.Answered, true
		}
	}
	return false, false, false
}

// waitFor polls cond until it holds, failing the test after timeout with
// what show says.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool, show func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting until %s; last seen:\n%s", timeout, what, show())
		}
		time.Sleep(250 * time.Millisecond)
	}
}
