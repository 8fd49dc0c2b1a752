package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/cmd/render"
	"github.com/ktopo/ktopo/internal/text"
)

type reassignFlags struct {
	generate, execute, verify, cancel, list  bool
	reassignmentFile, topicsFile, brokerList string
	disableRack                              bool
	throttle                                 int64
	throttleFlag                             *javaLong
	additional, preserveThrottles            bool
	noWait, dryRun                           bool
	strategy                                 string
	startIndex                               int
	timeout                                  time.Duration
}

// reassignActions are kafka-reassign-partitions' actions, in its order.
var reassignActions = []string{"generate", "execute", "verify", "cancel", "list"}

// reassignArgs are, per action, its required arguments (in Kafka's order)
// and the others it permits (ktopo's own among them).
var reassignArgs = map[string]struct{ required, permitted []string }{
	"verify":   {required: []string{"reassignment-json-file"}, permitted: []string{"preserve-throttles"}},
	"generate": {required: []string{"topics-to-move-json-file", "broker-list"}, permitted: []string{"disable-rack-aware", "strategy", "start-index"}},
	"execute":  {required: []string{"reassignment-json-file"}, permitted: []string{"additional", "throttle", "no-wait", "dry-run", "timeout", "preserve-throttles"}},
	"cancel":   {required: []string{"reassignment-json-file"}, permitted: []string{"preserve-throttles", "timeout", "dry-run"}},
	"list":     {},
}

