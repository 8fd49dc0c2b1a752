package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/zkops"
)

// The migration guard on the command line. Every command that writes
// shows, once its plan is printed and right before writing, what a write
// through ZooKeeper would meet (the writer's Check: the migration guard on
// a fresh read; a write over the Kafka protocol always goes ahead):
//   - refused (a KRaft controller owns the metadata): the command fails
//     with why and what to use instead, nothing written;
//   - a warning (a migration is being prepared, or /migration is left from
//     an earlier attempt, while a ZooKeeper controller holds /controller):
//     the warning on standard error, then a y/N question when standard
//     input is a terminal; without one, the write is refused unless
//     --accept-migration-warning says the operator accepts it;
//   - a dry run (--validate-only, --dry-run) prints a warning as a note and
//     succeeds: it writes nothing. A refusal fails every command, dry runs
//     included, before it plans (refuseEarly): once the brokers run in
//     KRaft mode no plan can be made from ZooKeeper, and the refusal is
//     what matters.
// The ZooKeeper writer judges again right before each multi (and refuses a
// takeover that races it); the confirmation given here holds for the
// /migration it was about only.

// flagAcceptMigrationWarning confirms a migration warning without asking.
const flagAcceptMigrationWarning = "accept-migration-warning"

// stdinIsTerminal reports whether r is a terminal a question can be asked
// on (a variable for the tests).
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// confirmWrite checks, right before a command writes (what, e.g. "create
// topic orders"), who owns the cluster's metadata, and returns the session
// to write with: z itself, z with the operator's confirmation of a
// migration warning, or the refusal.
func (f *connFlags) confirmWrite(c *cobra.Command, w clusterops.Writer, what string) (clusterops.Writer, error) {
	v, err := clusterops.CheckOf(c.Context(), w)
	if err != nil {
		return nil, err
	}
	switch v.Level {
	case cluster.WriteOK:
		return w, nil
	case cluster.WriteRefused:
		return nil, fmt.Errorf("refusing to %s: %w", what, &zkops.MigrationError{Verdict: v})
	}
	errOut := c.ErrOrStderr()
	fmt.Fprintf(errOut, "Warning: %s.\n(%s)\n", v.Reason, v.Instead)
	if f.acceptMigrationWarning {
		fmt.Fprintf(errOut, "--%s given: writing through ZooKeeper anyway.\n", flagAcceptMigrationWarning)
		return clusterops.ConfirmOf(w, v), nil
	}
	in := c.InOrStdin()
	if !stdinIsTerminal(in) {
		return nil, fmt.Errorf("refusing to %s without confirmation (a ZooKeeper to KRaft migration is being prepared, see the warning above): "+
			"on a terminal ktopo asks; elsewhere --%s confirms it", what, flagAcceptMigrationWarning)
	}
	fmt.Fprintf(errOut, "%s through ZooKeeper anyway? [y/N] ", upperFirst(what))
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return clusterops.ConfirmOf(w, v), nil
	}
	return nil, fmt.Errorf("not confirmed: did not %s; nothing was written", what)
}

// refuseEarly fails a command that writes (dry runs included) before it
// plans anything when a KRaft controller owns the metadata: its plan would
// fail on what ZooKeeper no longer shows (no broker registered once they
// run in KRaft mode) and hide the reason. A warning is left to
// confirmWrite, once the plan is shown.
func (f *connFlags) refuseEarly(c *cobra.Command, w clusterops.Writer, what string) error {
	v, err := clusterops.CheckOf(c.Context(), w)
	if err != nil {
		return err
	}
	if v.Level == cluster.WriteRefused {
		return fmt.Errorf("refusing to %s: %w", what, &zkops.MigrationError{Verdict: v})
	}
	return nil
}

// noteWrite prints, for a dry run, what the write would meet if it were
// made now (nothing when it would go ahead).
func noteWrite(c *cobra.Command, w clusterops.Writer) error {
	v, err := clusterops.CheckOf(c.Context(), w)
	if err != nil {
		return err
	}
	switch v.Level {
	case cluster.WriteRefused:
		fmt.Fprintf(c.ErrOrStderr(), "Note: the write would be refused: %s.\n", v.Message())
	case cluster.WriteWarn:
		fmt.Fprintf(c.ErrOrStderr(), "Note: the write would ask for confirmation first: %s.\n", v.Reason)
	}
	return nil
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
