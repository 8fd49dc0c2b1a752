package kafkatest

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Result is what one run of a Kafka command-line tool printed.
type Result struct {
	Stdout string
	Stderr string
	Code   int // exit status
}

// Run runs a Kafka tool's main class with the dist's jars as a process of
// its own, as Kafka's bin/kafka-run-class.sh does, logging warnings and
// errors to stderr (Kafka's tools-log4j.properties level). Tool runs the
// same in a long-lived JVM, much faster.
func (d *Dist) Run(mainClass string, args ...string) (Result, error) {
	jargs := append(jvmArgs("256m"),
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-cp", d.Classpath(), mainClass)
	cmd := exec.Command("java", append(jargs, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	case err != nil:
		return r, err
	}
	return r, nil
}

// toolClasses are the main classes of Kafka's bin/*.sh scripts, newest
// first: Kafka moved its tools from kafka.admin and kafka.tools (Scala,
// the core jar) to org.apache.kafka.tools (Java, kafka-tools) over 3.x and
// 4.0. A version's script runs the first class its jars hold (3.9 still
// ships some old classes beside the new ones, and its scripts run the
// new ones, as the first class found here does).
var toolClasses = map[string][]string{
	"kafka-acls":                       {"org.apache.kafka.tools.AclCommand", "kafka.admin.AclCommand"},
	"kafka-broker-api-versions":        {"org.apache.kafka.tools.BrokerApiVersionsCommand", "kafka.admin.BrokerApiVersionsCommand"},
	"kafka-client-metrics":             {"org.apache.kafka.tools.ClientMetricsCommand"},
	"kafka-cluster":                    {"org.apache.kafka.tools.ClusterTool", "kafka.tools.ClusterTool"},
	"kafka-configs":                    {"org.apache.kafka.tools.ConfigCommand", "kafka.admin.ConfigCommand"},
	"kafka-console-consumer":           {"org.apache.kafka.tools.consumer.ConsoleConsumer", "kafka.tools.ConsoleConsumer"},
	"kafka-console-producer":           {"org.apache.kafka.tools.ConsoleProducer", "kafka.tools.ConsoleProducer"},
	"kafka-consumer-groups":            {"org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "kafka.admin.ConsumerGroupCommand"},
	"kafka-delegation-tokens":          {"org.apache.kafka.tools.DelegationTokenCommand", "kafka.admin.DelegationTokenCommand"},
	"kafka-delete-records":             {"org.apache.kafka.tools.DeleteRecordsCommand", "kafka.admin.DeleteRecordsCommand"},
	"kafka-dump-log":                   {"org.apache.kafka.tools.DumpLogSegments", "kafka.tools.DumpLogSegments"},
	"kafka-features":                   {"org.apache.kafka.tools.FeatureCommand", "kafka.admin.FeatureCommand"},
	"kafka-get-offsets":                {"org.apache.kafka.tools.GetOffsetShell", "kafka.tools.GetOffsetShell"},
	"kafka-leader-election":            {"org.apache.kafka.tools.LeaderElectionCommand", "kafka.admin.LeaderElectionCommand"},
	"kafka-log-dirs":                   {"org.apache.kafka.tools.LogDirsCommand", "kafka.admin.LogDirsCommand"},
	"kafka-metadata-quorum":            {"org.apache.kafka.tools.MetadataQuorumCommand"},
	"kafka-preferred-replica-election": {"kafka.admin.PreferredReplicaLeaderElectionCommand"},
	"kafka-reassign-partitions":        {"org.apache.kafka.tools.reassign.ReassignPartitionsCommand", "kafka.admin.ReassignPartitionsCommand"},
	"kafka-storage":                    {"kafka.tools.StorageTool"},
	"kafka-topics":                     {"org.apache.kafka.tools.TopicCommand", "kafka.admin.TopicCommand"},
	"kafka-transactions":               {"org.apache.kafka.tools.TransactionsCommand"},
}

// ToolClass returns the main class Kafka's bin/<script>.sh runs in this
// version ("kafka-topics", "kafka-configs", "kafka-metadata-quorum", …;
// a trailing ".sh" is allowed), or an error naming what is missing.
func (d *Dist) ToolClass(script string) (string, error) {
	script = strings.TrimSuffix(script, ".sh")
	cands, ok := toolClasses[script]
	if !ok {
		return "", fmt.Errorf("kafkatest: no Kafka tool %q known (known: %s)", script, strings.Join(slices.Sorted(maps.Keys(toolClasses)), ", "))
	}
	have, err := d.classes()
	if err != nil {
		return "", err
	}
	for _, c := range cands {
		if have[c] {
			return c, nil
		}
	}
	return "", fmt.Errorf("kafkatest: Kafka %s has no %s (none of %s in its jars)", d.Version, script, strings.Join(cands, ", "))
}

// Command runs Kafka's bin/<script>.sh of this version (its main class,
// ToolClass) in the dist's tool JVM, as Tool does.
func (d *Dist) Command(script string, args ...string) (Result, error) {
	class, err := d.ToolClass(script)
	if err != nil {
		return Result{}, err
	}
	return d.Tool(class, args...)
}

var distClasses sync.Map // libs dir → map[string]bool of the tool classes present

// classes returns which of the tools' main classes the dist's jars hold.
func (d *Dist) classes() (map[string]bool, error) {
	if m, ok := distClasses.Load(d.Libs); ok {
		return m.(map[string]bool), nil
	}
	want := map[string]bool{}
	for _, cs := range toolClasses {
		for _, c := range cs {
			want[strings.ReplaceAll(c, ".", "/")+".class"] = true
		}
	}
	jars, err := filepath.Glob(filepath.Join(d.Libs, "*.jar"))
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, j := range jars {
		zr, err := zip.OpenReader(j)
		if err != nil {
			return nil, fmt.Errorf("kafkatest: %s: %w", j, err)
		}
		for _, f := range zr.File {
			if want[f.Name] {
				have[strings.ReplaceAll(strings.TrimSuffix(f.Name, ".class"), "/", ".")] = true
			}
		}
		zr.Close()
	}
	distClasses.Store(d.Libs, have)
	return have, nil
}

// TopicCommand is kafka-topics.sh's main class for the version.
func (d *Dist) TopicCommand() string {
	if d.Major28() {
		return "kafka.admin.TopicCommand"
	}
	return "org.apache.kafka.tools.TopicCommand"
}

// Topics runs kafka-topics.sh against the cluster the way its version
// allows: 2.x with --zookeeper, 3.x with --bootstrap-server.
func (c *Cluster) Topics(args ...string) (Result, error) {
	if c.dist.Major28() {
		return c.TopicsZK(c.dist, args...)
	}
	return c.dist.Tool(c.dist.TopicCommand(), append([]string{"--bootstrap-server", c.Bootstrap()}, args...)...)
}

// TopicsZK runs a 2.x dist's kafka-topics.sh --zookeeper against the
// cluster's ZooKeeper (its connect string with the chroot).
func (c *Cluster) TopicsZK(d *Dist, args ...string) (Result, error) {
	return d.Tool(d.TopicCommand(), append([]string{"--zookeeper", c.Connect()}, args...)...)
}

// ToolError returns the message of kafka-topics' "Error while executing
// topic command : <message>" line on stdout ("" if none).
func ToolError(r Result) string {
	const prefix = "Error while executing topic command : "
	for _, l := range strings.Split(r.Stdout, "\n") {
		if m, ok := strings.CutPrefix(l, prefix); ok {
			return m
		}
	}
	return ""
}
