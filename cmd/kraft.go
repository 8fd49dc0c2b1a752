package cmd

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/kafkaops"
	"github.com/ktopo/ktopo/kafkawatch"
)

// A KRaft cluster (--bootstrap-server, or a context's bootstrap-server)
// is read over the Kafka protocol (package kafkawatch) into the same model
// as a ZooKeeper cluster, so the commands work alike; its writes go
// through Kafka's Admin API (package kafkaops, the Kafka side of
// clusterops.Writer).

// dial is how to reach the KRaft cluster of the target.
func (f *connFlags) dial() (kafkawatch.Dial, error) {
	t, err := f.target()
	if err != nil {
		return kafkawatch.Dial{}, err
	}
	d := kafkawatch.Dial{Logger: kafkaLogger()}
	if d.Bootstrap, err = kafkawatch.ParseBootstrap(t.connect); err != nil {
		return d, fmt.Errorf("--bootstrap-server: %w", err)
	}
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

// loadKRaft reads a KRaft cluster once.
func (f *connFlags) loadKRaft(ctx context.Context) (*cluster.Snapshot, error) {
	d, err := f.dial()
	if err != nil {
		return nil, err
	}
	t, _ := f.target()
	f.warn(t)
	s, err := kafkawatch.Load(ctx, d, cluster.ModelOptions{}, d.Logger)
	return s, d.Diagnose(ctx, err)
}

// watchKRaft follows a KRaft cluster: a poller every --poll-interval.
func (f *connFlags) watchKRaft() (*clusterwatch.Watch, *kafkawatch.Poller, func(), error) {
	d, err := f.dial()
	if err != nil {
		return nil, nil, nil, err
	}
	t, _ := f.target()
	f.warn(t)
	p, err := kafkawatch.Start(d, kafkawatch.Options{Interval: f.pollInterval, Logger: d.Logger})
	if err != nil {
		return nil, nil, nil, err
	}
	w := clusterwatch.NewWatch(p, cluster.ModelOptions{})
	return w, p, func() { p.Close() }, nil
}

// kafkaWriter is a writer to the KRaft cluster of the target with a
// client of its own (close closes it), for the commands that read the
// cluster once and then write.
func (f *connFlags) kafkaWriter() (clusterops.Writer, func(), error) {
	d, err := f.dial()
	if err != nil {
		return nil, nil, err
	}
	cl, err := kafkawatch.NewClient(d)
	if err != nil {
		return nil, nil, err
	}
	return kafkaops.New(cl, f.requestTimeoutOr(kafkaops.DefaultTimeout)), cl.Close, nil
}
