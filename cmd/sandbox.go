package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/zkserver"
)

func newSandboxCmd(cf *connFlags) *cobra.Command {
	var (
		empty       bool
		listen      string
		brokers     int
		racks       int
		demoTopics  bool
		pace        time.Duration
		dataDir     string
		seed        uint64
		imbalance   time.Duration
		kraft       bool
		controllers int
		// dynamicQuorum and observerControllers are --kraft's quorum.
		dynamicQuorum       bool
		observerControllers int
	)
	cmd := &cobra.Command{
		Use:         "sandbox",
		Annotations: modes(modesBoth),
		Short:       "Run a simulated Kafka cluster: ZooKeeper-mode brokers and controller (on an embedded ZooKeeper or --zookeeper), or a KRaft cluster (--kraft)",
		Long: `sandbox runs a simulated Kafka cluster for other clients: in ZooKeeper mode by
default, in KRaft mode with --kraft. No Kafka, no Java.

In ZooKeeper mode it runs simulated Kafka brokers (ids 1..N, racks rack-a, rack-b,
…) and a ZooKeeper-mode controller that make exactly the ZooKeeper writes Kafka
3.x makes: broker registrations, controller election, partition state as topics
are created, brokers fail and come back, preferred elections, topic deletions,
added partitions, config changes and partition reassignments (requested in
/admin/reassign_partitions, as "ktopo reassign" and Kafka's --zookeeper tool
request them).

By default it serves ktopo's embedded ZooKeeper on --listen and prints
"listening on HOST:PORT". With --zookeeper it runs on any ZooKeeper instead (the
KTOPO_ZOOKEEPER environment variable is never used here, so that simulated brokers
are never started on a production ensemble by accident; use a chroot such as
zk:2181/sandbox). With --empty it only serves a bare ZooKeeper (a pristine tree,
no brokers, no writes of its own).

With --data-dir the embedded ZooKeeper keeps its tree in DIR (a transaction log
synced before each write is acknowledged, and snapshots) and a later run on the
same DIR continues from it; sessions and ephemeral znodes end with the process.
Without it nothing is written to disk.

Control commands are read from standard input, one per line (type "help"): kill
and restart brokers (several at once, as a rack), a preferred election, move the
controller, status, pace, and migrate: the next step of a simulated ZooKeeper to
KRaft migration, as Kafka 3.9.2 writes it (KRaft controllers ready, their takeover
and dual write, the brokers rolled to KRaft, finalized; "migrate freeze" stops the
controller's sync into ZooKeeper) for the migration radar (docs/migration.md). The
end of input only stops reading. It runs until SIGINT or SIGTERM, then stops the brokers: their sessions close, their ephemeral
znodes go, nothing else is written. The brokers' and controller's log lines
(Kafka's wording) go to ktopo's log file.

As in Kafka, the controller moves leaders back to their preferred brokers every
--leader-imbalance-check-interval when a broker leads fewer than 90 % of the
partitions it prefers. --seed draws the cluster id and the demo topics'
placements and ids from a seed: the same cluster on every run.

Partitions have a simulated size (the demo topics': orders 256 MiB a partition,
clicks 512 MiB, payments 64 MiB, audit-log 32 MiB, __consumer_offsets 4 MiB, each
partition skewed by up to half; 64 MiB for other topics) that grows at a
simulated produce rate (clicks 8 MiB/s, orders 2 MiB/s, payments 256 KiB/s,
__consumer_offsets 64 KiB/s, audit-log 16 KiB/s; other topics do not grow). A
replica that a reassignment adds copies it, and what is produced meanwhile,
before it can join the ISR, at 128 MiB/s per receiving broker shared by its
copies, and within Kafka's replication throttles when they name it, so a
throttled reassignment is visibly slower; "status" shows the copies and each
broker's bytes and free disk (one 100 GiB log directory a broker).

With --kraft it runs a simulated Kafka 4.4 cluster in KRaft mode instead:
--brokers brokers (ids 1..N) and --controllers controllers (ids 3000…, the
metadata quorum), each on its own loopback listener, served over the Kafka
protocol so that Kafka's own tools and clients (kafka-topics, the console
producer and consumer, kafka-metadata-quorum with --bootstrap-controller) and
ktopo's commands with --bootstrap-server work on it as on a real one. It prints
the brokers' listeners as "--bootstrap-server HOST:PORT,…" and the controllers'
as "--bootstrap-controller HOST:PORT,…", then reads control commands (type
"help"): kill and restart a broker or a controller (a killed broker is fenced
when its heartbeats have been missing for broker.session.timeout.ms: 9 s, or
--session-timeout when given; a killed controller leaves the quorum, which
elects another leader when it led), move-controller (the quorum's leader
resigns) and status (the quorum's leader and epoch, the brokers fenced or not,
the topics' partitions online), pace DURATION (a delay before each write the
controller applies, to watch each change land; --pace sets it at start) and
pause/resume (the simulated clock stops: killed brokers are not fenced, copies
and sizes stand still). --listen HOST:PORT puts the brokers on PORT, PORT+1, …
and the controllers on the ports after them (default: free ports).
--zookeeper, --data-dir and --empty are ZooKeeper mode's and refused with
--kraft.`,
		Example: `  ktopo sandbox --demo-topics
  ktopo sandbox --brokers 3 --racks 3 --demo-topics --seed 1
  ktopo sandbox --demo-topics --listen 127.0.0.1:2181 --pace 300ms
  ktopo sandbox --zookeeper zk:2181/sandbox --brokers 3
  ktopo sandbox --empty --data-dir /tmp/ktopo-zk
  ktopo sandbox --kraft --demo-topics --seed 1
  ktopo topics list --bootstrap-server 127.0.0.1:PORT   # a listener "ktopo sandbox --kraft" printed`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			// --zookeeper is the root's persistent flag; the environment
			// variable that stands for it elsewhere is deliberately ignored.
			external := cf.zookeeper
			if kraft {
				return runKRaftSandbox(c, cf, kraftSandboxFlags{brokers: brokers, racks: racks, controllers: controllers, pace: pace,
					demoTopics: demoTopics, seed: seed, imbalance: imbalance, listen: listen,
					dynamicQuorum: dynamicQuorum, observerControllers: observerControllers})
			}
			switch {
			case cf.contextName != "":
				// A context names a real cluster: the sandbox never runs there.
				return errors.New("the sandbox only runs on an address given on its own command line (--zookeeper or --listen), not on a --context")
			case empty && external != "":
				return errors.New("--empty serves the embedded ZooKeeper; it cannot be combined with --zookeeper")
			case external != "" && c.Flags().Changed("listen"):
				return errors.New("--listen is for the embedded ZooKeeper; it cannot be combined with --zookeeper")
			case external != "" && dataDir != "":
				return errors.New("--data-dir is for the embedded ZooKeeper; it cannot be combined with --zookeeper")
			case !empty && cf.readOnly:
				return readOnlyRefusal("run the sandbox: its brokers and controller write to ZooKeeper", "--empty serves ZooKeeper alone")
			case !empty && cf.digest != "":
				return errors.New("the sandbox does not support --zk-digest")
			case !empty && !cf.tls.Empty():
				return errors.New("the sandbox does not support TLS to ZooKeeper (--zk-tls-*)")
			case c.Flags().Changed("controllers"):
				return errors.New("--controllers is for the KRaft sandbox (--kraft): the ZooKeeper-mode sandbox's controller is one of its brokers")
			case dynamicQuorum || observerControllers != 0:
				return errors.New("--dynamic-quorum and --observer-controllers are for the KRaft sandbox (--kraft): a ZooKeeper-mode cluster has no metadata quorum")
			case !empty && brokers < 1:
				return fmt.Errorf("--brokers must be at least 1, not %d", brokers)
			case imbalance < 0:
				return fmt.Errorf("--leader-imbalance-check-interval must not be negative, not %s", imbalance)
			}
			// Register for signals before announcing the address, so a
			// caller that signals as soon as it reads it is handled.
			ctx, stop := signal.NotifyContext(contextOf(c), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			out := &lockedWriter{w: c.OutOrStdout()}
			connect := external
			var srv *zkserver.Server
			var srvDone <-chan struct{} // closed if the embedded server stops on its own (data directory failure)
			if connect == "" {
				var err error
				srv, err = zkserver.Start(zkserver.Config{Addr: listen, DataDir: dataDir})
				if err != nil {
					return err
				}
				defer srv.Close()
				fmt.Fprintf(out, "listening on %s\n", srv.Addr())
				srvDone = srv.Done()
				if empty {
					select {
					case <-ctx.Done():
					case <-srvDone:
					}
					return srv.Err()
				}
				connect = srv.Addr()
			}
			logger := slog.New(slog.NewTextHandler(openLog(), &slog.HandlerOptions{Level: slog.LevelInfo}))
			cfg := sandbox.Config{
				Connect: connect, Brokers: brokers, Racks: racks, DemoTopics: demoTopics, Pace: pace,
				LeaderImbalanceCheckInterval: imbalance, NoAutoLeaderRebalance: imbalance == 0,
				SessionTimeout: cf.sessionTimeout, Logger: logger,
			}
			if c.Flags().Changed("seed") {
				cfg.Rand = sandboxFlags{seed: seed, seeded: true}.rand(sandboxStream)
			}
			sb, err := sandbox.Start(ctx, cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "sandbox: %d brokers (%s) on %s; type \"help\" for commands\n", brokers, rackText(racks), connect)
			go func() {
				if err := sandbox.Control(sb, c.InOrStdin(), out); err != nil {
					fmt.Fprintf(out, "error: reading commands: %v\n", err)
				}
			}()
			select {
			case <-ctx.Done():
			case <-srvDone:
			}
			if err := sb.Close(); err != nil {
				return err
			}
			if srv != nil && srv.Err() != nil {
				return srv.Err()
			}
			fmt.Fprintln(out, "sandbox stopped")
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&empty, "empty", false, "serve only the bare ZooKeeper server: pristine tree, no brokers, no writes of its own")
	f.StringVar(&listen, "listen", "127.0.0.1:0", "address to serve the embedded ZooKeeper on (port 0 picks a free one); with --kraft the first broker's, the other brokers and the controllers on the ports after it")
	f.StringVar(&dataDir, "data-dir", "", "keep the embedded ZooKeeper's tree in this directory across runs (default: in memory only)")
	f.BoolVar(&kraft, "kraft", false, "run a simulated Kafka 4.4 cluster in KRaft mode (brokers and controllers on loopback, over the Kafka protocol) instead of a ZooKeeper-mode one")
	f.IntVar(&controllers, "controllers", 3, "with --kraft: number of KRaft controllers (ids 3000…), the metadata quorum's voters")
	f.BoolVar(&dynamicQuorum, "dynamic-quorum", false, "with --kraft: a dynamic metadata quorum (KIP-853, kraft.version 1, as kafka-storage format --initial-controllers makes it), whose voters ktopo quorum add-controller and remove-controller change")
	f.IntVar(&observerControllers, "observer-controllers", 0, "with --kraft --dynamic-quorum: controllers started besides the voters (ids after theirs) as observers, as --no-initial-controllers formats them")
	f.IntVar(&brokers, "brokers", 6, "number of simulated brokers (ids 1..N)")
	f.IntVar(&racks, "racks", 3, "racks the brokers are spread over round-robin (0: no rack information)")
	f.BoolVar(&demoTopics, "demo-topics", false, "create a few demo topics (orders, payments, clicks, audit-log, __consumer_offsets)")
	f.DurationVar(&imbalance, "leader-imbalance-check-interval", 300*time.Second,
		"how often the controller gives brokers back the partitions they prefer when more than 10 % are led elsewhere (Kafka's leader.imbalance.check.interval.seconds; 0: no automatic rebalance)")
	f.DurationVar(&pace, "pace", 0, "delay before each controller step, to watch transitions (e.g. 300ms); change it at run time with \"pace\"")
	f.Uint64Var(&seed, "seed", 0, "draw the cluster id and the demo topics' placements and ids from this seed, so that every run starts alike (default: random)")
	return cmd
}

func rackText(racks int) string {
	switch racks {
	case 0:
		return "no racks"
	case 1:
		return "1 rack"
	}
	return fmt.Sprintf("%d racks", racks)
}

// lockedWriter serialises the control loop's answers with the command's
// own lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// contextOf returns the command's context (Background when none was set).
func contextOf(c *cobra.Command) context.Context {
	if ctx := c.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
