package kafkatest

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
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
