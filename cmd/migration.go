package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/cmd/render"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/zkwatch"
)

type migrationFlags struct {
	output     string
	watch      bool
	bootstrap  string
	controller string
	// every is how often --watch judges the sync's age and asks the quorum.
	every time.Duration
}

func newMigrationCmd(cf *connFlags) *cobra.Command {
	var f migrationFlags
	c := &cobra.Command{
		Use:         "migration",
		Annotations: modes(modesZooKeeper),
		Short:       "Show a ZooKeeper to KRaft migration: phase, controllers, how far ZooKeeper lags KRaft, brokers by mode, hazards",
		Long: `migration is for clusters in ZooKeeper mode only, on their way to KRaft: it reads
from the cluster's ZooKeeper (--zookeeper) where a ZooKeeper to KRaft migration
(Kafka 3.4 to 3.9) stands, in a report to paste into an incident channel, and
asks the KRaft side how far ZooKeeper lags when given it (--bootstrap-controller,
--bootstrap-server). A cluster born in KRaft mode has no migration to show.

  - the phase: none; waiting-for-brokers (KRaft controllers created /migration
    and wait for every broker to register with them); reverted (a ZooKeeper
    controller again, /migration left from an earlier attempt);
    copying-metadata (a KRaft controller took /controller over); dual-write
    (metadata copied, brokers in ZooKeeper mode); brokers-on-kraft (no broker
    registered in ZooKeeper, the KRaft controller still writes into it);
    finalized-or-frozen (/migration no longer written: the controllers left
    migration mode, or their sync stopped: ZooKeeper alone cannot tell);
  - the controller (ZooKeeper or KRaft, its epoch, since when) and /migration
    (kraft_controller_id, kraft_controller_epoch, kraft_metadata_offset and
    when the offset last moved);
  - with --bootstrap-controller (the controllers' CONTROLLER listener) or, once
    brokers run in KRaft mode, --bootstrap-server: how many committed KRaft
    records ZooKeeper lacks (DescribeQuorum's high watermark against
    kraft_metadata_offset), and whether a silent sync is stopped (the leader
    that last wrote ZooKeeper still leads) or finalized (a later leader never
    wrote it);
  - the brokers by mode: registered in ZooKeeper (ZooKeeper mode), or, once a
    KRaft controller owns the metadata, listed by the cluster's metadata
    (--bootstrap-server) or else leading or in an ISR without being registered
    (KRaft mode), or neither;
  - the hazards: brokers in assignments that are not registered (a migration
    never starts while one holds replicas), a /migration left from an earlier
    attempt, topics without topic_id, a sync that stopped (the offset not
    moving for 5 s in dual write, where it moves every 0.5 s), admin requests
    and deletion markers the KRaft controller ignores, partitions added through
    ZooKeeper behind its back;
  - what a write through ZooKeeper meets: allowed, asked first, or refused.

--watch follows the cluster live (ZooKeeper's watches; the quorum is asked
every --interval) and prints a line each time the phase, the controller, the
brokers or the hazards change. --output json prints one object (per change
with --watch).`,
		Example: `  ktopo migration --zookeeper zk1:2181/kafka
  ktopo migration --bootstrap-controller kraft1:9093 --bootstrap-server kafka1:9092 --output json
  ktopo migration --watch --bootstrap-controller kraft1:9093`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(f.output); err != nil {
				return err
			}
			if f.every <= 0 {
				return fmt.Errorf("invalid --interval %s: want a positive duration", f.every)
			}
			cf.kraftSide = f.asks()
			if err := needZooKeeper(cf); err != nil {
				return err
			}
			if _, _, err := quorumDial(cf, f); err != nil {
				return err
			}
			if f.watch {
				ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				return watchMigration(ctx, cf, c.OutOrStdout(), c.ErrOrStderr(), f)
			}
			return withCluster(c, cf, func(ctx context.Context, ses *session) error {
				s := ses.snap
				q, qerr := askQuorum(ctx, cf, f, true)
				if q != nil {
					if err := checkSameCluster(ctx, c.ErrOrStderr(), cf, f, s); err != nil {
						return err
					}
				}
				r := migrationReport(s, time.Now(), nil, q, qerr, f.asks())
				return writeMigrationReport(c.OutOrStdout(), r, f.output == "json")
			})
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.output, "output", "text", "output format: text or json")
	fl.BoolVar(&f.watch, "watch", false, "follow the migration live, a line (an object) per change, until interrupted")
	fl.StringVar(&f.bootstrap, "bootstrap-server", "", "Kafka brokers host:port[,host:port…] to ask the KRaft quorum's high watermark (for the lag) and the brokers the metadata lists (with --command-config's security); ZooKeeper-mode brokers do not answer the former")
	fl.StringVar(&f.controller, "bootstrap-controller", "", "KRaft controllers' CONTROLLER listeners host:port[,…] to ask the quorum's high watermark (with --command-config's security): what answers while brokers still run in ZooKeeper mode")
	fl.DurationVar(&f.every, "interval", time.Second, "with --watch: how often the sync's age is judged and the quorum asked")
	return c
}

