package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/cmd/render"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/zkwatch"
)

func newTopicsCmd(cf *connFlags) *cobra.Command {
	c := &cobra.Command{
		Use:         "topics",
		Annotations: modes(modesBoth),
		Short:       "Create, alter, describe, list and delete topics (kafka-topics.sh flags)",
		Long: `topics takes kafka-topics.sh's flags and prints its formats: create, alter (add
partitions), describe, list and delete. On a ZooKeeper-mode cluster (--zookeeper)
it reads and writes the cluster's ZooKeeper as kafka-topics.sh --zookeeper did; on
a KRaft cluster (--bootstrap-server) it reads and writes over the Kafka protocol
as kafka-topics.sh --bootstrap-server does. --topic is a regular expression, as in
kafka-topics.

Errors are Kafka's messages, on standard error, with exit status 1. In ZooKeeper
mode a znode that cannot be decoded is named on standard error and never changes
a read command's exit status.`,
		Args: cobra.NoArgs,
	}
	c.AddCommand(newTopicsCreateCmd(cf), newTopicsAlterCmd(cf), newTopicsDescribeCmd(cf), newTopicsListCmd(cf), newTopicsDeleteCmd(cf))
	return c
}

// loadCluster reads the cluster once through the live mirror and reports
// undecodable znodes on stderr (they never change the exit status).
func loadCluster(ctx context.Context, c *cobra.Command, conn *zkwatch.Conn) (*cluster.Snapshot, error) {
	s, err := zksource.Load(ctx, conn, cluster.ModelOptions{})
	if err != nil {
		return nil, err
	}
	render.WriteNodeErrors(c.ErrOrStderr(), s)
	return s, nil
}

// checkKafkaRoot makes a connect string missing its chroot look like what
// it is, not like an empty cluster: where no /brokers/ids exists but a
// Kafka cluster is one level down, it fails naming the connect string to
// use; where none is, it notes on errOut that no broker ever started there
// (a cluster being set up looks the same, so that is not an error).
func checkKafkaRoot(errOut io.Writer, conn *zkwatch.Conn, connect string) error {
	nk, err := zksource.CheckRoot(conn, conn.Chroot())
	switch {
	case err != nil:
		return err
	case nk == nil:
		return nil
	case len(nk.Below) > 0:
		return errors.New(nk.Message(connect))
	}
	fmt.Fprintln(errOut, "Note: "+nk.Message(connect))
	return nil
}

type createFlags struct {
	ints         []*javaInt
	topic        string
	partitions   int
	rf           int
	assignment   string
	configs      []string
	disableRack  bool
	ifNotExists  bool
	validateOnly bool
	noWait       bool
	timeout      time.Duration
	startIndex   int
	replicaShift int
	seed         int64
}

