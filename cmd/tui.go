package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/config"
	"github.com/ktopo/ktopo/kafkaops"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/ui"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// setupTUI makes the root command open the TUI and registers the
// sandbox's flags (--pace, --listen, --seed).
func setupTUI(root *cobra.Command, cf *connFlags) {
	var sf sandboxFlags
	var controllers string
	var noSizes bool
	f := root.Flags()
	f.BoolVar(&noSizes, "no-sizes", false, "do not read the replicas' sizes and the brokers' disks (DescribeLogDirs to every broker, every 30 s, every 5 s while a reassignment runs)")
	f.DurationVar(&sf.pace, "pace", tuiPace, "sandbox only: delay before each step of the simulated controller and brokers once the demo topics are online, to watch them (p in the creation wizard changes it)")
	f.StringVar(&sf.listen, "listen", "127.0.0.1:0", "sandbox only: address to serve the embedded ZooKeeper on, for other clients (port 0 picks a free one); with --sandbox kraft the first broker's, the other brokers and the controllers on the ports after it")
	f.StringVar(&controllers, "bootstrap-controller", "", "the KRaft controllers' CONTROLLER listeners host:port[,…] (with --command-config's security): with --zookeeper, of a cluster migrating to KRaft, whose quorum the migration radar asks how far ZooKeeper lags KRaft; with --bootstrap-server, the Quorum tab asks every voter its supported feature ranges too")
	f.StringVar(&sf.kind, "sandbox", "zk", "sandbox only: the kind of cluster the sandbox simulates: zk (ZooKeeper mode: an embedded ZooKeeper, its brokers and controller) or kraft (Kafka 4.4 in KRaft mode: 6 brokers, 3 controllers, over the Kafka protocol on loopback)")
	f.Uint64Var(&sf.seed, "seed", 0, "sandbox only: draw the cluster id, the demo topics' placements and ids and the creation wizard's start index from this seed, so that every run starts alike (default: random)")
	root.Args = cobra.NoArgs
	root.Example = `  ktopo
  ktopo --sandbox kraft --seed 1
  ktopo --zookeeper zk1:2181,zk2:2181/kafka
  ktopo --bootstrap-server kafka1:9092 --command-config client.properties`
	root.Long += `

With no command, ktopo opens its terminal UI: on the ZooKeeper-mode cluster
given with --zookeeper (or $KTOPO_ZOOKEEPER, or --context), or the KRaft cluster
given with --bootstrap-server (or $KTOPO_BOOTSTRAP_SERVER; polled every
--poll-interval; the ZooKeeper tree and the migration radar are not tabs there,
the metadata quorum is: with --bootstrap-controller its voters are asked too),
else on a sandbox: an embedded ZooKeeper with 6 simulated brokers in 3 racks and
demo topics (a ZooKeeper-mode cluster), where you can kill and restart brokers
and watch leaders move and ISRs shrink. With --sandbox kraft the sandbox is a
simulated Kafka 4.4 cluster in KRaft mode instead (6 brokers in 3 racks, 3
controllers, the demo topics, read as a KRaft cluster given with
--bootstrap-server is): a killed broker is fenced once broker.session.timeout.ms
(9 s; --session-timeout when given) passes without its heartbeats. Press ? in
the UI for its keys.

Contexts (named clusters with connect string, digest auth, read-only and
production flags) live in ` + displayPath(config.Path()) + `.
ktopo logs to ` + displayPath(LogPath()) + ` (set KTOPO_LOG to change it),
never to the terminal. NO_COLOR=1 turns colours off.`
	root.RunE = func(c *cobra.Command, _ []string) error {
		sf.seeded = c.Flags().Changed("seed")
		return runTUI(c, cf, sf, controllers, noSizes)
	}
}

// displayPath shortens the home directory to ~.
func displayPath(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(p, home+string(os.PathSeparator)) {
		return "~" + p[len(home):]
	}
	return p
}

