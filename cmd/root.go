// Package cmd is ktopo's command line: the cobra commands (the TUI, plan,
// topics create|alter|delete|describe|list, brokers, configs,
// leader-election, reassign, events, migration, quorum, sandbox, version) and
// their wiring: the composition root, the one package that joins the
// sources, the writers and the TUI. connect.go resolves --zookeeper,
// --bootstrap-server and --context once for every command; session.go
// opens the cluster for a command (its snapshot, watch and writer) in one
// place; the logic lives in the packages they call, and render formats
// their text and JSON.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/internal/memlimit"
)

// Version is ktopo's version, printed by "ktopo version". The main package
// sets it from its build-time version (-ldflags "-X main.version=1.2.3");
// left empty, the version is read from the binary's build information
// (see describeBuild).
var Version string

// Main runs the command line with the process's arguments and standard
// streams and returns the exit status.
func Main() int {
	scrub = true
	// The heap stays within a quarter above its live data, above a floor:
	// the TUI's first load of 100,000 partitions peaks near 156 MiB, not ~240.
	defer memlimit.Start(memlimit.Floor)()
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// exitError carries a process exit status other than 1 through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// run executes the command line and returns the process exit status. Errors
// are printed once, as "Error: <message>", never with a usage dump: a bad
// value is not a usage mistake.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// runContext is run with a context that ends long-running commands.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintln(stderr, "Error:", err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// The clusters a command works on, its annotation modesAnnotation: both
// kinds (ZooKeeper mode and KRaft), ZooKeeper mode only, KRaft only, or none (it
// reads no cluster). Its help must say so (TestHelpNamesItsModes).
const (
	modesAnnotation = "ktopo/modes"
	modesBoth       = "zookeeper,kraft"
	modesZooKeeper  = "zookeeper"
	modesKRaft      = "kraft"
	modesNone       = "none"
)

// modes is the annotations of a command that works on m.
func modes(m string) map[string]string { return map[string]string{modesAnnotation: m} }

// silentError is returned when the message was already printed.
type silentError struct{ err error }

func (e *silentError) Error() string { return e.err.Error() }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:         "ktopo",
		Annotations: modes(modesBoth),
		Short:       "See and shape Kafka clusters, on ZooKeeper or KRaft: topology, topics, replica assignment",
		Long: `ktopo shows Apache Kafka clusters that run in ZooKeeper mode (Kafka 2.x and 3.x,
through their ZooKeeper: --zookeeper) and in KRaft mode (Kafka 4.x and 3.x, over
the Kafka protocol: --bootstrap-server): brokers by rack, the controller, topics
and every partition's replicas, leader and ISR, and previews the exact replica
assignment Kafka would make. On a KRaft cluster it writes over Kafka's Admin
API, sending the previewed placement as a manual assignment.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("ktopo {{.Version}}\n")
	// Flag parse errors are usage mistakes: say how to get help.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())
	})
	cf := &connFlags{}
	cf.register(root)
	root.PersistentPreRun = func(c *cobra.Command, _ []string) {
		cf.stderr = c.ErrOrStderr()
		cf.hideDigest()
	}
	setupTUI(root, cf)
	root.AddCommand(newVersionCmd(), newPlanCmd(cf), newSandboxCmd(cf), newTopicsCmd(cf), newBrokersCmd(cf), newEventsCmd(cf),
		newConfigsCmd(cf), newLeaderElectionCmd(cf), newReassignCmd(cf), newMigrationCmd(cf), newQuorumCmd(cf))
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Annotations: modes(modesNone),
		Short:       "Print ktopo's version",
		Long: `version prints the version a release build was given (-ldflags
"-X main.version=…"). Other builds are named by what the Go toolchain recorded
in the binary: the module version of "go install github.com/ktopo/ktopo@v1.2.3",
else the git commit of a "go build" in a checkout, as a pseudo-version
(v0.0.0-<commit time>-<commit>, "+dirty" with uncommitted changes). "go run"
and -buildvcs=false record neither: those builds are "dev".`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintf(c.OutOrStdout(), "ktopo %s\n", versionString())
			return nil
		},
	}
}
