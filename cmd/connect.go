package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ktopo/ktopo/internal/config"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/zkwatch"
)

// connFlags are the root's persistent connection flags.
type connFlags struct {
	contextName    string
	zookeeper      string
	readOnly       bool
	digest         string
	tls            zkwatch.TLSFiles
	sessionTimeout time.Duration
	requestTimeout time.Duration
	// bootstrap and commandConfig name a KRaft cluster (Kafka's own flag
	// names); pollInterval is how often it is polled.
	bootstrap     string
	commandConfig string
	pollInterval  time.Duration

	// acceptMigrationWarning confirms a migration warning (migrationguard.go).
	acceptMigrationWarning bool
	// kraftSide is set by the commands that reach a migration's KRaft
	// side beside its ZooKeeper (--bootstrap-controller, migration's
	// --bootstrap-server): --command-config then secures that side.
	kraftSide bool
	// sizesSide is set by what reads the brokers' sizes (--sizes, the
	// TUI, reassign): in ZooKeeper mode --command-config then secures the
	// Kafka-protocol connections to the brokers, on --sizes-listener.
	sizesSide     bool
	sizesListener string

	flags    *pflag.FlagSet // the root's persistent flags, to tell given from default
	resolved *target        // --context applied (once)
	stderr   io.Writer      // where warnings go (the command's standard error)
	warned   bool
}

// target is the cluster a command works on.
type target struct {
	// connect is the ZooKeeper connect string, or a KRaft cluster's
	// bootstrap servers when kraft is set.
	connect string
	kraft   bool
	// commandConfig is the KRaft cluster's client properties file.
	commandConfig string
	context       string
	readOnly      bool
	production    bool
	// readOnlyBy says what made it read-only ("--read-only", "context
	// prod"), for the refusal message.
	readOnlyBy string
	// warnings about secrets: a contexts file or key file others may read,
	// a password on the command line.
	warnings []string
}

// scrub is set by Main: the arguments are the process's own, so a
// password among them can be overwritten (scrubArgs).
var scrub bool

// Environment variables of the connection flags (not used by sandbox).
const (
	// envZookeeper stands for --zookeeper.
	envZookeeper = "KTOPO_ZOOKEEPER"
	// envDigest stands for --zk-digest (user:password) where neither the
	// flag nor a context gives one: unlike a flag, it is not in the
	// process's arguments, which every user of the machine can read.
	envDigest = "KTOPO_ZK_DIGEST"
	// envBootstrap stands for --bootstrap-server.
	envBootstrap = "KTOPO_BOOTSTRAP_SERVER"
)

// zkOnlyFlags are the connection flags that only mean something for a
// ZooKeeper connection.
var zkOnlyFlags = []string{"zk-digest", "zk-tls-ca", "zk-tls-cert", "zk-tls-key", "session-timeout"}

func (f *connFlags) register(c *cobra.Command) {
	pf := c.PersistentFlags()
	f.flags = pf
	pf.StringVar(&f.contextName, "context", "", "use the named cluster of "+displayPath(config.Path()))
	pf.StringVar(&f.zookeeper, "zookeeper", "", "ZooKeeper connect string host:port[,host:port…][/chroot] (env "+envZookeeper+")")
	pf.BoolVar(&f.readOnly, "read-only", false, "never write to the cluster")
	pf.BoolVar(&f.acceptMigrationWarning, flagAcceptMigrationWarning, false, "write through ZooKeeper while a ZooKeeper to KRaft migration is being prepared, without asking (never once a KRaft controller owns the cluster)")
	pf.StringVar(&f.digest, "zk-digest", "", "ZooKeeper digest authentication, user:password (visible to every user in ps: prefer $"+envDigest+" or a context's digest)")
	pf.StringVar(&f.tls.CA, "zk-tls-ca", "", "TLS to ZooKeeper's secureClientPort: PEM file of the CA(s) that sign the servers' certificates (default: the system's)")
	pf.StringVar(&f.tls.Cert, "zk-tls-cert", "", "TLS client certificate (PEM, with its chain) for ZooKeeper's x509 authentication; its subject is the session's x509 ACL id")
	pf.StringVar(&f.tls.Key, "zk-tls-key", "", "private key (PEM, unencrypted) of --zk-tls-cert (default: the certificate file itself)")
	pf.DurationVar(&f.sessionTimeout, "session-timeout", zkwatch.DefaultSessionTimeout, "ZooKeeper session timeout")
	pf.DurationVar(&f.requestTimeout, "request-timeout", zkwatch.DefaultRequestTimeout, "deadline for connecting and for every ZooKeeper request (for a KRaft cluster, every poll)")
	pf.StringVar(&f.bootstrap, "bootstrap-server", "", "a KRaft cluster's brokers host:port[,host:port…], read over the Kafka protocol (env "+envBootstrap+")")
	pf.StringVar(&f.commandConfig, "command-config", "", "with --bootstrap-server: a Kafka client properties file (security.protocol, ssl.*, sasl.mechanism, sasl.jaas.config), as Kafka's tools take it")
	pf.StringVar(&f.sizesListener, "sizes-listener", "", "with --zookeeper: the brokers' listener (by name) to read their log directories' sizes through (default: their only listener, else the one whose security protocol is --command-config's security.protocol, else PLAINTEXT)")
	pf.DurationVar(&f.pollInterval, "poll-interval", kafkawatch.DefaultInterval, "with --bootstrap-server: how often the TUI and ktopo events poll the cluster")
}