// runTUI opens the TUI; controllers is --bootstrap-controller.
func runTUI(c *cobra.Command, cf *connFlags, sf sandboxFlags, controllers string, noSizes bool) error {
	cf.kraftSide = controllers != ""
	cf.sizesSide = !noSizes
	t, err := cf.target()
	if err != nil {
		return err
	}
	if controllers != "" && t.connect == "" {
		return errors.New("--bootstrap-controller is for a cluster: a ZooKeeper cluster migrating to KRaft (with --zookeeper or a context), whose KRaft quorum the migration radar asks, or a KRaft cluster (--bootstrap-server), whose voters the Quorum tab asks their feature ranges; the sandbox asks its own")
	}
	if t.connect != "" {
		for _, name := range []string{"listen", "seed", "sandbox"} {
			if c.Flags().Changed(name) {
				return fmt.Errorf("--%s is for the sandbox; it cannot be combined with a cluster (--zookeeper, --bootstrap-server, --context or $%s)", name, envZookeeper)
			}
		}
	}
	kraftSandbox, err := sf.kraft(c)
	if err != nil {
		return err
	}
	if !term.IsTerminal(os.Stdout.Fd()) || !term.IsTerminal(os.Stdin.Fd()) {
		return errors.New("the terminal UI needs a terminal; the commands (ktopo --help) work without one")
	}
	// Nothing may reach the screen: stray log lines go to the log file.
	logger := log.New(openLog(), "ktopo: ", log.LstdFlags|log.Lmicroseconds)
	log.SetOutput(openLog())
	ctx, cancel := context.WithCancel(contextOf(c))
	defer cancel()

	cfg := ui.Config{Connect: t.connect, Context: t.context, Production: t.production,
		NoColor: os.Getenv("NO_COLOR") != "", Logger: logger, Debug: os.Getenv("KTOPO_DEBUG") != ""}
	if t.connect != "" {
		cfg.Notice = strings.Join(t.warnings, "; ")
		for _, w := range t.warnings {
			logger.Print(w)
		}
	}
	if noSizes {
		cfg.SizesOff = "turned off with --no-sizes"
	}
	if t.kraft {
		return runKRaftTUI(c, cf, cfg, t, controllers, logger)
	}
	if t.connect == "" && kraftSandbox {
		return runKRaftSandboxTUI(c, cf, cfg, sf, logger)
	}
	var conn *zkwatch.Conn
	if t.connect == "" {
		sb, err := startSandbox(ctx, logger, sf)
		if err != nil {
			return err
		}
		defer sb.close()
		conn, cfg.Connect, cfg.Mode, cfg.Sandbox = sb.conn, sb.connect, ui.ModeSandbox, sb.control
		cfg.Sizes = sb.sizes
		if sf.seeded {
			cfg.Rand = sf.rand(wizardStream)
		}
	} else {
		done := connecting(c.ErrOrStderr(), t.connect)
		conn, err = cf.connect(ctx)
		done()
		if err != nil {
			return err
		}
		defer conn.Close()
		cfg.Mode = ui.ModeLive
		if t.readOnly {
			cfg.Mode = ui.ModeReadOnly
		}
		if !noSizes {
			// The sizes come from the brokers over the Kafka protocol, at
			// the addresses they registered in ZooKeeper (read again at
			// each reading until one answers).
			d, err := cf.zkSizesDial()
			if err != nil {
				return err
			}
			d.Logger = logger
			sp := kafkawatch.NewSizePollerSeeds(cf.zkSizesSeeds(conn, d.Security.Protocol, logger), d, kafkawatch.SizeOptions{Logger: logger})
			defer sp.Close()
			cfg.Sizes = sp
		}
	}
	mirror, err := zkwatch.NewMirror(conn, zksource.Shape(), zksource.TUIMirror())
	if err != nil {
		return err
	}
	defer mirror.Close()
	cfg.Source, cfg.Prober = zksource.New(mirror, conn), zksource.Prober{Browser: conn}
	if t.connect != "" {
		connect := t.connect
		cfg.CheckRoot = func() string {
			nk, err := zksource.CheckRoot(conn, conn.Chroot())
			if err != nil {
				logger.Printf("checking for a Kafka cluster at %s: %v", connect, err)
			}
			if nk == nil {
				return ""
			}
			return nk.Message(connect)
		}
	}
	if cfg.Mode != ui.ModeReadOnly {
		cfg.Writer = zkops.NewWriter(conn) // the wizards write through the same session
	}
	if controllers != "" {
		cfg.Quorum = radarQuorum(cf, migrationFlags{controller: controllers}, conn, logger)
	}
	logger.Printf("TUI on %s (%s)", cfg.Connect, modeName(cfg.Mode))
	if t.connect != "" {
		cfg.SavePlan = planSaver(t, cf)
	}
	// However the TUI closed, an operation between two of its writes
	// finishes the step it started; what is left is printed (runApp).
	return runApp(ctx, c, ui.New(cfg))
}

