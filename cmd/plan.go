package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/cmd/render"
)

type planFlags struct {
	brokers        string
	ints           []*javaInt
	partitions     int
	rf             int
	startIndex     int
	replicaShift   int
	startPartition int
	disableRack    bool
	output         string
	seed           int64
}

func newPlanCmd(cf *connFlags) *cobra.Command {
	var f planFlags
	c := &cobra.Command{
		Use:         "plan",
		Annotations: modes(modesBoth),
		Short:       "Show the replica assignment Kafka would make, without touching any cluster",
		Long: `plan computes the replica assignment of Kafka's AdminUtils.assignReplicasToBrokers
(rack-aware when every broker has a rack) and prints it as a matrix of
partitions by brokers, brokers grouped under their racks.

--brokers lists brokers as ID or ID:RACK, comma-separated, in the order Kafka
would receive them (the order matters to the rack-unaware algorithm). With
--zookeeper instead (a ZooKeeper-mode cluster), the cluster's registered brokers
are used as kafka-topics uses them (sorted by id; racks required on all or none unless
--disable-rack-aware).
--disable-rack-aware ignores the racks (the matrix still shows them, so you can
see what rack-unaware placement does to the rack spread); with racks on only
some brokers, Kafka's error is printed.

--start-index fixes Kafka's start index and replica shift (default -1: random,
drawn independently, as Kafka does); the output says which were used and how
to reproduce the plan (--replica-shift pins the shift when the two draws
differ). --start-partition numbers partitions from P (Kafka's
startPartitionId, used when adding partitions).

On a KRaft cluster (--bootstrap-server) the placement is the KRaft
controller's (its StripedReplicaPlacer, fenced and cordoned brokers left
out), drawn from a seed: --seed fixes it (with --brokers, --seed selects that
placer too).

--output json prints one object: the assignment (partition id -> replicas,
leader first), the start index and replica shift, the broker order the
algorithm used, per-broker and per-rack counts, the racks each partition spans
and the warnings. Errors are Kafka's messages, on standard error, with exit
status 1.`,
		Example: `  ktopo plan --brokers 0:rackA,1:rackB,2:rackA,3:rackB --partitions 12 --replication-factor 2
  ktopo plan --brokers 1,2,3 --partitions 6 --replication-factor 3 --start-index 0 --output json
  ktopo plan --zookeeper zk1:2181/kafka --partitions 24 --replication-factor 3
  ktopo plan --bootstrap-server kafka1:9092 --partitions 24 --replication-factor 3 --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runPlan(c, cf, f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.brokers, "brokers", "", "brokers as ID or ID:RACK, comma-separated, in order")
	f.ints = []*javaInt{
		javaIntVar(fl, &f.partitions, "partitions", 0, "number of partitions"),
		javaIntVar(fl, &f.rf, "replication-factor", 0, "replication factor"),
	}
	fl.IntVar(&f.startIndex, "start-index", -1, "Kafka's fixedStartIndex (-1: random)")
	fl.IntVar(&f.replicaShift, "replica-shift", -1, "initial replica shift, to reproduce a random plan (-1: same as --start-index)")
	fl.IntVar(&f.startPartition, "start-partition", -1, "first partition id, Kafka's startPartitionId (-1: 0)")
	fl.BoolVar(&f.disableRack, "disable-rack-aware", false, "ignore racks (Kafka's RackAwareMode.Disabled)")
	fl.StringVar(&f.output, "output", "text", "output format: text or json")
	fl.Int64Var(&f.seed, "seed", -1, "the KRaft controller's placement (StripedReplicaPlacer) from this seed (-1: random on a KRaft cluster)")
	return c
}

func runPlan(c *cobra.Command, cf *connFlags, f planFlags) error {
	fl := c.Flags()
	if err := checkJavaInts(f.ints...); err != nil {
		return err
	}
	if err := checkOutput(f.output); err != nil {
		return err
	}
	t, err := cf.target()
	if err != nil {
		return err
	}
	fromCluster := t.connect != "" && !fl.Changed("brokers")
	if !fl.Changed("brokers") && !fromCluster {
		return fmt.Errorf(`Missing required argument "[brokers]" (or give --zookeeper or --bootstrap-server to use a cluster's brokers)`)
	}
	// A flag given as 0 or negative is a value for Kafka to judge, not a missing flag.
	for _, name := range []string{"partitions", "replication-factor"} {
		if !fl.Changed(name) {
			return fmt.Errorf("Missing required argument \"[%s]\"", name)
		}
	}
	if f.replicaShift >= 0 && f.startIndex < 0 {
		return fmt.Errorf("--replica-shift needs --start-index")
	}
	if fromCluster && t.kraft || fl.Changed("seed") {
		return runStripedPlan(c, cf, f, fromCluster)
	}
	var shown, given []assign.Broker
	if fromCluster {
		// AdminZkClient's path: registered brokers, sorted, rack mode applied.
		mode := cluster.RackAwareEnforced
		if f.disableRack {
			mode = cluster.RackAwareDisabled
		}
		err := withCluster(c, cf, func(_ context.Context, ses *session) error {
			s := ses.snap
			var err error
			shown = s.RegisteredBrokers()
			given, err = s.BrokerMetadatas(mode, nil)
			return err
		})
		if err != nil {
			return err
		}
	} else {
		var err error
		if shown, err = parseBrokerList(f.brokers); err != nil {
			return err
		}
		given = shown
		if f.disableRack {
			// Disabled only drops the racks; AdminUtils keeps the order given.
			given = make([]assign.Broker, len(shown))
			for i, b := range shown {
				given[i] = assign.B(b.ID)
			}
		}
	}
	if err := clusterops.CheckPartitionCount(f.partitions); err != nil {
		return err
	}
	opts := assign.Options{StartIndex: f.startIndex, ReplicaShift: f.replicaShift, StartPartition: f.startPartition}
	res, err := assign.Assign(given, f.partitions, f.rf, opts)
	if err != nil {
		return err
	}
	plan := render.NewPlan(shown, f.partitions, f.rf, f.disableRack, res)
	out := c.OutOrStdout()
	if f.output == "json" {
		return plan.WriteJSON(out)
	}
	return plan.WriteText(out, textStyle(out))
}

// runStripedPlan is plan with the KRaft controller's placer: on the
// cluster's usable brokers (fromCluster) or on --brokers (all unfenced).
func runStripedPlan(c *cobra.Command, cf *connFlags, f planFlags, fromCluster bool) error {
	fl := c.Flags()
	for _, n := range []string{"start-index", "replica-shift"} {
		if fl.Changed(n) {
			return fmt.Errorf("--%s fixes AdminUtils' placement (ZooKeeper mode); the KRaft controller's is fixed with --seed", n)
		}
	}
	mode := cluster.RackAwareEnforced
	if f.disableRack {
		mode = cluster.RackAwareDisabled
	}
	seed := f.seed
	if seed < 0 {
		seed = clusterops.DrawSeed(nil)
	}
	start := max(f.startPartition, 0)
	var shown []assign.Broker
	var usable []assign.StripedBroker
	opts := assign.StripedOptions{}
	if fromCluster {
		err := withCluster(c, cf, func(_ context.Context, ses *session) error {
			s := ses.snap
			usable = s.UsableBrokers(mode)
			opts.Cordoning = s.KRaft().CordonSupported()
			for _, b := range usable {
				if !b.Fenced {
					shown = append(shown, assign.Broker{ID: b.ID, Rack: b.Rack, HasRack: b.HasRack})
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	} else {
		var err error
		if shown, err = parseBrokerList(f.brokers); err != nil {
			return err
		}
		for _, b := range shown {
			sb := assign.StripedBroker{ID: b.ID, Rack: b.Rack, HasRack: b.HasRack}
			if f.disableRack {
				sb.Rack, sb.HasRack = "", false
			}
			usable = append(usable, sb)
		}
	}
	if err := clusterops.CheckKRaftPartitionCount(f.partitions); err != nil {
		return err
	}
	res, err := assign.StripedResult(usable, start, f.partitions, f.rf, seed, opts)
	if err != nil {
		return cluster.AsKafkaError(err)
	}
	plan := render.NewPlan(shown, f.partitions, f.rf, f.disableRack, res)
	out := c.OutOrStdout()
	if f.output == "json" {
		return plan.WriteJSON(out)
	}
	return plan.WriteText(out, textStyle(out))
}

// parseBrokerList parses "0:rackA,1:rackB,2": ids in order, racks optional.
// An empty string is an empty list (Kafka then reports the replication
// factor as larger than the available brokers).
func parseBrokerList(s string) ([]assign.Broker, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []assign.Broker
	seen := map[int]bool{}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		idText, rack, hasRack := strings.Cut(entry, ":")
		idText, rack = strings.TrimSpace(idText), strings.TrimSpace(rack)
		id, err := strconv.ParseInt(idText, 10, 32)
		if err != nil || entry == "" {
			return nil, fmt.Errorf("invalid --brokers entry %q: want ID or ID:RACK with an integer ID", entry)
		}
		if hasRack && rack == "" {
			return nil, fmt.Errorf("invalid --brokers entry %q: empty rack name", entry)
		}
		if seen[int(id)] {
			return nil, fmt.Errorf("invalid --brokers: broker %d is listed twice", id)
		}
		seen[int(id)] = true
		b := assign.B(int(id))
		if hasRack {
			b = assign.BR(int(id), rack)
		}
		out = append(out, b)
	}
	return out, nil
}

// textStyle fits text output to the terminal; plain 80 columns otherwise.
func textStyle(w io.Writer) render.Style {
	s := render.Style{Width: 80}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		if cols, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && cols > 20 {
			s.Width = cols
		}
		return s
	}
	if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 20 {
		s.Width = cols
	}
	s.Color = os.Getenv("NO_COLOR") == ""
	return s
}
