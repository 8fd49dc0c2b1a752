package cmd

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/cmd/render"
	"github.com/ktopo/ktopo/internal/text"
)

type alterFlags struct {
	ints         []*javaInt
	topic        string
	partitions   int
	rf           int
	assignment   string
	ifExists     bool
	validateOnly bool
	noWait       bool
	timeout      time.Duration
	seed         int64
}

func newTopicsAlterCmd(cf *connFlags) *cobra.Command {
	var f alterFlags
	c := &cobra.Command{
		Use:         "alter",
		Annotations: modes(modesBoth),
		Short:       "Add partitions to topics as Kafka does, then follow them until online",
		Long: `alter --partitions N runs Kafka's checks and messages ("The number of partitions
for a topic can only be increased. …"; refused while a partition of the topic is
being reassigned or the topic is marked for deletion), places the new
partitions as Kafka would, prints them, writes them, then follows the
controller until every new partition has a leader (--no-wait, --timeout).
--topic is a regular expression: every match is altered in the same write.
  - ZooKeeper mode (--zookeeper): the checks of kafka-topics.sh --alter in
    ZooKeeper mode; the new partitions are placed as AdminZkClient does
    (registered brokers sorted by id, partition 0's replication factor, the
    start index derived from partition 0's first replica; checked against
    2.8's kafka-topics.sh --alter on real clusters) and written by rewriting
    /brokers/topics/<t> in one ZooKeeper multi, only if it has not changed
    since it was read (topic id, existing partitions and any reassignment
    state kept; a concurrent change fails with nothing written).
  - KRaft (--bootstrap-server): the new partitions are placed as the KRaft
    controller places them (its StripedReplicaPlacer, seeded: --seed fixes
    it), with its checks and messages, and sent with CreatePartitions as a
    manual assignment (validateOnly first, then for real), so that the
    partitions added are those printed. When the placement leaves brokers
    without a new partition or a leader while others get several, the output
    says so and names a seed that spreads them better.

--replica-assignment lists every partition, as Kafka's tools take it: the
entries from the current partition count on are the new partitions; the
entries of existing partitions are ignored (a note says so when they differ;
use a reassignment to move them).

--validate-only runs every check, then prints the exact znode and JSON it
would set (on KRaft, the CreatePartitions request). Topic configs are changed
with "ktopo configs --alter" (--config is refused, as 3.x's kafka-topics
--alter refuses it).`,
		Example: `  ktopo topics alter --zookeeper zk1:2181/kafka --topic orders --partitions 24
  ktopo topics alter --topic audit --partitions 4 --replica-assignment 1:2,2:3,3:1,1:3
  ktopo topics alter --topic orders --partitions 24 --validate-only
  ktopo topics alter --bootstrap-server kafka1:9092 --topic orders --partitions 24 --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runAlter(c, cf, f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.topic, "topic", "", "topics to alter: a regular expression, as kafka-topics")
	f.ints = []*javaInt{
		javaIntVar(fl, &f.partitions, "partitions", 0, "the new number of partitions (it can only grow)"),
		javaIntVar(fl, &f.rf, "replication-factor", 0, "not allowed with alter (Kafka's message)"),
	}
	fl.StringVar(&f.assignment, "replica-assignment", "", "manual assignment of every partition (broker_id:broker_id,…); entries of existing partitions are ignored")
	fl.BoolVar(&f.ifExists, "if-exists", false, "succeed without doing anything if no topic matches")
	fl.BoolVar(&f.validateOnly, "validate-only", false, "run every check and print what would be written, write nothing")
	fl.BoolVar(&f.noWait, "no-wait", false, "return once the partitions are written (the topic znode, or CreatePartitions answered), without waiting for them to come online")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Second, "how long to wait for every new partition to come online")
	fl.Int64Var(&f.seed, "seed", -1, "KRaft: seed the controller's placement of the new partitions (-1: random)")
	// kafka-topics' alter options that ktopo leaves to other commands: they
	// exist to answer with Kafka's message.
	var unused []string
	fl.StringArrayVar(&unused, "config", nil, "not allowed: use ktopo configs --alter")
	fl.StringArrayVar(&unused, "delete-config", nil, "not allowed: use ktopo configs --alter")
	for _, n := range []string{"replication-factor", "config", "delete-config"} {
		_ = fl.MarkHidden(n)
	}
	return c
}

func runAlter(c *cobra.Command, cf *connFlags, f alterFlags) error {
	fl, out := c.Flags(), c.OutOrStdout()
	if err := checkJavaInts(f.ints...); err != nil {
		return err
	}
	if !fl.Changed("topic") {
		return errors.New(`Missing required argument "[topic]"`)
	}
	if fl.Changed("replication-factor") {
		return errors.New(`Option "[replication-factor]" can't be used with option "[alter]"`)
	}
	for _, n := range []string{"config", "delete-config"} {
		if fl.Changed(n) {
			// 3.x's kafka-topics refuses it the same way; 2.8's still
			// altered configs, deprecated.
			return fmt.Errorf(`Option "[%s]" can't be used with option "[alter]" (topic configs are altered with ktopo configs --entity-type topics --entity-name %s --alter --add-config k=v)`, n, f.topic)
		}
	}
	if !fl.Changed("partitions") {
		return errors.New(`Missing required argument "[partitions]"`)
	}
	var manual assign.Assignment
	if fl.Changed("replica-assignment") && f.assignment != "" {
		var err error
		if manual, err = assign.ParseReplicaAssignment(f.assignment); err != nil {
			return err
		}
	}
	filter, err := cluster.NewTopicFilter(f.topic, false)
	if err != nil {
		return err
	}

	if err := cf.placementFlags(fl); err != nil {
		return err
	}

	ctx := c.Context()
	ws, err := cf.openLive(c)
	if err != nil {
		return err
	}
	defer ws.close()
	if err := cf.refuseEarly(c, ws.writer, "alter topic "+f.topic); err != nil {
		return err
	}
	snap := ws.snap
	names := filter.Names(snap)
	if len(names) == 0 {
		if f.ifExists {
			return nil
		}
		return cluster.TopicDoesNotExistError(f.topic)
	}
	if !f.validateOnly {
		if err := cf.writable("alter topic "+strings.Join(names, ", "), "--validate-only checks it without writing"); err != nil {
			return err
		}
	}
	var plans []*clusterops.AddPartitionsPlan
	for i, name := range names {
		req := clusterops.AddPartitionsRequest{Topic: name, Partitions: f.partitions, Assignment: manual, Seed: f.seed + int64(i), HasSeed: f.seed >= 0}
		plan, err := clusterops.PlanAddPartitions(snap, req)
		if err != nil {
			return err
		}
		plans = append(plans, plan)
	}
	fmt.Fprintln(out, clusterops.KeyOrderingWarning)
	for _, plan := range plans {
		if err := writeAddPlan(out, plan); err != nil {
			return err
		}
		if sg, ok := clusterops.BetterAddSeed(snap, plan); ok {
			use := "--seed " + strconv.FormatInt(sg.Seed, 10)
			if len(plans) > 1 {
				use = "--topic " + plan.Topic + " " + use // --seed N gives the next topics N+1, N+2, …
			}
			fmt.Fprintf(out, "Seed %d spreads the new partitions of %s better: %s (seed %d: %s). %s places them so.\n",
				sg.Seed, plan.Topic, sg.Better, plan.Result.Seed, sg.Now, use)
		}
	}
	if f.validateOnly {
		writes, err := ws.writer.AddPartitions(ctx, plans, clusterops.Validate)
		if err != nil {
			return err
		}
		writeWouldWrite(out, writes)
		return noteWrite(c, ws.writer)
	}
	w, err := cf.confirmWrite(c, ws.writer, "alter topic "+strings.Join(names, ", "))
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := w.AddPartitions(ctx, plans, clusterops.Apply); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nAdding partitions succeeded!")
	if f.noWait {
		return nil
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	for _, p := range plans {
		if err := waitOnline(ctx, ws.watch, p.Topic, p.Assignment(), f.timeout, start, out); err != nil {
			return interrupted(err, c.ErrOrStderr(), fmt.Sprintf(
				"the partitions are added; the controller brings them online without ktopo (ktopo topics describe --topic %s shows them).", p.Topic))
		}
	}
	return nil
}

// writeAddPlan prints the new partitions' placement as the plan matrix,
// and the manual entries Kafka ignores.
func writeAddPlan(out io.Writer, p *clusterops.AddPartitionsPlan) error {
	a := p.Assignment()
	shown := render.NewPlan(p.Registered, len(a), len(a[p.Existing]), false, p.Result)
	shown.Manual, shown.Topic, shown.Existing = p.Manual, p.Topic, p.Existing
	fmt.Fprintln(out)
	if err := shown.WriteText(out, textStyle(out)); err != nil {
		return err
	}
	if len(p.Ignored) > 0 {
		fmt.Fprintf(out, "Note: --replica-assignment gives existing %s [%s] other replicas than they have; as in Kafka they are ignored (adding partitions never moves existing ones).\n",
			text.Plural(len(p.Ignored), "partition", "partitions"), text.Ints(p.Ignored))
	}
	return nil
}

// writeWouldWrite prints --validate-only's account of the writes: the
// ZooKeeper multi, or the Kafka requests (each one that has validateOnly
// was sent so: Kafka checked it too).
func writeWouldWrite(out io.Writer, w clusterops.Writes) {
	words := clusterops.WordsFor(w)
	fmt.Fprintf(out, "\n%s Would %s, %s:\n", words.Validated, words.Verb, words.HowSent(len(w.Steps)))
	for _, line := range w.Lines() {
		fmt.Fprintln(out, "  "+line)
	}
}

// placementFlags refuses the flags that fix the other kind of cluster's
// placement: --seed is the KRaft controller's (its StripedReplicaPlacer),
// --start-index and --replica-shift ZooKeeper mode's (AdminUtils).
func (f *connFlags) placementFlags(fl *pflag.FlagSet) error {
	t, err := f.target()
	if err != nil {
		return err
	}
	if t.kraft {
		for _, n := range []string{"start-index", "replica-shift"} {
			if fl.Lookup(n) != nil && fl.Changed(n) {
				return fmt.Errorf("--%s fixes ZooKeeper mode's placement (AdminUtils); a KRaft controller places replicas with its StripedReplicaPlacer, which --seed fixes", n)
			}
		}
		return nil
	}
	if fl.Lookup("seed") != nil && fl.Changed("seed") {
		return errors.New("--seed fixes a KRaft controller's placement (--bootstrap-server); ZooKeeper mode's (AdminUtils) is fixed with --start-index and --replica-shift")
	}
	return nil
}
