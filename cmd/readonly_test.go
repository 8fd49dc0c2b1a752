package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
)

// commandKind says what a command does to ZooKeeper.
type commandKind int

const (
	// writes: read-only mode must refuse it with readOnlyRefusal, before
	// anything is written.
	writes commandKind = iota
	// reads: it works in read-only mode and writes nothing.
	reads
	// follows: reads until interrupted (stopped after its first output).
	follows
	// offline: no cluster involved (plan, version).
	offline
	// interactive: the TUI, checked in package ui (no create in read-only mode).
	interactive
	// kraftOnly: it reads or writes a KRaft cluster only (a ZooKeeper
	// target is refused); read-only mode is checked by its own tests
	// (ktopo brokers unregister: TestSandboxBrokersUnregister; quorum
	// add-controller and remove-controller: internal/e2e/quorum).
	kraftOnly
)

// commandTable lists every command of ktopo. A new command fails
// TestReadOnlyRefusesEveryWrite until it is listed here: a command that
// writes with arguments that would write, and the refusal it gives
// (cf.writable) in read-only mode.
var commandTable = map[string]struct {
	kind commandKind
	args string
	// refusal follows "read-only mode: refusing to ".
	refusal string
	// noContext: the command never runs on a --context.
	noContext bool
}{
	"ktopo":                          {kind: interactive},
	"ktopo version":                  {kind: offline},
	"ktopo plan":                     {kind: offline},
	"ktopo topics describe":          {kind: reads},
	"ktopo topics list":              {kind: reads},
	"ktopo brokers":                  {kind: reads},
	"ktopo migration":                {kind: reads},
	"ktopo quorum":                   {kind: kraftOnly},
	"ktopo brokers unregister":       {kind: kraftOnly},
	"ktopo quorum add-controller":    {kind: kraftOnly},
	"ktopo quorum remove-controller": {kind: kraftOnly},
	"ktopo events":                   {kind: follows, args: "--from-start"},
	"ktopo topics create": {kind: writes, args: "--topic ro --partitions 1 --replication-factor 1",
		refusal: "create topic ro (--validate-only checks it without writing)"},
	"ktopo topics delete": {kind: writes, args: "--topic orders",
		refusal: "delete topic orders (--validate-only checks it without writing)"},
	"ktopo topics alter": {kind: writes, args: "--topic orders --partitions 9",
		refusal: "alter topic orders (--validate-only checks it without writing)"},
	"ktopo configs": {kind: writes, args: "--entity-type topics --entity-name orders --alter --add-config retention.ms=1",
		refusal: "alter the config of topic orders (--validate-only checks it without writing)"},
	"ktopo leader-election": {kind: writes, args: "--election-type preferred --all-topic-partitions",
		refusal: "start a preferred leader election (--dry-run shows it without writing)"},
	"ktopo reassign": {kind: writes, args: "--execute --reassignment-json-file plan.json",
		refusal: "start a reassignment (--dry-run checks it and shows what would be written)"},
	"ktopo sandbox": {kind: writes, noContext: true,
		refusal: "run the sandbox: its brokers and controller write to ZooKeeper (--empty serves ZooKeeper alone)"},
}

// TestReadOnlyRefusesEveryWrite walks every command of ktopo: each must be
// in commandTable; each that writes is refused in read-only mode (with
// --read-only, and on a context marked read-only) with the one message
// shape, and nothing is written; each that reads works in read-only mode.
func TestReadOnlyRefusesEveryWrite(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	before := readTree(t, conn, "/")
	cfgDir := t.TempDir()
	writeFile(t, filepath.Join(mkdir(t, cfgDir, "ktopo"), "config.yaml"), "contexts:\n  ro:\n    zookeeper: "+addr+"\n    read-only: true\n")
	t.Setenv("XDG_CONFIG_HOME", cfgDir)

	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		name := c.CommandPath()
		seen[name] = true
		entry, ok := commandTable[name]
		if !ok {
			t.Errorf("%s is not in commandTable: say whether it writes to ZooKeeper (a write command refuses in read-only mode with cf.writable)", name)
			return
		}
		cmdArgs := append(strings.Fields(strings.TrimPrefix(name, "ktopo")), strings.Fields(entry.args)...)
		switch entry.kind {
		case writes:
			variants := [][]string{{"--zookeeper", addr, "--read-only"}}
			if !entry.noContext {
				variants = append(variants, []string{"--context", "ro"})
			}
			for _, v := range variants {
				code, out, errOut := runCLI(t, append(cmdArgs, v...)...)
				want := "Error: read-only mode: refusing to " + entry.refusal + "\n"
				if v[0] == "--context" {
					// The refusal also names the context that is read-only.
					want = strings.TrimSuffix(want, "\n") + "; context ro is read-only (read-only: true in "
				}
				if code != 1 || !strings.HasPrefix(errOut, want) || (v[0] != "--context" && errOut != want) {
					t.Errorf("%s %v: exit %d, stderr %q, want %q (stdout %q)", name, v, code, errOut, want, out)
				}
			}
		case reads:
			for _, v := range [][]string{{"--zookeeper", addr, "--read-only"}, {"--context", "ro"}} {
				if code, _, errOut := runCLI(t, append(cmdArgs, v...)...); code != 0 {
					t.Errorf("%s %v in read-only mode: exit %d %s", name, v, code, errOut)
				}
			}
		case follows:
			if code, errOut := runUntilOutput(append(cmdArgs, "--zookeeper", addr, "--read-only")); code != 0 {
				t.Errorf("%s in read-only mode: exit %d %s", name, code, errOut)
			}
		case offline, interactive, kraftOnly:
		}
	}
	walk(newRootCmd())
	for name := range commandTable {
		if !seen[name] {
			t.Errorf("commandTable lists %s, which is not a command", name)
		}
	}
	after := readTree(t, conn, "/")
	for p, d := range after {
		if b, ok := before[p]; !ok || !bytes.Equal(b, d) {
			t.Errorf("%s written in read-only mode: %q", p, d)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s deleted in read-only mode", p)
		}
	}
}

func mkdir(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runUntilOutput runs a command that follows the cluster until its first
// line of output, then interrupts it.
func runUntilOutput(args []string) (int, string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	out := writerFunc(func(p []byte) (int, error) {
		once.Do(cancel)
		return len(p), nil
	})
	var errOut bytes.Buffer
	code := runContext(ctx, args, strings.NewReader(""), out, &errOut)
	return code, errOut.String()
}