// connectString returns the cluster named by the flags, else by the
// environment: --zookeeper or --bootstrap-server (kraft), else
// $KTOPO_ZOOKEEPER or $KTOPO_BOOTSTRAP_SERVER; "" when none.
func (f *connFlags) connectString() (cs string, kraft bool, err error) {
	switch {
	case f.zookeeper != "" && f.bootstrap != "":
		return "", false, errors.New("--zookeeper and --bootstrap-server name two clusters: give one of them (--bootstrap-server for a KRaft cluster)")
	case f.zookeeper != "":
		return f.zookeeper, false, nil
	case f.bootstrap != "":
		return f.bootstrap, true, nil
	}
	zkEnv, kEnv := os.Getenv(envZookeeper), os.Getenv(envBootstrap)
	switch {
	case zkEnv != "" && kEnv != "":
		return "", false, fmt.Errorf("$%s and $%s are both set: unset one, or give --zookeeper or --bootstrap-server", envZookeeper, envBootstrap)
	case kEnv != "":
		return kEnv, true, nil
	}
	return zkEnv, false, nil
}

// target applies --context (once): the context's connect string, digest,
// TLS files, session timeout and read-only setting, unless given as flags.
// The digest comes from --zk-digest, else the context, else
// $KTOPO_ZK_DIGEST.
func (f *connFlags) target() (target, error) {
	if f.resolved != nil {
		return *f.resolved, nil
	}
	changed := func(name string) bool { return f.flags != nil && f.flags.Changed(name) }
	cs, kraft, err := f.connectString()
	if err != nil {
		return target{}, err
	}
	t := target{readOnly: f.readOnly, connect: cs, kraft: kraft, commandConfig: f.commandConfig}
	if f.readOnly {
		t.readOnlyBy = "--read-only"
	}
	if changed("zk-digest") && f.digest != "" {
		t.warnings = append(t.warnings, "warning: a password given with --zk-digest is visible to every user of this machine (ps) until ktopo hides it, and stays in the shell's history: use $"+envDigest+" or a context's digest")
	}
	if f.contextName != "" {
		for _, flag := range []string{"zookeeper", "bootstrap-server"} {
			if changed(flag) {
				return t, fmt.Errorf("--%s and --context name two clusters: give one of them", flag)
			}
		}
		file, err := config.Load(config.Path())
		if err != nil {
			return t, err
		}
		ctx, err := file.Context(f.contextName)
		if err != nil {
			return t, err
		}
		if w := file.Permissions(); w != "" {
			t.warnings = append(t.warnings, w)
		}
		f.zookeeper = ctx.Zookeeper
		if !changed("zk-digest") && ctx.Digest != "" {
			f.digest = ctx.Digest
		}
		for _, x := range []struct {
			flag    string
			dst     *string
			fromCtx string
		}{{"zk-tls-ca", &f.tls.CA, ctx.TLSCA}, {"zk-tls-cert", &f.tls.Cert, ctx.TLSCert}, {"zk-tls-key", &f.tls.Key, ctx.TLSKey}} {
			if !changed(x.flag) && x.fromCtx != "" {
				*x.dst = x.fromCtx
			}
		}
		if !changed("session-timeout") && ctx.SessionTimeout > 0 {
			f.sessionTimeout = ctx.SessionTimeout
		}
		if ctx.ReadOnly && !f.readOnly {
			t.readOnlyBy = "context " + f.contextName
		}
		f.readOnly = f.readOnly || ctx.ReadOnly
		t = target{connect: ctx.Zookeeper, context: f.contextName, readOnly: f.readOnly, production: ctx.Production,
			readOnlyBy: t.readOnlyBy, warnings: t.warnings}
		if ctx.BootstrapServer != "" {
			t.connect, t.kraft = ctx.BootstrapServer, true
			t.commandConfig = ctx.CommandConfig
			if changed("command-config") {
				t.commandConfig = f.commandConfig
			}
		}
	}
	if t.kraft {
		for _, flag := range zkOnlyFlags {
			if changed(flag) {
				return t, fmt.Errorf("--%s is for a ZooKeeper connection; a KRaft cluster's TLS and SASL settings go in --command-config's properties file", flag)
			}
		}
		if changed("sizes-listener") {
			// A KRaft session reads the sizes through the brokers its
			// --bootstrap-server reaches, on that listener.
			return t, errors.New("--sizes-listener is for a ZooKeeper connection: a KRaft cluster's sizes are read through --bootstrap-server's listener")
		}
		if t.commandConfig != "" && propertiesHoldSecrets(t.commandConfig) {
			if w := config.Exposed(t.commandConfig, "holds a password"); w != "" {
				t.warnings = append(t.warnings, w)
			}
		}
		f.resolved = &t
		return t, nil
	}
	if changed("command-config") && !f.kraftSide && !f.sizesSide {
		return t, errors.New("--command-config is for a KRaft cluster, with --bootstrap-server (or a migration's KRaft side, with --bootstrap-controller, or the brokers' sizes, with --sizes)")
	}
	if f.digest == "" {
		f.digest = os.Getenv(envDigest)
	}
	if key := cmpOr(f.tls.Key, f.tls.Cert); key != "" {
		if w := config.Exposed(key, "holds the TLS private key"); w != "" {
			t.warnings = append(t.warnings, w)
		}
	}
	f.resolved = &t
	return t, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// hideDigest runs once the flags are parsed, before any command: it
// overwrites a --zk-digest password in the process's arguments
// (scrubArgs), keeping a copy, since the flag's value shares its bytes.
func (f *connFlags) hideDigest() {
	if f.flags == nil || !f.flags.Changed("zk-digest") || f.digest == "" {
		return
	}
	f.digest = strings.Clone(f.digest)
	if scrub {
		scrubArgs(f.digest)
	}
}

// warn prints the target's warnings on the command's standard error, once.
func (f *connFlags) warn(t target) {
	if f.warned || f.stderr == nil {
		return
	}
	f.warned = true
	for _, w := range t.warnings {
		fmt.Fprintln(f.stderr, w)
	}
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
		return nil, fmt.Errorf("no cluster given: use --zookeeper host:port[/chroot] (--bootstrap-server host:port for a KRaft cluster), --context NAME or set %s", envZookeeper)
	}
	if t.kraft {
		return nil, errors.New("this needs a ZooKeeper-mode cluster (--zookeeper): " + cs + " is a KRaft cluster's brokers")
	}
	f.warn(t)
	opts := zkwatch.Options{
		SessionTimeout: f.sessionTimeout,
		ConnectTimeout: f.requestTimeout,
		RequestTimeout: f.requestTimeout,
		Digest:         f.digest,
		ReadOnly:       f.readOnly,
		Logger:         zkLogger(),
		Probe:          notZooKeeper,
	}
	if !f.tls.Empty() {
		if opts.TLS, err = f.tls.Config(); err != nil {
			return nil, tlsFlagErr(err)
		}
	}
	return zkwatch.Connect(ctx, cs, opts)
}

// tlsFlagErr names the flags behind a TLS file error.
func tlsFlagErr(err error) error {
	return fmt.Errorf("%w (--zk-tls-ca, --zk-tls-cert, --zk-tls-key or the context's zk-tls-* keys)", err)
}

// requestTimeoutOr is --request-timeout when given, else def.
func (f *connFlags) requestTimeoutOr(def time.Duration) time.Duration {
	if f.flags != nil && f.flags.Changed("request-timeout") {
		return f.requestTimeout
	}
	return def
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
