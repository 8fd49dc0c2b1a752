package cmd

import (
	"context"
	"log"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/ui"
	"github.com/ktopo/ktopo/zkserver"
	"github.com/ktopo/ktopo/zkwatch"
)

// tuiPace slows the sandbox's controller once the demo topics are online,
// so that each transition can be seen on screen (the demo topics come
// online at full speed first). --pace overrides it; the creation wizard's
// pace key changes it at run time.
const tuiPace = 100 * time.Millisecond

// sandboxFlags are the TUI's sandbox-only flags.
type sandboxFlags struct {
	pace   time.Duration // --pace
	listen string        // --listen
	seed   uint64        // --seed, when seeded
	seeded bool
	kind   string // --sandbox: zk or kraft
}

// The streams drawn from one --seed: the sandbox's own choices and the
// creation wizard's, independent of each other.
const (
	sandboxStream = iota + 1
	wizardStream
)

// rand returns the seeded source of one stream.
func (sf sandboxFlags) rand(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(sf.seed, stream))
}

// sandboxRun is a running sandbox for the TUI.
type sandboxRun struct {
	conn    *zkwatch.Conn
	connect string
	control ui.SandboxControl
	// sizes are the simulated brokers' log directories and replicas'
	// sizes (ui.Config.Sizes).
	sizes *sandbox.SizeSource
	close func()
}

// startSandbox starts the embedded ZooKeeper (on sf.listen) and the
// simulated cluster: 6 brokers in 3 racks with the demo topics (drawn from
// sf.seed when seeded), paced at sf.pace once they are online; the
// brokers' and controller's log lines go to ktopo's log file.
func startSandbox(ctx context.Context, logger *log.Logger, sf sandboxFlags) (*sandboxRun, error) {
	srv, err := zkserver.Start(zkserver.Config{Addr: sf.listen})
	if err != nil {
		return nil, err
	}
	connect := srv.Addr()
	slogger := slog.New(slog.NewTextHandler(openLog(), &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg := sandbox.Config{Connect: connect, Brokers: 6, Racks: 3, DemoTopics: true, Logger: slogger}
	if sf.seeded {
		cfg.Rand = sf.rand(sandboxStream)
	}
	sb, err := sandbox.Start(ctx, cfg)
	if err != nil {
		srv.Close()
		return nil, err
	}
	conn, err := zkwatch.Connect(ctx, connect, zkwatch.Options{Logger: zkLogger()})
	if err != nil {
		sb.Close()
		srv.Close()
		return nil, err
	}
	control := sandboxControl{c: sb, chosen: new(atomic.Bool)}
	go paceWhenOnline(ctx, control, logger, sf.pace)
	sizes := sb.Sizes(sandbox.SizeOptions{})
	return &sandboxRun{
		conn:    conn,
		connect: connect,
		control: control,
		sizes:   sizes,
		close: func() {
			_ = sizes.Close()
			conn.Close()
			sb.Close()
			srv.Close()
		},
	}, nil
}

// paceWhenOnline sets pace once every demo partition has a leader (or
// after 30 s), unless the user chose a pace in the meantime.
func paceWhenOnline(ctx context.Context, ctl sandboxControl, logger *log.Logger, pace time.Duration) {
	sb := ctl.c
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		st, err := sb.Status()
		if err != nil {
			break
		}
		online := len(st.Topics) >= len(sandbox.DemoTopics())
		for _, t := range st.Topics {
			online = online && t.Online == t.Partitions
		}
		if online {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if ctl.chosen.Load() || ctx.Err() != nil {
		return
	}
	sb.SetPace(pace)
	logger.Printf("sandbox: pace %s", pace)
}

// sandboxControl adapts *sandbox.Cluster to the TUI's actions.
// chosen is set once the user changes the pace.
type sandboxControl struct {
	c      *sandbox.Cluster
	chosen *atomic.Bool
}

func (s sandboxControl) Kill(id int) error    { return s.c.Kill(id) }
func (s sandboxControl) Restart(id int) error { return s.c.Restart(id) }
func (s sandboxControl) MoveController() (int, error) {
	if err := s.c.MoveController(); err != nil {
		return -1, err
	}
	return s.c.ActiveController(), nil
}
func (s sandboxControl) Running(id int) bool { return s.c.Running(id) }

// KillTogether implements ui.TogetherKiller (x on a rack).
func (s sandboxControl) KillTogether(ids ...int) error { return s.c.KillTogether(ids...) }

var _ ui.TogetherKiller = sandboxControl{}

// SetPace and Pace implement ui.Pacer (the creation wizard's pace key).
func (s sandboxControl) SetPace(d time.Duration) {
	s.chosen.Store(true)
	s.c.SetPace(d)
}

// Pace returns the simulated controller's current pace.
func (s sandboxControl) Pace() time.Duration { return s.c.Pace() }

var _ ui.Pacer = sandboxControl{}

// Migrate steps the sandbox's simulated ZooKeeper to KRaft migration.
func (s sandboxControl) Migrate(arg string) (string, error) { return s.c.Migrate(arg) }

var _ ui.Migrator = sandboxControl{}

// ElectPreferred returns Kafka's outcome as one line; the failed
// partitions are in the log of the preferred election.
func (s sandboxControl) ElectPreferred(topic string) (string, error) {
	sum, err := s.c.ElectPreferred(topic)
	if err != nil {
		return "", err
	}
	return sum.String(), nil
}