func newTopicsCreateCmd(cf *connFlags) *cobra.Command {
	var f createFlags
	c := &cobra.Command{
		Use:         "create",
		Annotations: modes(modesBoth),
		Short:       "Create a topic as Kafka does, then follow it until every partition is online",
		Long: `create runs Kafka's checks in Kafka's order, with Kafka's messages, prints the
assignment, writes it, then follows the controller until every partition has a
leader.

On a ZooKeeper-mode cluster (--zookeeper) the checks are kafka-topics.sh
--create's in ZooKeeper mode; it computes the assignment as AdminZkClient does
(registered brokers sorted by id, rack-aware unless --disable-rack-aware;
--replica-assignment 1:2,2:3 instead of --partitions and --replication-factor),
prints it, writes /config/topics/<t> and /brokers/topics/<t> as Kafka writes
them but in one ZooKeeper multi, then follows the controller until every
partition has a leader. The multi is all or nothing: a crash never leaves half
a topic, and losing a race gives "Topic 'x' already exists." with nothing
written.

On a KRaft cluster (--bootstrap-server) the assignment is the KRaft
controller's own placement (its StripedReplicaPlacer: racks and brokers taken
in turn, from random offsets, fenced and cordoned brokers left out), computed
by ktopo from a seed (--seed fixes it, the output says which was used), and
sent as a manual assignment with CreateTopics, validateOnly first, then for
real: the topic created is exactly the one printed.

If the write gets no reply (the connection broke, the deadline passed), create
says so, reads the topic back once it has a session again (within --timeout)
and either goes on (the write was applied exactly as planned) or fails saying
nothing was written. If the partitions are not online within --timeout it says
what they wait for (no active controller, replicas only on brokers that are not
registered) and exits 1.

--validate-only runs every check, then prints the exact znodes and JSON it
would write (on KRaft: the exact CreateTopics request, which the controller
checks with validateOnly), and writes nothing. --start-index and
--replica-shift fix Kafka's random start, as in "ktopo plan"; --seed fixes the
KRaft controller's placement.`,
		Example: `  ktopo topics create --zookeeper zk1:2181/kafka --topic orders --partitions 12 --replication-factor 3
  ktopo topics create --topic audit --replica-assignment 1:2,2:3,3:1 --config cleanup.policy=compact
  ktopo topics create --topic orders --partitions 12 --replication-factor 3 --validate-only
  ktopo topics create --bootstrap-server kafka1:9092 --topic orders --partitions 12 --replication-factor 3 --seed 42`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runCreate(c, cf, f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.topic, "topic", "", "name of the topic to create")
	f.ints = []*javaInt{
		javaIntVar(fl, &f.partitions, "partitions", 0, "number of partitions"),
		javaIntVar(fl, &f.rf, "replication-factor", 0, "replication factor"),
	}
	fl.StringVar(&f.assignment, "replica-assignment", "", "manual assignment: broker_id:broker_id,… one list per partition")
	fl.StringArrayVar(&f.configs, "config", nil, "topic config override key=value (repeatable)")
	fl.BoolVar(&f.disableRack, "disable-rack-aware", false, "ignore broker racks when assigning replicas")
	fl.BoolVar(&f.ifNotExists, "if-not-exists", false, "succeed without doing anything if the topic exists")
	fl.BoolVar(&f.validateOnly, "validate-only", false, "run every check and print what would be written, write nothing")
	fl.BoolVar(&f.noWait, "no-wait", false, "return once the topic is written (its znodes, or CreateTopics answered), without waiting for the partitions")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Second, "how long to wait for every partition to come online")
	fl.IntVar(&f.startIndex, "start-index", -1, "fix Kafka's start index (and replica shift), as in ktopo plan (-1: random)")
	fl.IntVar(&f.replicaShift, "replica-shift", -1, "fix the replica shift, as in ktopo plan")
	fl.Int64Var(&f.seed, "seed", -1, "KRaft: seed the controller's placement (-1: random)")
	return c
}

