package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/cli/render"
	"github.com/ktopo/ktopo/internal/config"
	"github.com/ktopo/ktopo/zkwatch"
)

// connFlags are the root's persistent connection flags.
type connFlags struct {
	contextName    string
	zookeeper      string
	readOnly       bool
	digest         string
	sessionTimeout time.Duration
	requestTimeout time.Duration

	flags    *pflag.FlagSet // the root's persistent flags, to tell given from default
	resolved *target        // --context applied (once)
}

// target is the cluster a command works on.
type target struct {
	connect    string
	context    string
	readOnly   bool
	production bool
}

// envZookeeper stands for --zookeeper in every command except sandbox.
const envZookeeper = "KTOPO_ZOOKEEPER"

func (f *connFlags) register(c *cobra.Command) {
	pf := c.PersistentFlags()
	f.flags = pf
	pf.StringVar(&f.contextName, "context", "", "use the named cluster of "+displayPath(config.Path()))
	pf.StringVar(&f.zookeeper, "zookeeper", "", "ZooKeeper connect string host:port[,host:port…][/chroot] (env "+envZookeeper+")")
	pf.BoolVar(&f.readOnly, "read-only", false, "never write to ZooKeeper")
	pf.StringVar(&f.digest, "zk-digest", "", "ZooKeeper digest authentication, user:password")
	pf.DurationVar(&f.sessionTimeout, "session-timeout", zkwatch.DefaultSessionTimeout, "ZooKeeper session timeout")
	pf.DurationVar(&f.requestTimeout, "request-timeout", zkwatch.DefaultRequestTimeout, "deadline for connecting and for every ZooKeeper request")
}

// connectString returns --zookeeper, else $KTOPO_ZOOKEEPER, else "".
func (f *connFlags) connectString() string {
	if f.zookeeper != "" {
		return f.zookeeper
	}
	return os.Getenv(envZookeeper)
}

// target applies --context (once): the context's connect string, digest,
// session timeout and read-only setting, unless given as flags.
func (f *connFlags) target() (target, error) {
	if f.resolved != nil {
		return *f.resolved, nil
	}
	t := target{readOnly: f.readOnly, connect: f.connectString()}
	if f.contextName != "" {
		changed := func(name string) bool { return f.flags != nil && f.flags.Changed(name) }
		if changed("zookeeper") {
			return t, errors.New("--zookeeper and --context name two clusters: give one of them")
		}
		file, err := config.Load(config.Path())
		if err != nil {
			return t, err
		}
		ctx, err := file.Context(f.contextName)
		if err != nil {
			return t, err
		}
		f.zookeeper = ctx.Zookeeper
		if !changed("zk-digest") && ctx.Digest != "" {
			f.digest = ctx.Digest
		}
		if !changed("session-timeout") && ctx.SessionTimeout > 0 {
			f.sessionTimeout = ctx.SessionTimeout
		}
		f.readOnly = f.readOnly || ctx.ReadOnly
		t = target{connect: ctx.Zookeeper, context: f.contextName, readOnly: f.readOnly, production: ctx.Production}
	}
	f.resolved = &t
	return t, nil
}

// connect opens a session with the cluster named by --zookeeper (or
// $KTOPO_ZOOKEEPER, or --context).
func (f *connFlags) connect(ctx context.Context) (*zkwatch.Conn, error) {
	t, err := f.target()
	if err != nil {
		return nil, err
	}
	cs := t.connect
	if cs == "" {
		return nil, fmt.Errorf("no cluster given: use --zookeeper host:port[/chroot], --context NAME or set %s", envZookeeper)
	}
	return zkwatch.Connect(ctx, cs, zkwatch.Options{
		SessionTimeout: f.sessionTimeout,
		ConnectTimeout: f.requestTimeout,
		RequestTimeout: f.requestTimeout,
		Digest:         f.digest,
		ReadOnly:       f.readOnly,
		Logger:         zkLogger(),
	})
}

// watch connects and starts a live mirror of the cluster; close ends both.
func (f *connFlags) watch(ctx context.Context) (w *clusterwatch.Watch, conn *zkwatch.Conn, close func(), err error) {
	conn, err = f.connect(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	w, err = clusterwatch.Open(conn, cluster.ModelOptions{}, zkwatch.MirrorOptions{})
	if err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	return w, conn, func() { w.Close(); conn.Close() }, nil
}

// watchLoaded is watch for a command that writes and then follows the
// cluster: the mirror loaded (a lost connection fails it after the request
// timeout), its first snapshot, undecodable znodes reported on stderr.
func (f *connFlags) watchLoaded(c *cobra.Command) (*clusterwatch.Watch, *zkwatch.Conn, *cluster.Snapshot, func(), error) {
	ctx := c.Context()
	w, conn, closeWatch, err := f.watch(ctx)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	w.LostAfter = f.requestTimeout
	if _, err := w.Loaded(ctx); err != nil {
		closeWatch()
		return nil, nil, nil, nil, err
	}
	snap := w.Model.Snapshot()
	render.WriteNodeErrors(c.ErrOrStderr(), snap)
	return w, conn, snap, closeWatch, nil
}

// checkOutput validates an --output value.
func checkOutput(output string) error {
	if output != "text" && output != "json" {
		return fmt.Errorf("invalid --output %q: want text or json", output)
	}
	return nil
}

// LogPath is where ktopo writes its log (go-zookeeper's lines among them):
// $KTOPO_LOG, else $XDG_STATE_HOME/ktopo/ktopo.log, else
// ~/.local/state/ktopo/ktopo.log. Never the terminal.
func LogPath() string {
	if p := os.Getenv("KTOPO_LOG"); p != "" {
		return p
	}
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return filepath.Join(os.TempDir(), "ktopo.log")
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "ktopo", "ktopo.log")
}

// zkLogger appends go-zookeeper's log to the log file (discarding it when
// the file cannot be opened: it must never reach the terminal).
func zkLogger() *log.Logger {
	return log.New(openLog(), "zookeeper: ", log.LstdFlags|log.Lmicroseconds)
}

// openLog opens the log file once per process.
var openLog = sync.OnceValue(func() io.Writer {
	p := LogPath()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return io.Discard
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return io.Discard
	}
	return f
})
