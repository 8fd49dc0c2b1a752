package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/cmd/render"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

type electionFlags struct {
	electionType string
	all          bool
	topic        string
	partition    int
	partitionArg *javaInt
	jsonFile     string
	dryRun       bool
	noWait       bool
	timeout      time.Duration
}

// uncleanRefusal explains why ktopo does not run unclean elections
// through ZooKeeper.
const uncleanRefusal = zkops.UncleanThroughZooKeeper

func newLeaderElectionCmd(cf *connFlags) *cobra.Command {
	var f electionFlags
	c := &cobra.Command{
		Use:         "leader-election",
		Annotations: modes(modesBoth),
		Short:       "Move leaders back to their preferred replicas, on ZooKeeper or KRaft (kafka-leader-election.sh flags)",
		Long: `leader-election runs a preferred leader election as kafka-leader-election.sh
--election-type preferred asks for one: it shows which leaders will move (from ->
to) and which cannot and why, decided from the live cluster with the controller's
own rule (the first replica leads if it is live and in the ISR), asks the
controller for the election, follows it, and reports each partition in Kafka's
words.
  - ZooKeeper mode (--zookeeper): carried out the way 2.8's
    kafka-preferred-replica-election.sh --zookeeper did: it writes
    /admin/preferred_replica_election in one create and waits until the
    controller has deleted it. The znode names only the partitions the
    controller will try, so it stays small on large clusters. --election-type
    unclean is refused there: Kafka runs unclean elections through its Admin
    API, or by itself for leaderless partitions once
    unclean.leader.election.enable is on, never from this znode.
  - KRaft (--bootstrap-server): the election is Kafka's ElectLeaders request,
    preferred or unclean, with the same preview; the controller answers for
    each partition at once, and ktopo follows the leaders until the brokers
    show them. An unclean election elects, for each partition without a live
    leader, the first live replica of its ISR, else of its eligible leader
    replicas, else any live replica (which then loses the records it lacks):
    the preview says which.

Which partitions: --all-topic-partitions, --topic T --partition P, --topic T
alone (every partition of T; Kafka's tool wants --partition too), or
--path-to-json-file F in Kafka's format,
{"partitions":[{"topic":"orders","partition":1}]} (the znode's JSON, with its
"version", is accepted too). A named partition that does not exist stops the
whole election with nothing written (Kafka's tools elect the others).

A partition cannot move when its preferred replica is offline or out of the
ISR, when its topic is being deleted, or when the controller has not given it
a leader yet. The exit status is 1 when a partition could not be elected, as
with Kafka's tool.

--dry-run prints the preview and exactly what would be sent (the znode, whose
JSON is a --path-to-json-file for Kafka's own tools too; on KRaft the
ElectLeaders request) without writing. --no-wait returns once it is written;
--timeout bounds the wait (in ZooKeeper mode, without an active controller the
znode waits for the next one, and ktopo says so).`,
		Example: `  ktopo leader-election --zookeeper zk1:2181/kafka --election-type preferred --all-topic-partitions
  ktopo leader-election --election-type preferred --topic orders --partition 3
  ktopo leader-election --election-type preferred --path-to-json-file elect.json --dry-run
  ktopo leader-election --bootstrap-server kafka1:9092 --election-type unclean --topic orders --partition 3`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runLeaderElection(c, cf, f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.electionType, "election-type", "", `type of election: "preferred" (the first replica leads again); "unclean" (KRaft: a leader for partitions without one, even out of sync)`)
	fl.BoolVar(&f.all, "all-topic-partitions", false, "every partition of every topic")
	fl.StringVar(&f.topic, "topic", "", "the topic (with --partition: one partition; without: all of its partitions)")
	f.partitionArg = javaIntVar(fl, &f.partition, "partition", 0, "the partition of --topic")
	fl.StringVar(&f.jsonFile, "path-to-json-file", "", `the partitions, as {"partitions":[{"topic":"foo","partition":1},…]}`)
	fl.BoolVar(&f.dryRun, "dry-run", false, "show what the election would do and write, write nothing")
	fl.BoolVar(&f.noWait, "no-wait", false, "return once the election is asked for (the znode written, or ElectLeaders answered), without waiting for the leaders")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Second, "how long to wait for the controller to carry out the election")
	return c
}