func newReassignCmd(cf *connFlags) *cobra.Command {
	var f reassignFlags
	c := &cobra.Command{
		Use:         "reassign",
		Annotations: modes(modesBoth),
		Short:       "Move partitions between brokers, on ZooKeeper or KRaft (kafka-reassign-partitions.sh flags and files)",
		Long: `reassign is kafka-reassign-partitions.sh, with its flags and JSON files (files of
either tool work with the other), for ZooKeeper-mode clusters (--zookeeper: as
its --zookeeper did, through ZooKeeper) and KRaft clusters (--bootstrap-server:
as it does today, over Kafka's Admin API; below):

  --generate   proposes a reassignment of the topics of --topics-to-move-json-file onto
               --broker-list: Kafka's random placement (--strategy kafka, the default) or
               ktopo's: --strategy minimal moves exactly the replicas on brokers that are
               not listed (and, in a partition that moves, one on a listed broker that is
               down), every other replica staying where it is; --strategy balanced also
               evens the topics out over the listed brokers and racks; prints what each
               moves, the plan as a matrix, then Kafka's output (the current assignment
               and the proposed one, in the file format).
  --execute    runs Kafka's checks on --reassignment-json-file, prints the current
               assignment (keep it for a rollback), then writes the throttle configs
               (--throttle) and the reassignment (in ZooKeeper mode with
               /admin/reassign_partitions, in one ZooKeeper multi), and follows each
               partition: new replicas copying and joining the ISR, the leader
               moving into the target, the removed replicas leaving, done; then removes
               the throttles as --verify would (--preserve-throttles keeps them; with
               --no-wait, --verify removes them later, as with Kafka's tool).
  --verify     says per partition whether its reassignment is complete, and once none
               runs in the cluster removes the throttles, as Kafka's --verify does.
  --list       lists the reassignments in progress, whoever started them.

The kafka strategy is what Kafka's tool computes: every topic placed afresh at
random by AdminUtils over the listed brokers that are registered (sorted by id;
--disable-rack-aware ignores racks; --start-index fixes the start for every
topic). The minimal strategy keeps each replica unless its broker leaves the
list, its rack already holds its share of the partition, or its broker holds
more than its share of the topic; the replicas that must move go to the
brokers furthest below their share, and a partition keeps its leader when it
can.

With the replicas' sizes (DescribeLogDirs, asked of every broker; in ZooKeeper
mode through the brokers' registered listener, --sizes-listener, with
--command-config's security), --generate and --execute also print the bytes
the plan copies, in and out per broker, and how long it takes at --throttle:
each broker sends and receives at most the throttle, and also copies what its
partitions grow by meanwhile. The minimal strategy then puts the largest
replicas on the brokers holding the fewest bytes; the balanced one evens the
bytes per broker to within 10 % of each broker's share, keeping replica counts
within one. A plan that would fill a broker's log directories past their
usable bytes is refused. --verify and --list add the bytes copied, a
percentage and the time left, on standard error (standard output stays
Kafka's).

A throttle left behind would slow those replicas' next catch-up, hence
--verify. --dry-run runs every check and prints exactly what would be written
(the znodes and JSON, or the requests) without writing; --timeout bounds the
wait (the reassignment goes on without ktopo).

In ZooKeeper mode --execute is guarded by the znode versions it read: if
anything changed meanwhile (a partition added, a config edited, another
reassignment started), nothing is written and the message says what. --cancel
and --additional need Kafka's Admin API: ZooKeeper has no way to cancel a
reassignment or add to one in progress, and ktopo refuses them there, saying so.

On a KRaft cluster (--bootstrap-server) --execute sends the throttles
(IncrementalAlterConfigs), then AlterPartitionReassignments, as Kafka's tool
does; --dry-run prints both requests and has the throttles checked with
validateOnly. --cancel sends the file's partitions that are being reassigned
with no target (back to the replicas they had), follows them until the brokers
show it, then removes the throttles (--preserve-throttles keeps them;
--dry-run prints the request). --additional starts a reassignment while others
run, as Kafka's tool does: a partition of the file already being reassigned
gets the file's target instead (the preview names the target it replaces), and
--throttle sets the throttles of every reassignment in progress.`,
		Example: `  ktopo reassign --zookeeper zk1:2181/kafka --generate --topics-to-move-json-file topics.json --broker-list 1,2,3,4,5 --strategy minimal
  ktopo reassign --execute --reassignment-json-file plan.json --throttle 10000000
  ktopo reassign --execute --reassignment-json-file plan.json --dry-run
  ktopo reassign --verify --reassignment-json-file plan.json
  ktopo reassign --list
  ktopo reassign --bootstrap-server kafka1:9092 --cancel --reassignment-json-file plan.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runReassign(c, cf, &f) },
	}
	fl := c.Flags()
	fl.BoolVar(&f.generate, "generate", false, "propose a reassignment of the topics of --topics-to-move-json-file onto --broker-list")
	fl.BoolVar(&f.execute, "execute", false, "start the reassignment of --reassignment-json-file and follow it")
	fl.BoolVar(&f.verify, "verify", false, "check the reassignment of --reassignment-json-file; remove the throttles once none runs")
	fl.BoolVar(&f.cancel, "cancel", false, "cancel the reassignment of --reassignment-json-file's partitions (KRaft: AlterPartitionReassignments; refused through ZooKeeper)")
	fl.BoolVar(&f.list, "list", false, "list the reassignments in progress")
	fl.StringVar(&f.reassignmentFile, "reassignment-json-file", "", `the reassignment, {"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[1,2,3]}]}`)
	fl.StringVar(&f.topicsFile, "topics-to-move-json-file", "", `the topics to move, {"version":1,"topics":[{"topic":"foo"}]}`)
	fl.StringVar(&f.brokerList, "broker-list", "", `the brokers to move them to, "1,2,3"`)
	fl.BoolVar(&f.disableRack, "disable-rack-aware", false, "ignore broker racks when placing replicas")
	f.throttleFlag = javaLongVar(fl, &f.throttle, "throttle", -1, "throttle the copying of partitions between brokers to this many bytes per second (at least 1 KB/s)")
	fl.BoolVar(&f.additional, "additional", false, "start while other reassignments run (KRaft; a partition already moving gets the file's target instead)")
	fl.BoolVar(&f.preserveThrottles, "preserve-throttles", false, "do not remove the throttles")
	fl.BoolVar(&f.noWait, "no-wait", false, "return once the reassignment is written, without following it")
	fl.BoolVar(&f.dryRun, "dry-run", false, "run every check and print exactly what would be written (the znodes and JSON, or the Kafka requests); write nothing")
	fl.StringVar(&f.strategy, "strategy", "kafka", "--generate's placement: kafka (Kafka's, random), minimal (only the replicas of unlisted brokers move) or balanced (fewest moves that even the topics out)")
	fl.IntVar(&f.startIndex, "start-index", -1, "fix the kafka strategy's start index and shift for every topic (-1: random)")
	fl.DurationVar(&f.timeout, "timeout", 0, "how long to follow the reassignment (0: until it completes)")
	return c
}

func runReassign(c *cobra.Command, cf *connFlags, f *reassignFlags) error {
	action, err := reassignAction(c.LocalNonPersistentFlags())
	if err != nil {
		return err
	}
	if err := checkJavaInts(f.throttleFlag); err != nil {
		return err
	}
	// In ZooKeeper mode the sizes are read from the brokers, with
	// --command-config's security.
	cf.sizesSide = true
	if _, err := cf.target(); err != nil {
		return err
	}
	switch action {
	case "cancel":
		return runCancel(c, cf, f)
	case "list":
		return withCluster(c, cf, func(ctx context.Context, ses *session) error {
			s := ses.snap
			if err := writeReassignList(c.OutOrStdout(), s); err != nil {
				return err
			}
			// ktopo's addition, on standard error so that standard output
			// stays Kafka's: how far the copies have got, by bytes.
			if moves, _ := runningMoves(s, nil); len(moves) > 0 {
				return writeProgress(c.ErrOrStderr(), s, ses.readSizes(ctx), moves, nil)
			}
			return nil
		})
	case "generate":
		return runGenerate(c, cf, f)
	case "verify":
		return runVerify(c, cf, f)
	}
	return runExecute(c, cf, f)
}

// reassignAction checks the flags as kafka-reassign-partitions does:
// exactly one action, its required arguments, no argument another action
// owns.
func reassignAction(fl *pflag.FlagSet) (string, error) {
	var actions []string
	for _, a := range reassignActions {
		if fl.Changed(a) {
			actions = append(actions, a)
		}
	}
	if len(actions) != 1 {
		return "", errors.New("Command must include exactly one action: --" + strings.Join(reassignActions, ", --"))
	}
	action := actions[0]
	args := reassignArgs[action]
	for _, r := range args.required {
		if !fl.Changed(r) {
			return "", fmt.Errorf(`Missing required argument "[%s]"`, r)
		}
	}
	var bad error
	fl.VisitAll(func(fg *pflag.Flag) {
		name := fg.Name
		if bad != nil || !fg.Changed || name == action || slices.Contains(args.required, name) || slices.Contains(args.permitted, name) ||
			fl.Lookup(name) == nil || isAction(name) {
			return
		}
		bad = fmt.Errorf(`Option "[%s]" can't be used with action "[%s]"`, name, action)
	})
	return action, bad
}

func isAction(name string) bool { return slices.Contains(reassignActions, name) }

// readToolFile reads a JSON file argument ("Unable to read file <f>", as
// Kafka's tools say, then why).
func readToolFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Unable to read file %s: %w", path, unwrapPath(err))
	}
	return b, nil
}

