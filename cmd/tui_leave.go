package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/ui"
	"github.com/ktopo/ktopo/ui/screens/operate"
)

// runApp runs the TUI until it closes, then lets an operation between
// two of its writes finish the step it started (and start no other; a
// signal stops the wait), and prints what is left and how to finish or
// undo it: on a ZooKeeper cluster and on a KRaft one alike.
func runApp(ctx context.Context, c *cobra.Command, app *ui.App) error {
	p := tea.NewProgram(app, tea.WithContext(ctx))
	// The terminal closing (SIGHUP) quits as SIGTERM does (Bubble Tea's),
	// rather than killing ktopo between two writes of an operation.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		if _, ok := <-hup; ok {
			p.Quit()
		}
	}()
	_, err := p.Run()
	if app.Finishing() {
		fmt.Fprintf(c.ErrOrStderr(), "\nFinishing the step an operation started before exiting (at most %s; ctrl+c stops waiting)…\n", finishGrace)
	}
	fctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	left := app.Finish(fctx, finishGrace)
	stop()
	if len(left) > 0 {
		fmt.Fprintln(c.ErrOrStderr(), strings.Join(left, "\n\n"))
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) {
		return err
	}
	return nil
}

// planSaver keeps the plan of a reassignment ktopo leaves running in a
// file of the temporary directory named for it
// (ktopo-reassign-drain-broker-3-*.json), and says the command that
// verifies it on the cluster t names: ktopo reassign with the same
// cluster flags, --verify --reassignment-json-file FILE.
func planSaver(t target, cf *connFlags) operate.PlanSaver {
	return func(name string, plan []byte) (string, string, error) {
		f, err := os.CreateTemp("", "ktopo-reassign-"+name+"-*.json")
		if err != nil {
			return "", "", err
		}
		if _, err := f.Write(append(plan, '\n')); err != nil {
			f.Close()
			return "", "", err
		}
		if err := f.Close(); err != nil {
			return "", "", err
		}
		return f.Name(), "ktopo reassign " + clusterArgs(t, cf) + " --verify --reassignment-json-file " + shellQuote(f.Name()), nil
	}
}

// clusterArgs are the flags that name t's cluster again: its context, or
// its connect string (with the TLS files of ZooKeeper, the client
// properties of a KRaft cluster); never a password.
func clusterArgs(t target, cf *connFlags) string {
	var args []string
	switch {
	case t.context != "":
		args = append(args, "--context", t.context)
	case t.kraft:
		args = append(args, "--bootstrap-server", t.connect)
		if t.commandConfig != "" {
			args = append(args, "--command-config", t.commandConfig)
		}
	default:
		args = append(args, "--zookeeper", t.connect)
		for _, f := range []struct{ flag, v string }{{"--zk-tls-ca", cf.tls.CA}, {"--zk-tls-cert", cf.tls.Cert}, {"--zk-tls-key", cf.tls.Key}} {
			if f.v != "" {
				args = append(args, f.flag, f.v)
			}
		}
	}
	for i, a := range args {
		if !strings.HasPrefix(a, "--") {
			args[i] = shellQuote(a)
		}
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