func runCreate(c *cobra.Command, cf *connFlags, f createFlags) error {
	fl, out := c.Flags(), c.OutOrStdout()
	// kafka-topics' argument checks, with its messages.
	if err := checkJavaInts(f.ints...); err != nil {
		return err
	}
	if !fl.Changed("topic") {
		return errors.New(`Missing required argument "[topic]"`)
	}
	// An empty --replica-assignment is no assignment to Kafka (3.x then
	// takes the broker defaults; in ZooKeeper mode partitions and
	// replication factor are required).
	manual := fl.Changed("replica-assignment") && f.assignment != ""
	for _, other := range []string{"partitions", "replication-factor"} {
		if manual && fl.Changed(other) {
			return fmt.Errorf(`Option "[replica-assignment]" can't be used with option "[%s]"`, other)
		}
		if !manual && !fl.Changed(other) {
			return fmt.Errorf(`Missing required argument "[%s]"`, other)
		}
	}
	// Kafka parses the assignment first, then the configs (validating
	// them), as kafka-topics' CommandTopicPartition does.
	var assignment assign.Assignment
	if manual {
		var err error
		if assignment, err = assign.ParseReplicaAssignment(f.assignment); err != nil {
			return err
		}
	}
	config, err := cluster.ParseConfigArgs(f.configs)
	if err != nil {
		return err
	}
	if w := cluster.ConfigWarning(config); w != "" {
		fmt.Fprintln(out, w)
	}
	req := clusterops.TopicRequest{Name: f.topic, Partitions: f.partitions, ReplicationFactor: f.rf, Config: config,
		StartIndex: f.startIndex, ReplicaShift: f.replicaShift, Assignment: assignment, Seed: f.seed, HasSeed: f.seed >= 0}
	if err := cf.placementFlags(fl); err != nil {
		return err
	}
	if f.disableRack {
		req.RackAware = cluster.RackAwareDisabled
	}
	if cluster.HasCollisionChars(f.topic) {
		fmt.Fprintln(out, cluster.CollisionWarning)
	}
	if !f.validateOnly {
		if err := cf.writable("create topic "+f.topic, "--validate-only checks it without writing"); err != nil {
			return err
		}
	}

	ctx := c.Context()
	ws, err := cf.openLive(c)
	if err != nil {
		return err
	}
	defer ws.close()
	if err := cf.refuseEarly(c, ws.writer, "create topic "+f.topic); err != nil {
		return err
	}
	plan, err := clusterops.PlanTopic(ws.snap, req)
	if err != nil {
		if f.ifNotExists && cluster.ErrorClass(err) == cluster.ClassTopicExists {
			return nil // kafka-topics --if-not-exists: nothing to do
		}
		return err
	}
	rf := len(plan.Assignment()[0])
	shown := render.NewPlan(plan.Registered, len(plan.Assignment()), rf, f.disableRack, plan.Result)
	shown.Manual = plan.Manual
	if err := shown.WriteText(out, textStyle(out)); err != nil {
		return err
	}
	if f.validateOnly {
		writes, err := ws.writer.CreateTopic(ctx, plan, clusterops.Validate)
		if err != nil {
			return err
		}
		writeWouldWrite(out, writes)
		return noteWrite(c, ws.writer)
	}
	w, err := cf.confirmWrite(c, ws.writer, "create topic "+f.topic)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := createTopic(ctx, c.ErrOrStderr(), w, plan, f.timeout); err != nil {
		if f.ifNotExists && cluster.ErrorClass(err) == cluster.ClassTopicExists {
			return nil
		}
		return err
	}
	fmt.Fprintf(out, "\nCreated topic %s.\n", f.topic)
	if f.noWait {
		return nil
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	return interrupted(waitOnline(ctx, ws.watch, plan.Name, plan.Assignment(), f.timeout, start, out), c.ErrOrStderr(),
		fmt.Sprintf("topic %s is created; the controller brings its partitions online without ktopo (ktopo topics describe --topic %s shows them).", plan.Name, plan.Name))
}

// createTopic writes the plan. When the write gets no reply (the
// connection failed, the deadline passed), it finds out what happened,
// within timeout: it says so on errOut, waits for the late reply or for
// the session to come back, and reads back. A topic found exactly as
// planned is a success; one not found is an error saying nothing was
// written; one that cannot be found out is an error saying so.
func createTopic(ctx context.Context, errOut io.Writer, w clusterops.Writer, plan *clusterops.TopicPlan, timeout time.Duration) error {
	_, err := w.CreateTopic(ctx, plan, clusterops.Apply)
	if err == nil || !w.MaybeWritten(err) {
		return err
	}
	fmt.Fprintf(errOut, "No reply to the write (%v); finding out whether it was applied…\n", err)
	vctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	o := w.VerifyCreate(vctx, plan, err)
	switch {
	case !o.Known:
		return fmt.Errorf("the outcome is unknown: %w. %s: topic %s exists exactly as planned or not at all (ktopo topics describe --topic %s tells)",
			o.Err, w.Words().WholeOrNothing, plan.Name, plan.Name)
	case o.Applied:
		fmt.Fprintf(errOut, "The write was applied (%s): topic %s exists exactly as planned.\n", o.How, plan.Name)
		return nil
	case o.Err != nil && cluster.ErrorClass(o.Err) != "":
		return o.Err
	case o.Err != nil:
		return fmt.Errorf("topic %s was not created (%s: %w); nothing was written", plan.Name, o.How, o.Err)
	}
	return fmt.Errorf("topic %s was not created (%s: it does not exist); nothing was written", plan.Name, o.How)
}

// waitOnline follows the live model until every partition of assignment
// (a new topic's, or the partitions added to one) has a leader, printing
// each transition (a progress bar on a terminal).
func waitOnline(ctx context.Context, w *clusterwatch.Watch, topic string, assignment map[int][]int, timeout time.Duration, start time.Time, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	phases := map[int]clusterops.Phase{}
	var last clusterops.Progress
	err := followModel(ctx, w, out, func(s *cluster.Snapshot, tty bool) bool {
		last = clusterops.TopicProgress(s, topic, assignment)
		for _, p := range last.Partitions {
			if prev, ok := phases[p.ID]; tty || ok && prev == p.Phase {
				continue
			}
			phases[p.ID] = p.Phase
			switch p.Phase {
			case clusterops.PhaseNonExistent:
			case clusterops.PhaseNew:
				fmt.Fprintf(out, "partition %d: New (replicas %s)\n", p.ID, text.List(p.Replicas))
			default:
				fmt.Fprintf(out, "partition %d: %s (leader %d, isr %s)\n", p.ID, p.Phase, p.Leader, text.List(p.ISR))
			}
		}
		return last.Done()
	}, func() string { return progressBar(last, 30) })
	if errors.Is(err, context.DeadlineExceeded) {
		return stalled(last, timeout)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "All %d partitions online in %s (%d fully in sync).\n", len(last.Partitions),
		time.Since(start).Round(time.Millisecond), last.InSync)
	return nil
}

// followModel hands every new snapshot of the live model to update (with
// whether out is a terminal, where update prints nothing and bar is
// redrawn after each update instead) until update reports done or ctx
// ends (its error is returned). No polling: it waits for the mirror's
// batches.
func followModel(ctx context.Context, w *clusterwatch.Watch, out io.Writer, update func(s *cluster.Snapshot, tty bool) (done bool), bar func() string) error {
	tty := isTerminal(out)
	step := func() bool {
		done := update(w.Model.Snapshot(), tty)
		if tty {
			fmt.Fprintf(out, "\r%s", bar())
		}
		return done
	}
	for done := step(); !done; done = step() {
		if _, _, err := w.Next(ctx); err != nil {
			if tty {
				fmt.Fprintln(out)
			}
			return err
		}
	}
	if tty {
		fmt.Fprintln(out)
	}
	return nil
}

// stalled explains a wait that timed out.
func stalled(pr clusterops.Progress, timeout time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d partitions of %s online after %s", pr.Online, len(pr.Partitions), pr.Topic, timeout)
	if len(pr.Waiting) == 0 {
		b.WriteString(": the controller has not finished")
	}
	for _, why := range pr.Waiting {
		b.WriteString("\n  waiting: " + why)
	}
	return errors.New(b.String())
}

func progressBar(pr clusterops.Progress, width int) string {
	n := len(pr.Partitions)
	done := 0
	if n > 0 {
		done = pr.Online * width / n
	}
	return fmt.Sprintf("[%s%s] %d/%d online, %d in sync", strings.Repeat("#", done), strings.Repeat(".", width-done), pr.Online, n, pr.InSync)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

type describeFlags struct {
	topic           string
	excludeInternal bool
	filter          render.DescribeFilter
	output          string
	sizes           bool
}

func newTopicsDescribeCmd(cf *connFlags) *cobra.Command {
	var f describeFlags
	c := &cobra.Command{
		Use:         "describe",
		Annotations: modes(modesBoth),
		Short:       "Describe topics in kafka-topics.sh --describe format",
		Long: `describe prints kafka-topics.sh --describe's format, in the layout of the Kafka
that would print it:
  - ZooKeeper mode (--zookeeper), read from ZooKeeper: the layout of Kafka 2.8
    and 3.0-3.7 (3.8 added Elr columns, meaningless in ZooKeeper mode), with
    3.x's replication factor and Adding/Removing columns during a
    reassignment; the topic line's Configs are the topic's overrides.
  - KRaft (--bootstrap-server), read over the Kafka protocol: the layout of
    Kafka 3.8+'s kafka-topics.sh --bootstrap-server --describe, each partition
    line ending with its eligible leader replicas (Elr: … LastKnownElr: …, N/A
    where the cluster has them off); the topic line's Configs are every config
    whose value is not Kafka's default (the overrides and what the topic
    inherits from the brokers), as Kafka's tool prints them.

--under-replicated-partitions, --unavailable-partitions and
--under-min-isr-partitions select partitions, as in kafka-topics; ktopo answers
the last from each topic's min.insync.replicas: its override, else the
brokers' (on KRaft as the brokers report it; in ZooKeeper mode their dynamic
configs in ZooKeeper, else 1: a broker's server.properties is not in
ZooKeeper). --output json prints the same as JSON (its configs are the
overrides alone).`,
		Example: `  ktopo topics describe --zookeeper zk1:2181/kafka --topic 'orders|payments'
  ktopo topics describe --under-replicated-partitions
  ktopo topics describe --under-min-isr-partitions --output json
  ktopo topics describe --bootstrap-server kafka1:9092 --topic orders`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(f.output); err != nil {
				return err
			}
			filter, err := cluster.NewTopicFilter(f.topic, f.excludeInternal)
			if err != nil {
				return err
			}
			cf.sizesSide = f.sizes
			return withCluster(c, cf, func(ctx context.Context, ses *session) error {
				s := ses.snap
				if f.topic != "" && len(filter.Topics(s)) == 0 {
					if s.Access(cluster.BrokerTopicsPath)&cluster.NoChildren != 0 {
						return fmt.Errorf("cannot tell whether topic %s exists: ZooKeeper's ACL does not let this session list %s", f.topic, cluster.BrokerTopicsPath)
					}
					return cluster.TopicDoesNotExistError(f.topic)
				}
				var sz *cluster.Sizes
				if f.sizes {
					sz = ses.readSizes(ctx)
				}
				if f.output == "json" {
					return render.WriteDescribeSizesJSON(c.OutOrStdout(), s, filter, f.filter, sz)
				}
				return render.WriteDescribeSizes(c.OutOrStdout(), s, filter, f.filter, sz)
			})
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.topic, "topic", "", "topics to describe: a regular expression, as kafka-topics")
	fl.BoolVar(&f.excludeInternal, "exclude-internal", false, "leave out Kafka's internal topics")
	fl.BoolVar(&f.filter.UnderReplicated, "under-replicated-partitions", false, "only partitions whose ISR is smaller than their replicas")
	fl.BoolVar(&f.filter.Unavailable, "unavailable-partitions", false, "only partitions without a live leader")
	fl.BoolVar(&f.filter.UnderMinISR, "under-min-isr-partitions", false, "only partitions whose ISR is smaller than min.insync.replicas")
	fl.StringVar(&f.output, "output", "text", "output format: text or json")
	fl.BoolVar(&f.sizes, "sizes", false, "add the replicas' sizes as the brokers report them (DescribeLogDirs): Size and SizeOnDisk per topic, Size and ReplicaSizes per partition (exact bytes with --output json)")
	return c
}

func newTopicsListCmd(cf *connFlags) *cobra.Command {
	var topic string
	var excludeInternal bool
	c := &cobra.Command{
		Use:         "list",
		Annotations: modes(modesBoth),
		Short:       "List topics (kafka-topics.sh --list)",
		Long: `list prints the topics' names, one a line, as kafka-topics.sh --list does: in
ZooKeeper mode (--zookeeper) from ZooKeeper, where a topic marked for deletion
reads "<t> - marked for deletion"; on a KRaft cluster (--bootstrap-server) from
the brokers' metadata (a KRaft cluster deletes a topic at once: none is ever
marked).`,
		Example: `  ktopo topics list --zookeeper zk1:2181/kafka
  ktopo topics list --bootstrap-server kafka1:9092 --exclude-internal`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			filter, err := cluster.NewTopicFilter(topic, excludeInternal)
			if err != nil {
				return err
			}
			return withCluster(c, cf, func(_ context.Context, ses *session) error {
				s := ses.snap
				return render.WriteList(c.OutOrStdout(), s, filter)
			})
		},
	}
	c.Flags().StringVar(&topic, "topic", "", "only topics matching this regular expression")
	c.Flags().BoolVar(&excludeInternal, "exclude-internal", false, "leave out Kafka's internal topics")
	return c
}

func newTopicsDeleteCmd(cf *connFlags) *cobra.Command {
	var topic string
	var ifExists, validateOnly, dryRun bool
	c := &cobra.Command{
		Use:         "delete",
		Annotations: modes(modesBoth),
		Short:       "Delete topics (ZooKeeper: mark them for the controller; KRaft: DeleteTopics)",
		Long: `delete runs kafka-topics.sh --delete's checks and deletes every topic that --topic
(a regular expression, as in kafka-topics) matches. --if-exists succeeds when no
topic matches.
  - ZooKeeper mode (--zookeeper): it creates /admin/delete_topics/<t> for each
    ("Topic <t> is marked for deletion."); Kafka's controller then deletes them
    when the brokers have delete.topic.enable=true.
  - KRaft (--bootstrap-server): it sends DeleteTopics, one topic at a time; the
    controller deletes the topic at once ("Deleted topic <t>."), or refuses in
    its words (TOPIC_DELETION_DISABLED when delete.topic.enable=false).

--validate-only (or --dry-run) runs every check and prints the topics that match
and exactly what would be sent (the znodes, or the DeleteTopics requests), and
writes nothing.`,
		Example: `  ktopo topics delete --zookeeper zk1:2181/kafka --topic old-orders
  ktopo topics delete --topic 'tmp-.*' --validate-only
  ktopo topics delete --topic 'tmp-.*' --if-exists
  ktopo topics delete --bootstrap-server kafka1:9092 --topic old-orders`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !c.Flags().Changed("topic") {
				return errors.New(`Missing required argument "[topic]"`)
			}
			dry := validateOnly || dryRun
			if !dry {
				if err := cf.writable("delete topic "+topic, "--validate-only checks it without writing"); err != nil {
					return err
				}
			}
			filter, err := cluster.NewTopicFilter(topic, false)
			if err != nil {
				return err
			}
			return withCluster(c, cf, func(ctx context.Context, ses *session) error {
				s := ses.snap
				w, err := ses.Writer()
				if err != nil {
					return err
				}
				if err := cf.refuseEarly(c, w, "delete topic "+topic); err != nil {
					return err
				}
				names := filter.Names(s)
				if len(names) == 0 {
					if ifExists {
						return nil
					}
					return cluster.TopicDoesNotExistError(topic)
				}
				out := c.OutOrStdout()
				if dry {
					if err := validateDelete(ctx, out, w, s, topic, names); err != nil {
						return err
					}
					return noteWrite(c, w)
				}
				w, err = cf.confirmWrite(c, w, "delete topic "+strings.Join(names, ", "))
				if err != nil {
					return err
				}
				for _, t := range names {
					_, err := w.DeleteTopic(ctx, s, t, clusterops.Apply)
					switch cluster.ErrorClass(err) {
					case "":
						if err != nil {
							return err
						}
						if w.Backend() == cluster.ViaKafka {
							fmt.Fprintf(out, "Deleted topic %s.\n", t)
							continue
						}
						fmt.Fprintln(out, cluster.TopicMarkedForDeletionMessage(t))
						fmt.Fprintln(out, cluster.DeletionNote)
					case cluster.ClassTopicAlreadyMarkedForDeletion:
						fmt.Fprintln(out, cluster.TopicAlreadyMarkedMessage(t))
					default:
						return err
					}
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&topic, "topic", "", "topics to delete: a regular expression, as kafka-topics")
	c.Flags().BoolVar(&ifExists, "if-exists", false, "succeed without doing anything if no topic matches")
	c.Flags().BoolVar(&validateOnly, "validate-only", false, "run every check and print the topics and the znodes (on KRaft, the requests) that would be written, write nothing")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "the same as --validate-only")
	return c
}

// validateDelete is topics delete --validate-only: for each topic, what
// the run would write (one multi or request per topic, as the run writes
// them), or why it would not.
func validateDelete(ctx context.Context, out io.Writer, w clusterops.Writer, s *cluster.Snapshot, pattern string, names []string) error {
	fmt.Fprintf(out, "%s matching %q: %s\n", text.Plural(len(names), "1 topic", strconv.Itoa(len(names))+" topics"), pattern, strings.Join(names, ", "))
	for _, t := range names {
		writes, err := w.DeleteTopic(ctx, s, t, clusterops.Validate)
		switch cluster.ErrorClass(err) {
		case "":
			if err != nil {
				return err
			}
			if w.Backend() == cluster.ViaKafka { // as each kind's kafka-topics says it
				fmt.Fprintf(out, "Would delete topic %s, %s:\n", t, w.Words().HowSent(len(writes.Steps)))
			} else {
				fmt.Fprintf(out, "Would mark topic %s for deletion, %s:\n", t, w.Words().HowSent(len(writes.Steps)))
			}
			for _, line := range writes.Lines() {
				fmt.Fprintln(out, "  "+line)
			}
		case cluster.ClassTopicAlreadyMarkedForDeletion:
			fmt.Fprintln(out, cluster.TopicAlreadyMarkedMessage(t))
		default:
			return err
		}
	}
	fmt.Fprintln(out, "Validation passed; nothing was written.")
	return nil
}

func newBrokersCmd(cf *connFlags) *cobra.Command {
	var output string
	var sizes bool
	c := &cobra.Command{
		Use:         "brokers",
		Annotations: modes(modesBoth),
		Short:       "List brokers: id, rack, endpoints, controller, their ZooKeeper registration or KRaft state",
		Long: `brokers lists the registered brokers: id, rack, endpoints, whether it is the
controller (and its epoch), and the replicas and leaders it holds. A broker that
holds replicas but is not registered is listed as offline. --output json prints
the same as JSON. --sizes adds what each broker's log directories hold (BYTES)
and their volumes' used and usable bytes (Kafka 3.3+), as each broker reports
them (DescribeLogDirs, asked of every broker; in ZooKeeper mode at the addresses
the brokers registered, on --sizes-listener, with --command-config's security).
  - ZooKeeper mode (--zookeeper): each broker's registration znode, with its
    JSON version and registration time (VERSION, REGISTERED).
  - KRaft (--bootstrap-server): every broker the controller has registered,
    fenced ones too (Kafka 4.0+), with a STATE column (online, fenced,
    cordoned, offline) instead of the registration's; the controller is the
    metadata quorum's leader, named on a line under the table ("Controller:
    3000, the quorum's leader (epoch 7), a dedicated controller" — or "a
    broker too" when it is one of the brokers).`,
		Example: `  ktopo brokers --zookeeper zk1:2181/kafka
  ktopo brokers --bootstrap-server kafka1:9092 --output json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			cf.sizesSide = sizes
			return withCluster(c, cf, func(ctx context.Context, ses *session) error {
				s := ses.snap
				var sz *cluster.Sizes
				if sizes {
					sz = ses.readSizes(ctx)
				}
				if output == "json" {
					return render.WriteBrokersSizesJSON(c.OutOrStdout(), s, sz)
				}
				return render.WriteBrokersSizes(c.OutOrStdout(), s, sz)
			})
		},
	}
	c.Flags().StringVar(&output, "output", "text", "output format: text or json")
	c.AddCommand(newBrokersUnregisterCmd(cf))
	c.Flags().BoolVar(&sizes, "sizes", false, "add what each broker's log directories hold and their volumes' used and usable bytes, as the broker reports them (DescribeLogDirs; exact bytes with --output json; in ZooKeeper mode through the brokers' registered listener: --sizes-listener, --command-config)")
	return c
}