// asks reports whether the KRaft quorum is to be asked.
func (f migrationFlags) asks() bool { return f.bootstrap != "" || f.controller != "" }

// needZooKeeper says, when no ZooKeeper is given, that migration reads
// one: --bootstrap-server and --bootstrap-controller only add the KRaft
// side.
func needZooKeeper(cf *connFlags) error {
	t, err := cf.target()
	if err != nil || t.connect != "" {
		return err // a KRaft target: connect says it needs ZooKeeper
	}
	return fmt.Errorf("migration reads the cluster from its ZooKeeper: give --zookeeper host:port[/chroot] (or --context NAME, or set %s); --bootstrap-controller (the KRaft controllers) and --bootstrap-server (the brokers) add the KRaft side: the quorum's high watermark, the brokers its metadata lists", envZookeeper)
}

// quorumDial is how migration reaches the KRaft side: the brokers of
// --bootstrap-server, the controllers of --bootstrap-controller.
func quorumDial(cf *connFlags, f migrationFlags) (d kafkawatch.Dial, controllers []string, err error) {
	d = kafkawatch.Dial{Logger: kafkaLogger(), RequestTimeout: 5 * time.Second}
	if d.Bootstrap, err = kafkawatch.ParseBootstrap(f.bootstrap); err != nil {
		return d, nil, fmt.Errorf("--bootstrap-server: %w", err)
	}
	if controllers, err = kafkawatch.ParseBootstrap(f.controller); err != nil {
		return d, nil, fmt.Errorf("--bootstrap-controller: %w", err)
	}
	d.Security, err = security(cf.commandConfig, d.Logger)
	return d, controllers, err
}

// askQuorum asks the KRaft quorum when --bootstrap-server or
// --bootstrap-controller is given (nil, nil when not); explain says what
// answers at the addresses that failed (kafkawatch.DiagnoseQuorum), for
// a one-shot report or the first of a series.
func askQuorum(ctx context.Context, cf *connFlags, f migrationFlags, explain bool) (*cluster.KRaftQuorum, error) {
	if !f.asks() {
		return nil, nil
	}
	d, controllers, err := quorumDial(cf, f)
	if err != nil {
		return nil, err
	}
	q, err := kafkawatch.Quorum(ctx, d, controllers)
	if err != nil {
		if explain {
			err = d.DiagnoseQuorum(ctx, err)
		}
		return nil, err
	}
	return &q, nil
}

func migrationReport(s *cluster.Snapshot, now time.Time, sync *cluster.SyncWatch, q *cluster.KRaftQuorum, qerr error, asked bool) render.MigrationReport {
	r := render.MigrationReport{ClusterID: s.ClusterID(), Status: cluster.AssessMigration(s, now, sync, q), Asked: asked, At: now}
	if qerr != nil {
		r.QuorumErr = qerr.Error()
	}
	return r
}