// connecting shows "Connecting to HOST…" on w while the TUI's session is
// set up, when w is a terminal; the returned func erases the line, so that
// neither the error nor the shell's prompt after the TUI lands on it.
func connecting(w io.Writer, connect string) (done func()) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return func() {}
	}
	fmt.Fprintf(w, "Connecting to %s…", connect)
	return func() { fmt.Fprint(w, "\r"+ansi.EraseEntireLine) }
}

// finishGrace bounds how long ktopo, closed, waits for an operation to
// finish the step it started (a drain's leaders-first step waits for the
// controller to reorder the replicas before it writes their election).
const finishGrace = 30 * time.Second

func modeName(m ui.Mode) string {
	switch m {
	case ui.ModeSandbox:
		return "sandbox"
	case ui.ModeReadOnly:
		return "read-only"
	}
	return "live"
}

// runKRaftTUI opens the TUI on a KRaft cluster: a poller every
// --poll-interval feeds the same screens. Whether the brokers answer (and
// accept the credentials) is found out before the screen is taken over,
// so that such errors are printed as any command's.
func runKRaftTUI(c *cobra.Command, cf *connFlags, cfg ui.Config, t target, controllers string, logger *log.Logger) error {
	d, err := cf.dial()
	if err != nil {
		return err
	}
	ctrls, err := kafkawatch.ParseBootstrap(controllers)
	if err != nil {
		return fmt.Errorf("--bootstrap-controller: %w", err)
	}
	return openKRaftTUI(c, cf, cfg, t, d, ctrls, logger)
}

// openKRaftTUI is runKRaftTUI on d: a KRaft cluster's, or the KRaft
// sandbox's (cfg.Mode ModeSandbox: its Sandbox control kept, no plan
// saved).
func openKRaftTUI(c *cobra.Command, cf *connFlags, cfg ui.Config, t target, d kafkawatch.Dial, controllers []string, logger *log.Logger) error {
	sandbox := cfg.Mode == ui.ModeSandbox
	d.Logger = logger
	fmt.Fprintf(c.ErrOrStderr(), "Connecting to %s…\r", t.connect)
	cl, err := kafkawatch.NewClient(d)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(contextOf(c), max(cf.requestTimeout, time.Second))
	err = kafkawatch.Check(ctx, cl, d)
	cancel()
	if err != nil {
		cl.Close()
		if pe := (*kafkawatch.PeerError)(nil); errors.As(err, &pe) {
			return err // it names the addresses
		}
		return fmt.Errorf("%s: %w", t.connect, err)
	}
	p := kafkawatch.StartWith(cl, d, kafkawatch.Options{Interval: cf.pollInterval, Progress: true, Logger: logger})
	defer p.Close()
	cfg.Source = p
	// The Quorum tab: the polls' DescribeQuorum live, the rest read
	// while it is shown, as ktopo quorum reads it.
	cfg.KRaftQuorum = kafkawatch.QuorumWatch{Poller: p, Dial: d, Controllers: controllers}
	if !sandbox {
		cfg.Mode = ui.ModeLive
	}
	if cfg.SizesOff == "" {
		sp := kafkawatch.NewSizePoller(cl, kafkawatch.SizeOptions{Timeout: d.RequestTimeout, Logger: logger})
		defer sp.Close()
		cfg.Sizes = sp
	}
	if t.readOnly {
		cfg.Mode = ui.ModeReadOnly
	} else {
		// The wizards write over the Kafka protocol, through the poller's
		// client; a broker config they change (a drain's cordon) is read
		// again at once.
		w := kafkaops.New(cl, cf.requestTimeoutOr(kafkaops.DefaultTimeout))
		w.OnBrokerConfigs(p.RefreshBrokers)
		cfg.Writer = w
	}
	logger.Printf("TUI on KRaft cluster %s (%s, every %s)", cfg.Connect, modeName(cfg.Mode), cf.pollInterval)
	if !sandbox {
		cfg.SavePlan = planSaver(t, cf)
	}
	return runApp(contextOf(c), c, ui.New(cfg))
}