// electionRequest checks the flags as kafka-leader-election.sh does, in its
// order and with its messages (jopt-simple names options without dashes),
// and reads the JSON file.
func electionRequest(c *cobra.Command, f electionFlags, kraft bool) (clusterops.ElectionRequest, error) {
	fl := c.Flags()
	var req clusterops.ElectionRequest
	if !fl.Changed("election-type") {
		return req, errors.New("Missing required option(s): election-type")
	}
	n := 0
	for _, name := range []string{"topic", "all-topic-partitions", "path-to-json-file"} {
		if fl.Changed(name) {
			n++
		}
	}
	if n != 1 {
		return req, errors.New("One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file")
	}
	if fl.Changed("partition") && !fl.Changed("topic") {
		return req, errors.New("Option partition is only allowed if topic is used")
	}
	// jopt-simple's EnumConverter: case-insensitive.
	switch strings.ToLower(f.electionType) {
	case "preferred":
	case "unclean":
		if !kraft {
			return req, errors.New(uncleanRefusal)
		}
		req.Unclean = true
	default:
		return req, fmt.Errorf("Cannot parse argument '%s' of option election-type", f.electionType)
	}
	switch {
	case f.all:
		req.All = true
	case fl.Changed("path-to-json-file"):
		data, err := os.ReadFile(f.jsonFile)
		if err != nil {
			return req, fmt.Errorf("Unable to read file %s: %w", f.jsonFile, unwrapPath(err))
		}
		if req.Partitions, err = cluster.ParseElectionFile(data); err != nil {
			return req, err
		}
	case fl.Changed("partition"):
		if err := checkJavaInts(f.partitionArg); err != nil {
			return req, err
		}
		req.Partitions = []cluster.TopicPartition{{Topic: f.topic, Partition: f.partition}}
	default:
		req.Topic = f.topic
		if req.Topic == "" {
			return req, cluster.TopicDoesNotExistError("")
		}
	}
	return req, nil
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func runLeaderElection(c *cobra.Command, cf *connFlags, f electionFlags) error {
	t, err := cf.target()
	if err != nil {
		return err
	}
	req, err := electionRequest(c, f, t.kraft)
	if err != nil {
		return err
	}
	what := "start a preferred leader election"
	if req.Unclean {
		what = "start an unclean leader election"
	}
	if !f.dryRun {
		if err := cf.writable(what, "--dry-run shows it without writing"); err != nil {
			return err
		}
	}
	ctx, out := c.Context(), c.OutOrStdout()
	ws, err := cf.openLive(c)
	if err != nil {
		return err
	}
	defer ws.close()
	if err := cf.refuseEarly(c, ws.writer, what); err != nil {
		return err
	}
	plan, err := clusterops.PlanElection(ws.snap, req)
	if err != nil {
		return err
	}
	if err := render.WriteElectionPreview(out, plan); err != nil {
		return err
	}
	if len(plan.Write) == 0 {
		fmt.Fprintln(out, "\nNothing to elect.")
		return render.WriteElectionResult(out, plan.Result(func(cluster.TopicPartition) int { return cluster.NoLeader }), plan.All, plan.Unclean)
	}
	if f.dryRun {
		writes, _, err := ws.writer.Elect(ctx, plan, clusterops.Validate)
		if err != nil {
			return err
		}
		if ws.kraft() {
			fmt.Fprintf(out, "\nDry run: would send, %s:\n", clusterops.WordsFor(writes).HowSent(len(writes.Steps)))
		} else {
			fmt.Fprintf(out, "\nDry run: would write, in one ZooKeeper %s:\n", text.Plural(len(writes.Lines()), "create", "multi"))
		}
		for _, line := range writes.Lines() {
			fmt.Fprintln(out, "  "+line)
		}
		return noteWrite(c, ws.writer)
	}
	w, err := cf.confirmWrite(c, ws.writer, what)
	if err != nil {
		return err
	}
	start := time.Now()
	_, result, err := w.Elect(ctx, plan, clusterops.Apply)
	if err != nil {
		return err
	}
	if result != nil {
		// Kafka's controller has answered for each partition: follow the
		// leaders it elected until the brokers show them.
		if !f.noWait {
			ictx, stop := interruptible(ctx)
			err := waitLeaders(ictx, ws.watch, plan, result.Elected, f.timeout, out)
			stop()
			if err != nil {
				return interrupted(err, c.ErrOrStderr(), "the election is done; the brokers show its leaders within a poll (ktopo topics describe shows them).")
			}
		}
		return render.WriteElectionResult(out, *result, plan.All, plan.Unclean)
	}
	fmt.Fprintf(out, "\nCreated preferred replica election path with %s\n", cluster.JoinPartitions(plan.Write, ","))
	if f.noWait {
		fmt.Fprintln(out, "Not waiting: the controller deletes the znode once it has run the election.")
		return nil
	}
	if plan.Controller < 0 {
		fmt.Fprintln(out, "No active controller: the election runs when one is elected.")
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	leaders, err := waitElection(ctx, ws.watch, ws.zk, plan, f.timeout, out)
	if err != nil {
		return interrupted(err, c.ErrOrStderr(), "the election is requested; the controller carries it out without ktopo and then deletes "+
			cluster.PreferredReplicaElectionPath+" (ktopo topics describe shows the leaders).")
	}
	fmt.Fprintf(out, "The controller ran the election in %s.\n", time.Since(start).Round(time.Millisecond))
	return render.WriteElectionResult(out, plan.Result(func(tp cluster.TopicPartition) int { return leaders[tp] }), plan.All, plan.Unclean)
}

// waitLeaders follows the live model until every partition of elected
// shows the leader the plan gave it (a KRaft controller's election is
// done when it answers; the brokers' metadata shows it within a poll),
// printing each leader move, within timeout.
func waitLeaders(ctx context.Context, w *clusterwatch.Watch, plan *clusterops.ElectionPlan, elected []cluster.TopicPartition, timeout time.Duration, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	target, leaders := map[cluster.TopicPartition]int{}, map[cluster.TopicPartition]int{}
	for _, ep := range plan.Partitions {
		if slices.Contains(elected, ep.TopicPartition) {
			target[ep.TopicPartition], leaders[ep.TopicPartition] = ep.Target, ep.Leader
		}
	}
	err := followModel(ctx, w, io.Discard, func(s *cluster.Snapshot, _ bool) bool {
		done := true
		for _, tp := range elected {
			p := partitionOf(s, tp)
			if p == nil || !p.HasLeader() {
				done = false
				continue
			}
			if p.Leader != leaders[tp] {
				fmt.Fprintf(out, "%s: leader %s -> %d (leader epoch %d)\n", tp, text.Broker(leaders[tp]), p.Leader, p.LeaderEpoch)
				leaders[tp] = p.Leader
			}
			if t := target[tp]; t >= 0 && p.Leader != t {
				done = false
			}
		}
		return done
	}, func() string { return "" })
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the brokers did not show every elected leader within %s; the controller elected them (ktopo topics describe shows the leaders)", timeout)
	}
	return err
}

// waitElection follows the live model until the controller has deleted
// the election znode, printing each leader move of the election's
// partitions as it happens, and returns their leaders as of the deletion.
// The deletion is awaited with a ZooKeeper watch of its own: a controller
// quicker than the mirror deletes the znode before the mirror reads it.
func waitElection(ctx context.Context, w *clusterwatch.Watch, conn *zkwatch.Conn, plan *clusterops.ElectionPlan,
	timeout time.Duration, out io.Writer) (map[cluster.TopicPartition]int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	follow, stop := context.WithCancel(ctx)
	defer stop()
	gone := make(chan error, 1)
	go func() {
		err := awaitDeletion(ctx, conn, plan.Path)
		gone <- err
		stop()
	}()
	leaders := map[cluster.TopicPartition]int{}
	for _, ep := range plan.Partitions {
		if ep.Written() {
			leaders[ep.TopicPartition] = ep.Leader
		}
	}
	moved := func(tp cluster.TopicPartition, leader, epoch int) {
		fmt.Fprintf(out, "%s: leader %s -> %d (leader epoch %d)\n", tp, text.Broker(leaders[tp]), leader, epoch)
		leaders[tp] = leader
	}
	report := func() {
		s := w.Model.Snapshot()
		for _, tp := range plan.Write {
			p := partitionOf(s, tp)
			if p == nil || !p.HasLeader() || p.Leader == leaders[tp] {
				continue
			}
			moved(tp, p.Leader, p.LeaderEpoch)
		}
	}
	for {
		_, _, err := w.Next(follow)
		switch {
		case err == nil:
			report()
			continue
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, electionStalled(plan, timeout)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case follow.Err() == nil:
			return nil, err // the mirror failed
		}
		break // the znode is gone (or watching it failed)
	}
	if err := <-gone; err != nil {
		return nil, err
	}
	report()
	// The mirror applies a deletion at once but re-reads a changed node, so
	// a state the controller wrote just before deleting the znode can land
	// in a later batch: a partition not yet shown led by its preferred
	// replica is read once more.
	for _, ep := range plan.Partitions {
		if !ep.Written() || leaders[ep.TopicPartition] == ep.Preferred {
			continue
		}
		data, _, err := conn.Get(cluster.PartitionStatePath(ep.Topic, ep.Partition))
		if err != nil {
			if errors.Is(err, zk.ErrNoNode) {
				continue
			}
			return nil, err
		}
		if st, err := cluster.DecodePartitionState(data); err == nil && st.Leader != leaders[ep.TopicPartition] {
			moved(ep.TopicPartition, st.Leader, st.LeaderEpoch)
		}
	}
	return leaders, nil
}

// awaitDeletion returns once path does not exist, watching it (a session
// expiry or a rewrite fires the watch: it looks again).
func awaitDeletion(ctx context.Context, conn *zkwatch.Conn, path string) error {
	for {
		ok, _, ch, err := conn.ExistsW(path)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func partitionOf(s *cluster.Snapshot, tp cluster.TopicPartition) *cluster.Partition {
	t := s.Topic(tp.Topic)
	if t == nil {
		return nil
	}
	return t.Partition(tp.Partition)
}

// electionStalled explains an election the controller did not finish in time.
func electionStalled(plan *clusterops.ElectionPlan, timeout time.Duration) error {
	why := "the controller has not deleted it"
	if plan.Controller < 0 {
		why = "no controller was active"
	}
	return fmt.Errorf("the election was not carried out within %s: %s is still there (%s); the controller runs it when it gets to it",
		timeout, plan.Path, why)
}
