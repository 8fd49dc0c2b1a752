package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/kafkaops"
	"github.com/ktopo/ktopo/kafkawatch"
)

// voterFlags are the flags of quorum add-controller and remove-controller.
type voterFlags struct {
	execute, override bool
	controller        string
	listeners         []string
	wait              time.Duration
}

func newQuorumAddControllerCmd(cf *connFlags) *cobra.Command {
	var vf voterFlags
	c := &cobra.Command{
		Use:         "add-controller ID",
		Aliases:     []string{"add-voter"},
		Annotations: modes(modesKRaft),
		Short:       "Make an observer controller a voter of a KRaft cluster's dynamic metadata quorum (AddRaftVoter), previewed first",
		Long: `add-controller is for KRaft clusters only, with a dynamic quorum (KIP-853,
kraft.version 1: controllers formatted with --standalone or --initial-controllers, nodes
configured with controller.quorum.bootstrap.servers): it makes a controller that runs as
an observer (formatted with --no-initial-controllers, fetching the metadata log) a voter,
with AddRaftVoter, what kafka-metadata-quorum add-controller sends. Kafka's names are kept:
operators know the change as add-controller.

ktopo reads the quorum (DescribeQuorum): the controller must be an observer, with its
directory id, and not a voter already; a broker-only node is refused. Its endpoint is
its controller registration (KIP-919: DescribeCluster asked of --bootstrap-controller)
on the voters' listener (its name from DescribeQuorum's nodes), or --listener
NAME://host:port. Without --execute it previews the exact request and the majority
before and after, counting the voters down now ("3 voters: a majority is 2, 1 may
fail → 4 voters: a majority is 3, 1 may fail"). A change that would leave the quorum
able to lose fewer voters than today is refused unless --override is given and the
controller's id is typed. On a static quorum (kraft.version 0) Kafka refuses every
voter change: ktopo asks it with a request it can only refuse and shows its answer.
After --execute ktopo follows the quorum until its voters show the change (--wait).

Kafka's leader checks the rest: one change at a time, the new voter caught up (it must
have fetched as that id and directory id), its listener reachable. The request goes
through the brokers (--bootstrap-server, which forward it to the leader) or to the
controllers (--bootstrap-controller, where only the leader takes it).`,
		Example: `  ktopo quorum add-controller 3003 --bootstrap-server kafka1:9092 --bootstrap-controller kraft1:9093
  ktopo quorum add-controller 3003 --bootstrap-controller kraft1:9093 --execute
  ktopo quorum add-controller 3003 --bootstrap-server kafka1:9092 --listener CONTROLLER://kraft4:9093 --execute`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runVoterChange(c, cf, &vf, true, args[0]) },
	}
	vf.register(c, true)
	return c
}

func newQuorumRemoveControllerCmd(cf *connFlags) *cobra.Command {
	var vf voterFlags
	c := &cobra.Command{
		Use:         "remove-controller ID",
		Aliases:     []string{"remove-voter"},
		Annotations: modes(modesKRaft),
		Short:       "Take a voter out of a KRaft cluster's dynamic metadata quorum (RemoveRaftVoter), previewed first",
		Long: `remove-controller is for KRaft clusters only, with a dynamic quorum (KIP-853,
kraft.version 1): it takes a voter out of the metadata quorum with RemoveRaftVoter, what kafka-metadata-quorum
remove-controller sends (with the voter's directory id, read from DescribeQuorum). The
controller keeps running as an observer until it is stopped; a leader that removes
itself resigns once the change commits, and the other voters elect a leader.

Without --execute it previews the exact request and the majority before and after,
counting the voters down now ("3 voters: a majority is 2, 1 may fail → 2 voters: a
majority is 2, none may fail"). A change that would leave the quorum able to lose fewer
voters than today is refused unless --override is given and the controller's id is
typed; removing a voter that is down does not lower it. A node that is not a voter and
the last voter are refused; on a static quorum (kraft.version 0) ktopo shows Kafka's
own refusal, asked with a request Kafka can only refuse. After --execute ktopo follows
the quorum until its voters show the change (--wait).`,
		Example: `  ktopo quorum remove-controller 3001 --bootstrap-controller kraft1:9093
  ktopo quorum remove-controller 3001 --bootstrap-controller kraft1:9093 --execute`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runVoterChange(c, cf, &vf, false, args[0]) },
	}
	vf.register(c, false)
	return c
}

func (vf *voterFlags) register(c *cobra.Command, add bool) {
	verb := "RemoveRaftVoter"
	if add {
		verb = "AddRaftVoter"
		c.Flags().StringSliceVar(&vf.listeners, "listener", nil, "the new voter's endpoint NAME://host:port (repeatable; default: its controller registration on the voters' listener)")
	}
	c.Flags().BoolVar(&vf.execute, "execute", false, "send "+verb+" (without it, the preview only)")
	c.Flags().BoolVar(&vf.override, "override", false, "make a change that leaves the quorum able to lose fewer voters than today (the controller's id is asked for)")
	c.Flags().StringVar(&vf.controller, "bootstrap-controller", "", "the KRaft controllers' CONTROLLER listeners host:port[,…]: the quorum and the controller registrations are read from them, and without --bootstrap-server the request is sent to them (with --command-config's security)")
	c.Flags().DurationVar(&vf.wait, "wait", time.Minute, "after --execute, how long to follow the quorum until its voters show the change")
}

