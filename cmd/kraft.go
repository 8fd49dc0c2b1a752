package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/kafkawatch"
)

// A KRaft cluster (--bootstrap-server, or a context's bootstrap-server)
// is read over the Kafka protocol (package kafkawatch) into the same model
// as a ZooKeeper cluster: the read-only commands work alike. ktopo does
// not write to a KRaft cluster yet: every write, and every dry run of
// one, is refused up front (kraftWriteRefusal).

// dial is how to reach the KRaft cluster of the target.
func (f *connFlags) dial() (kafkawatch.Dial, error) {
	t, err := f.target()
	if err != nil {
		return kafkawatch.Dial{}, err
	}
	d := kafkawatch.Dial{Bootstrap: kafkawatch.SplitBootstrap(t.connect), Logger: kafkaLogger()}
	if d.Security, err = security(t.commandConfig, d.Logger); err != nil {
		return d, err
	}
	if f.flags != nil && f.flags.Changed("request-timeout") {
		d.RequestTimeout = f.requestTimeout
	}
	if len(d.Bootstrap) == 0 {
		return d, errors.New("no bootstrap server given: --bootstrap-server host:port[,host:port…]")
	}
	return d, nil
}

// security reads a --command-config file (none: plaintext), noting on
// logger the properties ktopo does not use.
func security(commandConfig string, logger *log.Logger) (kafkawatch.Security, error) {
	if commandConfig == "" {
		return kafkawatch.Security{}, nil
	}
	p, err := kafkawatch.ReadProperties(commandConfig)
	if err != nil {
		return kafkawatch.Security{}, fmt.Errorf("--command-config: %w", err)
	}
	sec, err := kafkawatch.ClientConfig(p)
	if err != nil {
		return sec, fmt.Errorf("--command-config %w", err)
	}
	if len(sec.Ignored) > 0 {
		logger.Printf("%s: not used by ktopo: %s", commandConfig, strings.Join(sec.Ignored, ", "))
	}
	return sec, nil
}

// kafkaLogger appends franz-go's warnings and the poller's notes to the
// log file.
func kafkaLogger() *log.Logger {
	return log.New(openLog(), "kafka: ", log.LstdFlags|log.Lmicroseconds)
}

// propertiesHoldSecrets reports whether a client properties file holds a
// password (a SASL login's, a key store's).
func propertiesHoldSecrets(path string) bool {
	p, err := kafkawatch.ReadProperties(path)
	if err != nil {
		return false
	}
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		if strings.Contains(k, "password") || k == "sasl.jaas.config" && strings.Contains(v, "password") || k == "ssl.keystore.key" {
			return true
		}
	}
	return false
}

// kraftWriteRefusal is what every command that writes says on a KRaft
// cluster (its dry run too: it checks a write ktopo cannot make there).
func kraftWriteRefusal(what string) error {
	return fmt.Errorf("refusing to %s: ktopo does not write to KRaft clusters yet (it reads them: topics list and describe, brokers, plan, events, reassign --list, --generate and --verify); Kafka's own tools with --bootstrap-server make this change meanwhile", what)
}

// loadKRaft reads a KRaft cluster once.
func (f *connFlags) loadKRaft(ctx context.Context) (*cluster.Snapshot, error) {
	d, err := f.dial()
	if err != nil {
		return nil, err
	}
	t, _ := f.target()
	f.warn(t)
	return kafkawatch.Load(ctx, d, cluster.ModelOptions{}, d.Logger)
}

// watchKRaft follows a KRaft cluster: a poller every --poll-interval.
func (f *connFlags) watchKRaft() (*clusterwatch.Watch, func(), error) {
	d, err := f.dial()
	if err != nil {
		return nil, nil, err
	}
	t, _ := f.target()
	f.warn(t)
	p, err := kafkawatch.Start(d, kafkawatch.Options{Interval: f.pollInterval, Logger: d.Logger})
	if err != nil {
		return nil, nil, err
	}
	w := clusterwatch.NewWatch(p, cluster.ModelOptions{})
	return w, func() { p.Close() }, nil
}

// snapshotConfigs reads the config znodes of a KRaft cluster's snapshot
// (its topics' overrides and its dynamic broker configs), for the plans
// that read them.
type snapshotConfigs struct{ s *cluster.Snapshot }

func (g snapshotConfigs) Get(path string) ([]byte, *zk.Stat, error) {
	switch info := cluster.ParsePath(path); {
	case info.Kind == cluster.KindTopicConfig:
		if t := g.s.Topic(info.Topic); t != nil && t.HasConfig {
			return cluster.EncodeEntityConfigEntries(t.Config), &zk.Stat{Version: t.ConfigVersion}, nil
		}
	case strings.HasPrefix(path, cluster.ConfigBrokersPath+"/"):
		if entries, ok := g.s.BrokerConfig(strings.TrimPrefix(path, cluster.ConfigBrokersPath+"/")); ok {
			return cluster.EncodeEntityConfigEntries(entries), &zk.Stat{}, nil
		}
	}
	return nil, nil, zk.ErrNoNode
}

// kraftThrottles is --verify's end on a KRaft cluster: Kafka's messages
// when no throttle is left to remove, else a refusal to remove them (a
// write); while a reassignment runs, the throttles it still needs named.
func kraftThrottles(out io.Writer, s *cluster.Snapshot, rs []cluster.Reassignment, ongoing bool) error {
	if ongoing {
		left, err := clusterops.ThrottlesLeft(s, snapshotConfigs{s}, rs)
		if err != nil {
			return err
		}
		if len(left) > 0 {
			fmt.Fprintf(out, "Throttles remain on %s: --verify removes them once no reassignment runs in the cluster.\n", strings.Join(left, ", "))
		}
		return nil
	}
	clear, err := clusterops.PlanThrottleClear(s, snapshotConfigs{s}, rs)
	if err != nil {
		return err
	}
	if len(clear.Changes) > 0 {
		left, _ := clusterops.ThrottlesLeft(s, snapshotConfigs{s}, rs)
		return fmt.Errorf("the throttles on %s are left: %w", strings.Join(left, ", "), kraftWriteRefusal("remove them"))
	}
	// Kafka's --bootstrap-server --verify: a blank line, then its two.
	fmt.Fprintln(out)
	fmt.Fprintln(out, clear.BrokersMessage())
	fmt.Fprintln(out, clear.TopicsMessage())
	return nil
}