// readReassignmentFile reads and parses --reassignment-json-file.
func readReassignmentFile(path string) ([]cluster.Reassignment, error) {
	data, err := readToolFile(path)
	if err != nil {
		return nil, err
	}
	return cluster.ParseReassignmentJSON(data)
}

func runExecute(c *cobra.Command, cf *connFlags, f *reassignFlags) error {
	out := c.OutOrStdout()
	// As Kafka's tool checks its options: --additional with --zookeeper is
	// refused before anything is read (the writer, not Additive, would
	// refuse it too).
	if t, _ := cf.target(); f.additional && !t.kraft {
		return clusterops.ErrAdditionalNeedsKafka
	}
	if !f.dryRun {
		if err := cf.writable("start a reassignment", "--dry-run checks it and shows what would be written"); err != nil {
			return err
		}
	}
	rs, err := readReassignmentFile(f.reassignmentFile)
	if err != nil {
		return err
	}
	if err := cluster.CheckExecute(rs); err != nil {
		return err
	}
	ctx := c.Context()
	ws, err := cf.openLive(c)
	if err != nil {
		return err
	}
	defer ws.close()
	additive, ok := ws.writer.(clusterops.Additive)
	if f.additional && !ok {
		return clusterops.ErrAdditionalNeedsKafka
	}
	if err := cf.refuseEarly(c, ws.writer, "start a reassignment"); err != nil {
		return err
	}
	mode := clusterops.Describe
	if f.dryRun {
		mode = clusterops.Validate
	}
	// send is --execute's request through w, --additional's with the flag.
	send := func(w clusterops.Writer, m clusterops.Mode) (*clusterops.ReassignPlan, clusterops.Writes, error) {
		if f.additional {
			if a, ok := w.(clusterops.Additive); ok { // w confirmed: the same writer underneath
				additive = a
			}
			return additive.AddReassignment(ctx, ws.snap, rs, f.throttle, m)
		}
		return w.StartReassignment(ctx, ws.snap, rs, f.throttle, m)
	}
	plan, writes, err := send(ws.writer, mode)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Current partition replica assignment\n\n%s\n\n%s\n", plan.CurrentJSON(), clusterops.MessageRollback)
	writeMoves(out, plan.Moves)
	if f.throttle >= 0 && f.throttle < 1024 {
		fmt.Fprintf(out, "Warning: a throttle of %d B/s is below 1 KB/s, the least Kafka advises: the copies may barely move.\n", f.throttle)
	}
	// ktopo's addition: the bytes the moves copy and the time they take;
	// a plan that would fill a broker's disks is refused here, before
	// anything is written.
	if err := writeMoveBytes(out, c.ErrOrStderr(), ws.snap, ws.readSizes(ctx), plan.Moves, f.throttle); err != nil {
		return err
	}
	if f.dryRun {
		words := clusterops.WordsFor(writes)
		fmt.Fprintf(out, "\nDry run: every check passed. Would %s, %s:\n", words.Verb, words.HowSent(len(writes.Steps)))
		for _, line := range writes.Lines() {
			fmt.Fprintln(out, "  "+line)
		}
		return noteWrite(c, ws.writer)
	}
	w, err := cf.confirmWrite(c, ws.writer, "start a reassignment")
	if err != nil {
		return err
	}
	if f.throttle >= 0 {
		fmt.Fprintln(out, clusterops.MessageRunVerify)
	}
	start := time.Now()
	if plan, _, err = send(w, clusterops.Apply); err != nil {
		return err
	}
	if f.throttle >= 0 {
		fmt.Fprintf(out, "The inter-broker throttle limit was set to %d B/s\n", f.throttle)
	}
	fmt.Fprintln(out, plan.StartedMessage())
	if f.noWait {
		return nil
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	if err := followReassignment(ctx, ws.watch, plan, f.timeout, start, out); err != nil {
		verify := "ktopo reassign --verify --reassignment-json-file " + f.reassignmentFile
		what := "the reassignment goes on without ktopo; " + verify + " shows its progress."
		if f.throttle >= 0 {
			what = fmt.Sprintf("the reassignment goes on without ktopo, and so does its throttle of %d B/s on the brokers and topics it moves: "+
				"%s shows its progress and, once every partition is done, removes the throttles.", f.throttle, verify)
		}
		return interrupted(err, c.ErrOrStderr(), what)
	}
	if f.throttle < 0 {
		return nil
	}
	if f.preserveThrottles {
		fmt.Fprintf(out, "The throttles stay (--preserve-throttles): ktopo reassign --verify --reassignment-json-file %s removes them\n", f.reassignmentFile)
		return nil
	}
	// Done: what --verify would do now.
	return removeThrottles(c, out, cf, ws.watch.Model.Snapshot(), ws.writer, rs)
}

// writeMoves prints, per partition, what the reassignment changes (ktopo's
// addition to Kafka's output).
func writeMoves(out io.Writer, moves []clusterops.PartitionMove) {
	added, leaders := 0, 0
	var b strings.Builder
	for _, m := range moves {
		fmt.Fprintf(&b, "  %s: %s → %s", m.TopicPartition, text.Ints(m.Current), text.Ints(m.Target))
		var notes []string
		if a := m.Adding(); len(a) > 0 {
			added += len(a)
			notes = append(notes, "adds "+text.Ints(a))
		}
		if r := m.Removing(); len(r) > 0 {
			notes = append(notes, "removes "+text.Ints(r))
		}
		if len(m.Current) > 0 && m.Current[0] != m.Target[0] {
			leaders++
			notes = append(notes, fmt.Sprintf("preferred leader %d → %d", m.Current[0], m.Target[0]))
		}
		if len(notes) == 0 {
			notes = append(notes, "unchanged")
		}
		if m.Replaces != nil {
			notes = append(notes, "replaces the reassignment in progress to "+text.Ints(m.Replaces))
		}
		b.WriteString("   " + strings.Join(notes, ", ") + "\n")
	}
	fmt.Fprintf(out, "\n%s move: %s copied to new brokers, %s %s preferred leader.\n%s\n",
		text.Count(len(moves), "partition"), text.Count(added, "replica"), text.Count(leaders, "partition"),
		text.Plural(leaders, "changes its", "change their"), b.String())
}

// followReassignment follows the live model until every partition's
// reassignment is done, printing each partition's steps (a progress bar on
// a terminal).
func followReassignment(ctx context.Context, w *clusterwatch.Watch, plan *clusterops.ReassignPlan, timeout time.Duration, start time.Time, out io.Writer) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	tracker := clusterops.NewReassignTracker(plan.Moves, plan.TopicVersions)
	phases := make([]cluster.ReassignPhase, len(plan.Moves))
	for i := range phases {
		phases[i] = cluster.ReassignDone + 1 // none yet
	}
	var last clusterops.ReassignProgress
	err := followModel(ctx, w, out, func(s *cluster.Snapshot, tty bool) bool {
		last = tracker.Update(s)
		for i, p := range last.Partitions {
			// One line per step the controller takes: the removed
			// replicas leaving the ISR is within the removal.
			ph := p.Phase
			if ph == cluster.ReassignInSync {
				ph = cluster.ReassignRemoving
			}
			if !tty && phases[i] != ph {
				phases[i] = ph
				fmt.Fprintln(out, p.Describe())
			}
		}
		return last.Done()
	}, func() string { return reassignBar(last, 30) })
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return reassignStalled(last, timeout)
	case err != nil:
		return err
	}
	fmt.Fprintf(out, "All %s completed in %s.\n", text.Count(len(plan.Moves), "partition reassignment"), time.Since(start).Round(time.Millisecond))
	return nil
}

