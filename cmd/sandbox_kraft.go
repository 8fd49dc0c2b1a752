package cmd

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// kraftSandboxFlags are "ktopo sandbox --kraft"'s settings.
type kraftSandboxFlags struct {
	brokers, racks, controllers int
	demoTopics                  bool
	seed                        uint64
	imbalance                   time.Duration
	listen                      string // --listen, when given
	pace                        time.Duration
	dynamicQuorum               bool
	observerControllers         int
}

// zkSandboxOnly are the sandbox's flags that only the ZooKeeper-mode
// sandbox takes.
var zkSandboxOnly = []string{"empty", "data-dir"}

// runKRaftSandbox is "ktopo sandbox --kraft": it starts the simulated
// KRaft cluster, prints its brokers' and controllers' listeners and reads
// control commands from standard input until SIGINT or SIGTERM.
func runKRaftSandbox(c *cobra.Command, cf *connFlags, kf kraftSandboxFlags) error {
	changed := func(name string) bool { return c.Flags().Changed(name) }
	for _, name := range zkSandboxOnly {
		if changed(name) {
			return fmt.Errorf("--%s is for the ZooKeeper-mode sandbox; it cannot be combined with --kraft", name)
		}
	}
	switch {
	case cf.contextName != "":
		return errors.New("the sandbox only runs on an address given on its own command line, not on a --context")
	case cf.zookeeper != "":
		return errors.New("--kraft runs a KRaft cluster of its own; it cannot be combined with --zookeeper")
	case cf.bootstrap != "":
		return errors.New("--kraft runs a KRaft cluster of its own and prints its --bootstrap-server; it cannot be combined with --bootstrap-server")
	case cf.readOnly:
		return readOnlyRefusal("run the KRaft sandbox: it is a cluster of its own", "connect to it with --read-only instead")
	case cf.digest != "" || !cf.tls.Empty():
		return errors.New("--zk-digest and --zk-tls-* are for ZooKeeper; the KRaft sandbox has none")
	case kf.brokers < 1:
		return fmt.Errorf("--brokers must be at least 1, not %d", kf.brokers)
	case kf.controllers < 1:
		return fmt.Errorf("--controllers must be at least 1, not %d", kf.controllers)
	case kf.racks < 0:
		return fmt.Errorf("--racks must not be negative, not %d", kf.racks)
	case kf.pace < 0:
		return fmt.Errorf("--pace must not be negative, not %s", kf.pace)
	case kf.observerControllers < 0:
		return fmt.Errorf("--observer-controllers must not be negative, not %d", kf.observerControllers)
	case kf.observerControllers > 0 && !kf.dynamicQuorum:
		return errors.New("--observer-controllers needs --dynamic-quorum: a static quorum's controllers are all voters")
	case kf.imbalance < 0:
		return fmt.Errorf("--leader-imbalance-check-interval must not be negative, not %s", kf.imbalance)
	}
	var err error
	ctx, stop := signal.NotifyContext(contextOf(c), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	out := &lockedWriter{w: c.OutOrStdout()}
	cfg := kraftsandbox.Config{Brokers: kf.brokers, Racks: kf.racks, Controllers: kf.controllers, DemoTopics: kf.demoTopics,
		LeaderImbalanceCheckInterval: kf.imbalance, NoAutoLeaderRebalance: kf.imbalance == 0,
		DynamicQuorum: kf.dynamicQuorum, ObserverControllers: kf.observerControllers,
		Logger: slog.New(slog.NewTextHandler(openLog(), &slog.HandlerOptions{Level: slog.LevelInfo}))}
	if changed("listen") {
		if cfg.Host, cfg.Port, err = kraftListen(kf.listen); err != nil {
			return err
		}
	}
	if changed("seed") {
		cfg.Rand = sandboxFlags{seed: kf.seed, seeded: true}.rand(sandboxStream)
	}
	if cf.flags != nil && cf.flags.Changed("session-timeout") {
		cfg.SessionTimeout = cf.sessionTimeout
	}
	sb, err := kraftsandbox.Start(cfg)
	if err != nil {
		return err
	}
	sb.SetPace(kf.pace)
	fmt.Fprintf(out, "--bootstrap-server %s\n", sb.Bootstrap())
	fmt.Fprintf(out, "--bootstrap-controller %s\n", sb.ControllerBootstrap())
	quorum := ""
	if kf.dynamicQuorum {
		quorum = " (a dynamic quorum)"
		if kf.observerControllers > 0 {
			quorum = fmt.Sprintf(" (a dynamic quorum) and %d observer %s", kf.observerControllers, text.Plural(kf.observerControllers, "controller", "controllers"))
		}
	}
	fmt.Fprintf(out, "sandbox: KRaft cluster %s: %d brokers (%s), %d controllers%s; type \"help\" for commands\n",
		sb.ClusterID(), kf.brokers, rackText(kf.racks), kf.controllers, quorum)
	go func() {
		if err := kraftsandbox.Control(sb, c.InOrStdin(), out); err != nil {
			fmt.Fprintf(out, "error: reading commands: %v\n", err)
		}
	}()
	<-ctx.Done()
	if err := sb.Close(); err != nil {
		return err
	}
	fmt.Fprintln(out, "sandbox stopped")
	return nil
}

// kraftListen reads --listen for the KRaft sandbox: the host its
// listeners bind and the first broker's port (0: free ports).
func kraftListen(listen string) (string, int, error) {
	host, p, err := net.SplitHostPort(listen)
	if err != nil {
		return "", 0, fmt.Errorf("--listen %q: %w", listen, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("--listen %q: the port is not a number from 0 to 65535", listen)
	}
	return host, port, nil
}