// parseListeners reads --listener NAME://host:port values.
func parseListeners(vals []string) ([]cluster.RaftListener, error) {
	var out []cluster.RaftListener
	for _, v := range vals {
		name, addr, ok := strings.Cut(v, "://")
		if !ok || name == "" {
			return nil, fmt.Errorf("--listener %q: want NAME://host:port (the voters' listener, e.g. CONTROLLER://kraft4:9093)", v)
		}
		host, port, err := net.SplitHostPort(addr)
		p, perr := strconv.Atoi(port)
		if err != nil || perr != nil || host == "" || p <= 0 || p > 65535 {
			return nil, fmt.Errorf("--listener %q: want NAME://host:port with a port from 1 to 65535", v)
		}
		out = append(out, cluster.RaftListener{Name: name, Host: host, Port: p})
	}
	return out, nil
}

// voterTarget is where a voter change reads and writes: the Dial of the
// brokers (or of the controllers only) and the controllers given.
func voterTarget(cf *connFlags, controllers []string) (kafkawatch.Dial, target, error) {
	t, err := cf.target()
	if err != nil {
		return kafkawatch.Dial{}, t, err
	}
	switch {
	case t.connect != "" && !t.kraft:
		return kafkawatch.Dial{}, t, fmt.Errorf("a ZooKeeper-mode cluster (--zookeeper %s) has no metadata quorum: give --bootstrap-server or --bootstrap-controller", t.connect)
	case t.connect != "":
		d, err := cf.dial()
		return d, t, err
	case len(controllers) == 0:
		return kafkawatch.Dial{}, t, fmt.Errorf("no cluster given: --bootstrap-server host:port[,…] (the brokers) or --bootstrap-controller host:port[,…] (the controllers' CONTROLLER listeners), or --context NAME, or set %s", envBootstrap)
	}
	cf.kraftSide = true
	d := kafkawatch.Dial{Logger: kafkaLogger()}
	if d.Security, err = security(t.commandConfig, d.Logger); err != nil {
		return d, t, err
	}
	if cf.flags != nil && cf.flags.Changed("request-timeout") {
		d.RequestTimeout = cf.requestTimeout
	}
	return d, t, nil
}

// voterWriter is the writer a voter change is sent with: through the
// brokers when given (they forward it to the leader), else to the
// controllers, where the leader takes it.
func voterWriter(cf *connFlags, d kafkawatch.Dial, controllers []string) (clusterops.VoterChanger, func(), error) {
	if len(d.Bootstrap) > 0 {
		w, closeW, err := cf.kafkaWriter()
		if err != nil {
			return nil, nil, err
		}
		vc, ok := w.(clusterops.VoterChanger)
		if !ok {
			closeW()
			return nil, nil, errors.New("this cluster's writer cannot change the quorum's voters")
		}
		return vc, closeW, nil
	}
	return kafkaops.New(kafkawatch.LeaderRequester{Dial: d, Addrs: controllers}, cf.requestTimeoutOr(kafkaops.DefaultTimeout)), func() {}, nil
}