func reassignBar(pr clusterops.ReassignProgress, width int) string {
	n := len(pr.Partitions)
	done := 0
	if n > 0 {
		done = pr.Count[cluster.ReassignDone] * width / n
	}
	return fmt.Sprintf("[%s%s] %d/%d done, %d adding, %d caught up, %d removing, %d waiting for the controller ",
		strings.Repeat("#", done), strings.Repeat(".", width-done), pr.Count[cluster.ReassignDone], n,
		pr.Count[cluster.ReassignAdding], pr.Count[cluster.ReassignLeader], pr.Count[cluster.ReassignInSync]+pr.Count[cluster.ReassignRemoving],
		pr.Count[cluster.ReassignQueued])
}

func reassignStalled(pr clusterops.ReassignProgress, timeout time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d partition reassignments completed after %s; they go on without ktopo (ktopo reassign --verify follows them)",
		pr.Count[cluster.ReassignDone], len(pr.Partitions), timeout)
	for _, p := range pr.Partitions {
		if p.Phase != cluster.ReassignDone {
			b.WriteString("\n  " + p.Describe())
		}
	}
	for _, why := range pr.Waiting {
		b.WriteString("\n  waiting: " + why)
	}
	return errors.New(b.String())
}

func writeReassignList(out io.Writer, s *cluster.Snapshot) error {
	ls := clusterops.ListReassignments(s)
	if len(ls) == 0 {
		_, err := fmt.Fprintln(out, "No partition reassignments found.")
		return err
	}
	var b strings.Builder
	b.WriteString("Current partition reassignments:\n")
	var zkStarted, apiStarted []string
	for _, l := range ls {
		b.WriteString(l.String() + "\n")
		switch {
		case l.Requested != nil:
			zkStarted = append(zkStarted, l.TopicPartition.String())
		case l.Started:
			apiStarted = append(apiStarted, l.TopicPartition.String())
		}
	}
	if len(zkStarted) > 0 {
		fmt.Fprintf(&b, "Started through %s: %s.\n", cluster.ReassignPartitionsPath, strings.Join(zkStarted, ","))
	}
	// On a KRaft cluster every reassignment is the Admin API's: the line
	// would tell nothing, and the output is then Kafka's tool's, exactly.
	if len(apiStarted) > 0 && s.KRaft() == nil {
		fmt.Fprintf(&b, "Started through the Admin API: %s.\n", strings.Join(apiStarted, ","))
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func runGenerate(c *cobra.Command, cf *connFlags, f *reassignFlags) error {
	data, err := readToolFile(f.topicsFile)
	if err != nil {
		return err
	}
	brokers, err := cluster.ParseBrokerList(f.brokerList)
	if err != nil {
		return err
	}
	topics, err := cluster.ParseTopicsToMoveJSON(data)
	if err != nil {
		return err
	}
	strategy, err := clusterops.ParseStrategy(f.strategy)
	if err != nil {
		return err
	}
	req := clusterops.GenerateRequest{Topics: topics, Brokers: brokers, Strategy: strategy, StartIndex: f.startIndex}
	if f.disableRack {
		req.RackAware = cluster.RackAwareDisabled
	}
	return withCluster(c, cf, func(ctx context.Context, ses *session) error {
		s := ses.snap
		g, err := clusterops.GenerateReassignment(s, req)
		if err != nil {
			// Kafka's message counts the brokers left: say which were left out.
			var gone []int
			for _, id := range brokers {
				if !s.IsLive(id) {
					gone = append(gone, id)
				}
			}
			if len(gone) > 0 {
				fmt.Fprintf(c.ErrOrStderr(), "Note: %s %s not registered: left out of --broker-list, as Kafka's tool does.\n",
					text.Plural(len(gone), "broker", "brokers")+" "+text.Ints(gone), text.Plural(len(gone), "is", "are"))
			}
			return err
		}
		out := c.OutOrStdout()
		if err := writeGenerateReport(out, g, f.disableRack); err != nil {
			return err
		}
		// The bytes the plan copies come after ktopo's report and before
		// Kafka's output, whose proposed assignment stays the last line
		// (scripts take it with tail -1); no plan is printed that would
		// fill a broker's disks.
		var bytes strings.Builder
		if err := writeMoveBytes(&bytes, c.ErrOrStderr(), s, ses.readSizes(ctx), g.Moves(g.Strategy), -1); err != nil {
			return err
		}
		if bytes.Len() > 0 {
			fmt.Fprintln(out, bytes.String())
		}
		_, err = fmt.Fprintf(out, "Current partition replica assignment\n%s\n\nProposed partition reassignment configuration\n%s\n",
			g.CurrentJSON(), g.ProposedJSON())
		return err
	})
}

// writeGenerateReport prints what each strategy moves and the chosen
// plan as one matrix per topic (ktopo's addition, before Kafka's output,
// so that the proposed JSON stays the last line).
func writeGenerateReport(out io.Writer, g *clusterops.GeneratePlan, disabled bool) error {
	if len(g.Ignored) > 0 {
		fmt.Fprintf(out, "Warning: %s %s not registered and %s no replica (Kafka's tool leaves them out too).\n",
			text.Plural(len(g.Ignored), "broker", "brokers"), text.Ints(g.Ignored), text.Plural(len(g.Ignored), "gets", "get"))
	}
	line := func(st clusterops.Strategy, mc clusterops.MoveCount) {
		chosen := ""
		if st == g.Strategy {
			chosen = " (chosen)"
		}
		fmt.Fprintf(out, "Strategy %-9s %d of %d replicas move, %d of %d partitions change their preferred leader%s\n",
			st.String()+":", mc.Replicas, mc.TotalReplicas, mc.Leaders, mc.Partitions, chosen)
	}
	line(clusterops.StrategyKafka, g.Kafka)
	line(clusterops.StrategyMinimal, g.Minimal)
	line(clusterops.StrategyBalanced, g.Balanced)
	fmt.Fprintln(out)
	style := textStyle(out)
	for _, t := range g.Topics {
		if len(t.Proposed) == 0 {
			fmt.Fprintf(out, "Topic %s: no partitions.\n\n", t.Topic)
			continue
		}
		ps := t.Proposed.Partitions()
		rf := len(t.Proposed[ps[0]])
		res := assign.Result{Assignment: t.Proposed, StartIndex: -1, ReplicaShift: -1}
		how := g.Strategy.String() + " strategy"
		if g.Strategy == clusterops.StrategyKafka {
			res = t.KafkaResult
			how = fmt.Sprintf("kafka strategy, start index %d, replica shift %d", res.StartIndex, res.ReplicaShift)
		}
		moved, leaders := assign.CountMoves(t.Current, t.Proposed)
		// The matrix also shows the brokers the replicas leave (a drained
		// broker's column of -); the spread is judged on the listed ones.
		p := render.NewPlan(displayBrokers(g, t.Current), len(ps), rf, disabled, res)
		target := assign.ComputeStats(g.Registered, t.Proposed)
		p.Stats.EvenReplicas, p.Stats.EvenLeaders, p.Stats.RacksWithoutReplicas = target.EvenReplicas, target.EvenLeaders, target.RacksWithoutReplicas
		p.Before = t.Current
		p.Header = fmt.Sprintf("Topic %s (%s): %d of %d replicas move, %d of %d partitions change their preferred leader",
			t.Topic, how, moved, len(ps)*rf, leaders, len(ps))
		if err := p.WriteText(out, style); err != nil {
			return err
		}
		if note := rackSizeNote(g, target, rf); note != "" {
			fmt.Fprintln(out, note)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// rackSizeNote explains an uneven rack-aware plan whose racks have
// different numbers of brokers: every partition keeps a replica in each
// rack, so the brokers of small racks hold more.
func rackSizeNote(g *clusterops.GeneratePlan, st assign.Stats, rf int) string {
	if st.Even() || len(g.Brokers) == 0 || !g.Brokers[0].HasRack {
		return ""
	}
	sizes := map[string]int{}
	for _, b := range g.Brokers {
		sizes[b.Rack]++
	}
	if rf < len(sizes) {
		return ""
	}
	var parts []string
	lo, hi := len(g.Brokers), 0
	for _, r := range slices.Sorted(maps.Keys(sizes)) {
		parts = append(parts, fmt.Sprintf("%s %d", r, sizes[r]))
		lo, hi = min(lo, sizes[r]), max(hi, sizes[r])
	}
	if lo == hi {
		return ""
	}
	return "Note: the racks have different numbers of brokers (" + strings.Join(parts, ", ") +
		") and rack-aware placement keeps a replica of every partition in each rack, so the brokers of smaller racks hold more."
}

// displayBrokers are the listed brokers plus the registered ones that hold
// replicas now, sorted by id, with their racks.
func displayBrokers(g *clusterops.GeneratePlan, current assign.Assignment) []assign.Broker {
	out := slices.Clone(g.Registered)
	for _, b := range g.All {
		if slices.ContainsFunc(out, func(x assign.Broker) bool { return x.ID == b.ID }) {
			continue
		}
		for _, r := range current {
			if slices.Contains(r, b.ID) {
				out = append(out, b)
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b assign.Broker) int { return a.ID - b.ID })
	return out
}
