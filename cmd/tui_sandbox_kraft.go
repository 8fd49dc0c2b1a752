package cmd

import (
	"errors"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/kraftsandbox"
	"github.com/ktopo/ktopo/ui"
)

// kraft reports --sandbox kraft, refusing an unknown kind and the
// ZooKeeper sandbox's flags beside kraft.
func (sf sandboxFlags) kraft(c *cobra.Command) (bool, error) {
	switch sf.kind {
	case "zk", "zookeeper":
		return false, nil
	case "kraft":
	default:
		return false, fmt.Errorf("--sandbox %q: the sandbox is zk (ZooKeeper mode) or kraft", sf.kind)
	}
	return true, nil
}

// runKRaftSandboxTUI opens the TUI on the KRaft sandbox: a simulated
// Kafka 4.4 cluster in KRaft mode (6 brokers in 3 racks, 3 controllers,
// the demo topics; drawn from --seed when given), read and written as a
// KRaft cluster given with --bootstrap-server is (the poller, the sizes,
// the Admin API writer), with the sandbox's keys: kill and restart a
// broker, move the quorum's leader.
func runKRaftSandboxTUI(c *cobra.Command, cf *connFlags, cfg ui.Config, sf sandboxFlags, logger *log.Logger) error {
	scfg := kraftsandbox.Config{Brokers: 6, Racks: 3, Controllers: 3, DemoTopics: true,
		Logger: slog.New(slog.NewTextHandler(openLog(), &slog.HandlerOptions{Level: slog.LevelInfo}))}
	if sf.seeded {
		scfg.Rand = sf.rand(sandboxStream)
		cfg.Rand = sf.rand(wizardStream)
	}
	if cf.flags != nil && cf.flags.Changed("session-timeout") {
		scfg.SessionTimeout = cf.sessionTimeout
	}
	if c.Flags().Changed("listen") {
		var err error
		if scfg.Host, scfg.Port, err = kraftListen(sf.listen); err != nil {
			return err
		}
	}
	sb, err := kraftsandbox.Start(scfg)
	if err != nil {
		return err
	}
	defer sb.Close()
	if c.Flags().Changed("pace") {
		// The default pace is the ZooKeeper sandbox's, for its znode
		// writes; the KRaft sandbox's writes are paced when asked.
		sb.SetPace(sf.pace)
	}
	d := kafkawatch.Dial{}
	if d.Bootstrap, err = kafkawatch.ParseBootstrap(sb.Bootstrap()); err != nil {
		return err
	}
	if cf.flags != nil && cf.flags.Changed("request-timeout") {
		d.RequestTimeout = cf.requestTimeout
	}
	cfg.Connect, cfg.Mode, cfg.Sandbox = sb.Bootstrap(), ui.ModeSandbox, kraftControl{sb}
	logger.Printf("KRaft sandbox: --bootstrap-server %s --bootstrap-controller %s", sb.Bootstrap(), sb.ControllerBootstrap())
	// The Quorum tab asks the controllers too, as ktopo quorum
	// --bootstrap-controller does.
	ctrls, err := kafkawatch.ParseBootstrap(sb.ControllerBootstrap())
	if err != nil {
		return err
	}
	return openKRaftTUI(c, cf, cfg, target{connect: sb.Bootstrap(), kraft: true}, d, ctrls, logger)
}

// kraftControl adapts *kraftsandbox.Cluster to the TUI's sandbox actions.
// Its controller is the metadata quorum's leader; its elections are the
// election wizard's (ElectPreferred is never called: the shell keeps the
// wizard's key on a KRaft sandbox).
type kraftControl struct{ c *kraftsandbox.Cluster }

func (k kraftControl) Kill(id int) error            { return k.c.Kill(id) }
func (k kraftControl) Restart(id int) error         { return k.c.Restart(id) }
func (k kraftControl) Running(id int) bool          { return k.c.Running(id) }
func (k kraftControl) MoveController() (int, error) { return k.c.MoveQuorumLeader() }
func (k kraftControl) ElectPreferred(string) (string, error) {
	return "", errors.New("the KRaft sandbox elects leaders with the election wizard, as a KRaft cluster does")
}

var _ ui.SandboxControl = kraftControl{}

// SetPace and Pace implement ui.Pacer (the creation wizard's pace key):
// the delay before each write the sandbox's controller applies.
func (k kraftControl) SetPace(d time.Duration) { k.c.SetPace(d) }

// Pace is the delay before each write the controller applies.
func (k kraftControl) Pace() time.Duration { return k.c.Pace() }

var _ ui.Pacer = kraftControl{}