func writeMigrationReport(w io.Writer, r render.MigrationReport, asJSON bool) error {
	if asJSON {
		return render.WriteMigrationJSON(w, r)
	}
	return render.WriteMigration(w, r)
}

// migrationKey is what --watch reports a change of.
func migrationKey(r render.MigrationReport) string {
	st := r.Status
	var codes []string
	for _, h := range st.Hazards {
		codes = append(codes, h.Code)
	}
	return fmt.Sprint(st.Phase, st.ZKController, st.KRaftController, st.KRaftEpoch, st.ControllerEpoch, st.Brokers(),
		st.Verdict.Level, st.LagKnown, r.QuorumErr != "", codes)
}

// watchMigration follows the cluster live and prints the report, then a
// line (text) or an object (JSON) each time it changes.
func watchMigration(ctx context.Context, cf *connFlags, out, errOut io.Writer, f migrationFlags) error {
	ses, err := cf.follow(ctx)
	if err != nil {
		return err
	}
	defer ses.close()
	w := ses.watch
	if _, err := w.Loaded(ctx); err != nil {
		return err
	}
	// The model is applied and read on one goroutine: snapshots come out.
	snaps := make(chan *cluster.Snapshot, 1)
	errc := make(chan error, 1)
	go func() {
		for {
			if _, _, err := w.Next(ctx); err != nil {
				errc <- err
				return
			}
			select {
			case <-snaps:
			default:
			}
			snaps <- w.Model.Snapshot()
		}
	}()
	type answer struct {
		q   *cluster.KRaftQuorum
		err error
	}
	answers := make(chan answer, 1)
	asking := false
	ask := func() {
		if !f.asks() || asking {
			return
		}
		asking = true
		go func() {
			q, err := askQuorum(ctx, cf, f, false)
			answers <- answer{q, err}
		}()
	}
	tick := time.NewTicker(f.every)
	defer tick.Stop()

	s := w.Model.Snapshot()
	var sync cluster.SyncWatch
	var q *cluster.KRaftQuorum
	var qerr error
	// The KRaft side is checked against ZooKeeper's cluster once it
	// first answers.
	checked := false
	check := func() error {
		if checked || q == nil {
			return nil
		}
		checked = true
		return checkSameCluster(ctx, errOut, cf, f, s)
	}
	if f.asks() {
		q, qerr = askQuorum(ctx, cf, f, true)
		if err := check(); err != nil {
			return err
		}
	}
	last, prev := "", render.MigrationReport{}
	report := func() error {
		r := migrationReport(s, time.Now(), &sync, q, qerr, f.asks())
		key := migrationKey(r)
		if key == last {
			return nil
		}
		first := last == ""
		last = key
		defer func() { prev = r }()
		switch {
		case f.output == "json":
			return render.WriteMigrationJSON(out, r)
		case first:
			return render.WriteMigration(out, r)
		}
		if _, err := fmt.Fprintln(out, render.MigrationLine(r)); err != nil {
			return err
		}
		for _, h := range r.Status.Hazards {
			if !slices.ContainsFunc(prev.Status.Hazards, func(p cluster.MigrationHazard) bool { return p.Code == h.Code }) {
				if _, err := fmt.Fprintf(out, "  ! %s: %s\n", h.Code, h.Text); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := report(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		case s = <-snaps:
		case <-tick.C:
			ask()
		case a := <-answers:
			asking = false
			q, qerr = a.q, a.err
			if qerr != nil && strings.Contains(qerr.Error(), context.Canceled.Error()) {
				return nil
			}
			if err := check(); err != nil {
				return err
			}
		}
		if err := report(); err != nil {
			return err
		}
	}
}

// sameCluster checks that the KRaft side given (--bootstrap-controller,
// --bootstrap-server) belongs to the cluster of ZooKeeper's /cluster/id
// (zkID, "" when ZooKeeper holds none): a migrating cluster's brokers and
// KRaft controllers all carry that id, so another id is another cluster,
// whose quorum would read as a migration that copied nothing. That is
// refused, naming both ids. Where the ids cannot be compared (ZooKeeper
// holds none, a controller before Kafka 3.7 does not say its own), a
// warning says why.
func sameCluster(ctx context.Context, cf *connFlags, f migrationFlags, zkID string) (warnings []string, err error) {
	d, controllers, err := quorumDial(cf, f)
	if err != nil {
		return nil, err
	}
	t, _ := cf.target()
	for _, side := range []struct {
		flag, what  string
		addrs       []string
		controllers bool
	}{
		{"--bootstrap-controller", "controllers", controllers, true},
		{"--bootstrap-server", "brokers", d.Bootstrap, false},
	} {
		if len(side.addrs) == 0 {
			continue
		}
		given := strings.Join(side.addrs, ",")
		if zkID == "" {
			warnings = append(warnings, fmt.Sprintf("ZooKeeper %s holds no /cluster/id (no broker of a cluster ever started there): cannot check that %s %s belongs to its cluster", t.connect, side.flag, given))
			continue
		}
		id, from, err := kafkawatch.ClusterID(ctx, d, side.addrs, side.controllers)
		switch {
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("cannot check that %s %s belongs to cluster %s (ZooKeeper's /cluster/id): %v", side.flag, given, zkID, err))
		case id != zkID:
			return warnings, fmt.Errorf("%s %s belongs to cluster %s, but ZooKeeper %s holds cluster %s (/cluster/id): these are two clusters; give %s the %s of the cluster migrating from this ZooKeeper (its brokers and KRaft controllers all carry ZooKeeper's cluster id)",
				side.flag, from, id, t.connect, zkID, side.flag, side.what)
		}
	}
	return warnings, nil
}

// checkSameCluster is sameCluster for the command line: the warnings go
// to errOut.
func checkSameCluster(ctx context.Context, errOut io.Writer, cf *connFlags, f migrationFlags, s *cluster.Snapshot) error {
	warnings, err := sameCluster(ctx, cf, f, s.ClusterID())
	for _, w := range warnings {
		fmt.Fprintln(errOut, "warning: "+w)
	}
	return err
}

// radarQuorum is the TUI's migration radar asking the quorum of
// --bootstrap-controller: once the controllers first answer, they are
// checked against ZooKeeper's /cluster/id (read through conn); another
// cluster's quorum is then refused at every ask with sameCluster's error,
// which the radar shows where the lag would be. Warnings go to logger.
func radarQuorum(cf *connFlags, f migrationFlags, conn *zkwatch.Conn, logger *log.Logger) func(context.Context) (cluster.KRaftQuorum, error) {
	var mu sync.Mutex
	checked := false
	var refused error
	return func(ctx context.Context) (cluster.KRaftQuorum, error) {
		q, err := askQuorum(ctx, cf, f, false)
		if err != nil {
			return cluster.KRaftQuorum{}, err
		}
		mu.Lock()
		defer mu.Unlock()
		if !checked {
			zkID := ""
			data, _, err := conn.Get(cluster.ClusterIDPath)
			switch {
			case errors.Is(err, zk.ErrNoNode):
			case err != nil:
				return *q, nil // checked at the next ask
			default:
				info, _ := cluster.DecodeClusterID(data)
				zkID = info.ID
			}
			warnings, err := sameCluster(ctx, cf, f, zkID)
			for _, w := range warnings {
				logger.Printf("migration radar: %s", w)
			}
			checked, refused = true, err
		}
		if refused != nil {
			return cluster.KRaftQuorum{}, refused
		}
		return *q, nil
	}
}