func runVoterChange(c *cobra.Command, cf *connFlags, vf *voterFlags, add bool, arg string) error {
	id, err := strconv.Atoi(arg)
	if err != nil || id < 0 {
		return fmt.Errorf("invalid controller id %q: want a node id, a number (0 or more)", arg)
	}
	listeners, err := parseListeners(vf.listeners)
	if err != nil {
		return err
	}
	controllers, err := kafkawatch.ParseBootstrap(vf.controller)
	if err != nil {
		return fmt.Errorf("--bootstrap-controller: %w", err)
	}
	d, t, err := voterTarget(cf, controllers)
	if err != nil {
		return err
	}
	what := cluster.VoterChange{Add: add, ID: id}.Verb()
	if vf.execute {
		if err := cf.writable(what, "without --execute it is previewed"); err != nil {
			return err
		}
	}
	cf.warn(t)
	ctx := c.Context()
	out := c.OutOrStdout()
	r, err := kafkawatch.ReadQuorumReport(ctx, d, controllers)
	if err != nil {
		return d.Diagnose(ctx, d.Security.Explain(err))
	}
	vc, closeW, err := voterWriter(cf, d, controllers)
	if err != nil {
		return err
	}
	defer closeW()
	if static, known := r.Static(); known && static {
		return staticRefusal(ctx, vc, &r, add, what)
	}
	var ch cluster.VoterChange
	var why string
	if add {
		var nodes []cluster.ControllerNode
		if len(controllers) > 0 {
			if nodes, err = kafkawatch.ControllerNodes(ctx, d, controllers); err != nil {
				return fmt.Errorf("refusing to %s: the controller registrations could not be read: %w", what, err)
			}
		}
		ch, why = r.PlanAddVoter(id, nodes, listeners)
	} else {
		ch, why = r.PlanRemoveVoter(id)
	}
	if why != "" {
		return fmt.Errorf("refusing to %s: %s", what, why)
	}
	fmt.Fprintf(out, "Metadata quorum: leader %d in epoch %d, voters %s.\n", r.Quorum.LeaderID, r.Quorum.LeaderEpoch, r.Quorum.VoterIDs())
	eff := r.VoterChangeEffect(ch)
	fmt.Fprintf(out, "Majority: %s.\n", eff.Text)
	ws, _ := vc.ChangeVoters(ctx, ch, clusterops.Describe)
	fmt.Fprintln(out, "Would send, as one Kafka request:")
	for _, l := range ws.Lines() {
		fmt.Fprintln(out, "  "+l)
	}
	if eff.Lowers() && !vf.override {
		return fmt.Errorf("refusing to %s: it leaves the quorum less able to lose voters (today it can lose %s, after it %s); --override makes it anyway, asking for %d to be typed", what, text0(eff.Before), text0(eff.After), id)
	}
	if !vf.execute {
		fmt.Fprintln(out, "Nothing sent: --execute sends it.")
		return nil
	}
	if eff.Lowers() {
		if err := confirmOverride(c.InOrStdin(), c.ErrOrStderr(), t, strconv.Itoa(id), what); err != nil {
			return err
		}
	} else if err := confirmByTyping(c.InOrStdin(), c.ErrOrStderr(), t, strconv.Itoa(id), what); err != nil {
		return err
	}
	if _, err := vc.ChangeVoters(ctx, ch, clusterops.Apply); err != nil {
		return err
	}
	fmt.Fprintf(out, "Kafka's leader accepted the change: %s.\n", what)
	return followVoterChange(ctx, out, d, controllers, ch, vf.wait)
}

// text0 is "1 voter", "2 voters", "none", or "none: no majority" for a
// negative tolerance.
func text0(n int) string {
	switch {
	case n < 0:
		return "none: no majority"
	case n == 0:
		return "none"
	case n == 1:
		return "1 voter"
	}
	return strconv.Itoa(n) + " voters"
}

// staticRefusal asks Kafka's leader, on a quorum ktopo read as static
// (kraft.version 0), with a voter change it can only refuse: an add of a
// voter that is one already (a dynamic quorum answers DUPLICATE_VOTER),
// a remove of a node that is no voter (VOTER_NOT_FOUND); a static
// quorum's leader answers UNSUPPORTED_VERSION first, and that answer,
// Kafka's own words, is the refusal.
func staticRefusal(ctx context.Context, vc clusterops.VoterChanger, r *cluster.QuorumReport, add bool, what string) error {
	probe, ok := r.StaticProbe(add)
	if !ok {
		return fmt.Errorf("refusing to %s: kraft.version is 0, a static quorum (controller.quorum.voters), whose voters Kafka does not change", what)
	}
	_, err := vc.ChangeVoters(ctx, probe, clusterops.Apply)
	if err == nil {
		return fmt.Errorf("refusing to %s: kraft.version is 0, a static quorum (controller.quorum.voters), yet Kafka's leader took a voter change it should have refused", what)
	}
	return fmt.Errorf("refusing to %s: kraft.version is 0, a static quorum (controller.quorum.voters): Kafka's leader refuses every voter change (asked with one it can only refuse, it answered %w)", what, err)
}

// followVoterChange reads the quorum until its voters show ch made, or
// wait passes, printing what it sees when it changes.
func followVoterChange(ctx context.Context, out io.Writer, d kafkawatch.Dial, controllers []string, ch cluster.VoterChange, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	last := ""
	for {
		r, err := kafkawatch.ReadQuorumReport(ctx, d, controllers)
		var line string
		switch {
		case err != nil:
			line = "the quorum could not be read: " + err.Error()
		case r.QuorumErr != "":
			line = "the quorum could not be read: " + r.QuorumErr
		default:
			q := r.Quorum
			line = fmt.Sprintf("leader %d in epoch %d, voters %s", q.LeaderID, q.LeaderEpoch, q.VoterIDs())
			if q.VoterChanged(ch) {
				fmt.Fprintf(out, "The quorum reports it: %s.\n", line)
				return nil
			}
		}
		if line != last {
			fmt.Fprintf(out, "Waiting for the quorum to report it: %s.\n", line)
			last = line
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("the quorum does not report the change after %s (%s): ktopo quorum shows where it is; Kafka's leader commits a voter change once a majority of the new voter set has it", wait, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// confirmOverride asks for word (the controller's id) before a change
// ktopo would refuse without --override: read from the input, a
// terminal or not (a script pipes the id in), except on a production
// context, where only a terminal will do (confirmByTyping).
func confirmOverride(in io.Reader, errOut io.Writer, t target, word, what string) error {
	if t.production {
		return confirmByTyping(in, errOut, t, word, what)
	}
	fmt.Fprintf(errOut, "--override: type %s to %s: ", word, what)
	return readConfirmation(in, word, what)
}
