package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/kafkawatch"
)

func newBrokersUnregisterCmd(cf *connFlags) *cobra.Command {
	var execute bool
	var controller string
	c := &cobra.Command{
		Use:         "unregister ID",
		Annotations: modes(modesKRaft),
		Short:       "Remove a KRaft broker's stale registration (UnregisterBroker), previewed first",
		Long: `unregister is for KRaft clusters only: it removes the registration of a broker
that is gone for good (UnregisterBroker, what kafka-cluster unregister --id sends).
A registration outlives its broker: fenced, it still counts when a feature level is
raised (Kafka's controller checks every registration), and only this removes it.
ktopo quorum names such registrations stale.

Without --execute it previews: what the broker's registration is (fenced, how long
since it last fetched the metadata log, whether it answers at its endpoint), the
feature upgrades it blocks (as ktopo quorum names them), and the exact request. Kafka's controller removes any registration it is asked to, a live
broker's too, so ktopo refuses first, before sending anything: a broker that is not
registered (in Kafka's words), a voter of the metadata quorum (a combined node), an
unfenced broker, and a fenced one that still answers at its endpoint (it runs). On a
production context (production: true) --execute asks for the broker's id to be
typed. In read-only mode only the preview runs. The controller then takes the broker
out of every ISR and eligible leader replicas and elects new leaders where it led; a
broker started again with the same id registers anew.`,
		Example: `  ktopo brokers unregister 4 --bootstrap-server kafka1:9092
  ktopo brokers unregister 4 --bootstrap-server kafka1:9092 --execute`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := strconv.Atoi(args[0])
			if err != nil || id < 0 {
				return fmt.Errorf("invalid broker id %q: want a broker's id, a number (0 or more)", args[0])
			}
			what := "unregister broker " + args[0]
			controllers, err := kafkawatch.ParseBootstrap(controller)
			if err != nil {
				return fmt.Errorf("--bootstrap-controller: %w", err)
			}
			t, err := cf.target()
			if err != nil {
				return err
			}
			if !t.kraft {
				return fmt.Errorf("brokers unregister removes a KRaft cluster's broker registration: give --bootstrap-server (a ZooKeeper-mode broker's registration ends with its session)")
			}
			if execute {
				if err := cf.writable(what, "without --execute it is previewed"); err != nil {
					return err
				}
			}
			d, err := cf.dial()
			if err != nil {
				return err
			}
			cf.warn(t)
			ctx := c.Context()
			r, err := kafkawatch.ReadQuorumReport(ctx, d, controllers)
			if err != nil {
				return d.Diagnose(ctx, d.Security.Explain(err))
			}
			if why := r.JudgeUnregister(id); why != "" {
				return fmt.Errorf("refusing to %s: %s", what, why)
			}
			out := c.OutOrStdout()
			for _, g := range r.Registrations() {
				if g.ID == id {
					fmt.Fprintf(out, "Broker %d: fenced; %s\n", id, g.FencedText(r.At))
				}
			}
			if bs := cluster.BlockersOf(r.Blockers(), id, false); len(bs) > 0 {
				fmt.Fprintf(out, "Its registration blocks %s: Kafka's controller counts it until it is unregistered.\n", cluster.BlockedText(bs))
			}
			fmt.Fprintf(out, "Unregistering it removes its registration: the controller takes broker %d out of every ISR and eligible leader replicas and elects new leaders where it led; a broker started again with id %d registers anew.\n", id, id)
			w, closeW, err := cf.kafkaWriter()
			if err != nil {
				return err
			}
			defer closeW()
			u, ok := w.(clusterops.Unregisterer)
			if !ok {
				return errors.New("this cluster's writer cannot unregister brokers")
			}
			ws, _ := u.UnregisterBroker(ctx, id, clusterops.Describe)
			fmt.Fprintln(out, "Would send, as one Kafka request:")
			for _, l := range ws.Lines() {
				fmt.Fprintln(out, "  "+l)
			}
			if !execute {
				fmt.Fprintln(out, "Nothing sent: --execute sends it.")
				return nil
			}
			if err := confirmByTyping(c.InOrStdin(), c.ErrOrStderr(), t, strconv.Itoa(id), what); err != nil {
				return err
			}
			if _, err := u.UnregisterBroker(ctx, id, clusterops.Apply); err != nil {
				return err
			}
			fmt.Fprintf(out, "Broker %d unregistered.\n", id)
			// The brokers' metadata shows it within moments.
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				after, err := kafkawatch.ReadQuorumReport(ctx, d, controllers)
				if err == nil && after.BrokersErr == "" {
					if _, still := after.Registration(id); !still {
						fmt.Fprintf(out, "Broker %d is no longer registered.\n", id)
						return nil
					}
				}
				time.Sleep(200 * time.Millisecond)
			}
			fmt.Fprintf(out, "Broker %d is still listed by the brokers' metadata after 10s: ktopo quorum shows whether it is gone.\n", id)
			return nil
		},
	}
	c.Flags().BoolVar(&execute, "execute", false, "send UnregisterBroker (without it, the preview only)")
	c.Flags().StringVar(&controller, "bootstrap-controller", "", "the KRaft controllers' CONTROLLER listeners host:port[,…], to read the quorum from them (with --command-config's security)")
	return c
}

// confirmByTyping asks, on a production context (production: true), for
// word (the broker's id) to be typed before what is done; elsewhere it
// returns at once. Off a terminal it refuses: nothing can be typed.
func confirmByTyping(in io.Reader, errOut io.Writer, t target, word, what string) error {
	if !t.production {
		return nil
	}
	if !stdinIsTerminal(in) {
		return fmt.Errorf("refusing to %s on production context %s without confirmation: on a terminal ktopo asks for %s to be typed", what, t.context, word)
	}
	fmt.Fprintf(errOut, "Context %s is production: type %s to %s: ", t.context, word, what)
	return readConfirmation(in, word, what)
}

// readConfirmation reads one line and refuses unless it is word.
func readConfirmation(in io.Reader, word, what string) error {
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if typed := strings.TrimSpace(line); typed != word {
		return fmt.Errorf("not confirmed (typed %q, not %s): did not %s; nothing was sent", typed, word, what)
	}
	return nil
}
