// Command kafka-cluster runs a real Kafka cluster in ZooKeeper mode on
// loopback, for pointing ktopo at real brokers by hand:
//
//	go run ./internal/testkit/kafkatest/kafka-cluster                 # Kafka 3.9, 3 brokers, its own ZooKeeper
//	go run ./internal/testkit/kafkatest/kafka-cluster --kafka 2.8 --brokers 4 --racks 2
//	go run ./internal/testkit/kafkatest/kafka-cluster --zookeeper 127.0.0.1:2181/kafka
//	go run ./internal/testkit/kafkatest/kafka-cluster --fetch       # only fetch the jars (CI does)
//
// It prints the connect string to give ktopo (--zookeeper) and the brokers'
// bootstrap list, then reads commands on standard input (kill N, stop N,
// start N, status) until interrupted, when it stops the brokers. Without
// --zookeeper it starts an Apache ZooKeeper (scripts/zk-test-server; Debian's
// zookeeper package) or, when that is not installed, ktopo's embedded one.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kafka-cluster:", err)
		os.Exit(1)
	}
}

func run() error {
	version := flag.String("kafka", "3.9", "Kafka version: 3.9, 2.8 or a full version such as "+kafkatest.Kafka39)
	brokers := flag.Int("brokers", 3, "number of brokers (ids 1..N)")
	racks := flag.Int("racks", 3, "racks rack-a, rack-b, … round-robin (-1: no racks)")
	connect := flag.String("zookeeper", "", "ZooKeeper connect string with a chroot (default: start one, chroot /kafka)")
	dir := flag.String("dir", "", "directory for the brokers' data and logs (default: a temporary one, removed on exit)")
	fetchOnly := flag.Bool("fetch", false, "only fetch every Kafka and ZooKeeper version the tests use into "+kafkatest.CacheDir()+", then exit")
	flag.Parse()
	if *fetchOnly {
		return fetchAll()
	}
	switch *version {
	case "3.9":
		*version = kafkatest.Kafka39
	case "2.8":
		*version = kafkatest.Kafka28
	}
	kafkatest.ReapStale()
	if *connect == "" {
		addr, stop, err := startZooKeeper()
		if err != nil {
			return err
		}
		defer stop()
		*connect = addr + "/kafka"
	}
	fmt.Printf("starting Kafka %s: %d brokers on %s …\n", *version, *brokers, *connect)
	c, err := kafkatest.Start(kafkatest.Options{Version: *version, Connect: *connect, Brokers: *brokers, Racks: *racks, Dir: *dir,
		SessionTimeout: 10 * time.Second})
	if err != nil {
		return err
	}
	defer c.Stop()
	fmt.Printf("ready: ktopo --zookeeper %s\nbootstrap servers: %s\nlogs: %s\n", c.Connect(), c.Bootstrap(), c.Dir())
	fmt.Println(`commands: kill N, stop N, start N, status; ctrl+c stops the cluster`)

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			fmt.Println("stopping the brokers …")
			return nil
		case l := <-lines:
			if err := command(c, strings.Fields(l)); err != nil {
				fmt.Println(err)
			}
		}
	}
}

func command(c *kafkatest.Cluster, f []string) error {
	if len(f) == 0 {
		return nil
	}
	if f[0] == "status" {
		id, epoch, err := c.Controller()
		if err != nil {
			return err
		}
		fmt.Printf("controller: broker %d (epoch %d)\n", id, epoch)
		for _, b := range c.Brokers() {
			state := "down"
			if b.Running() {
				state = "up"
			}
			fmt.Printf("broker %d (%s) %s: %s\n", b.ID, b.Rack, b.Addr(), state)
		}
		return nil
	}
	if len(f) != 2 {
		return errors.New("commands: kill N, stop N, start N, status")
	}
	id, err := strconv.Atoi(f[1])
	b := c.Broker(id)
	if err != nil || b == nil {
		return fmt.Errorf("no broker %q", f[1])
	}
	switch f[0] {
	case "kill":
		b.Kill()
	case "stop":
		b.Stop()
	case "start":
		if err := b.Start(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown command %q", f[0])
	}
	fmt.Printf("broker %d: %s done\n", id, f[0])
	return nil
}

// fetchAll fetches what the real-Kafka tests run, so that a failure to reach
// Maven Central shows up once, before the tests.
func fetchAll() error {
	for _, v := range []string{kafkatest.Kafka39, kafkatest.Kafka28} {
		d, err := kafkatest.FetchKafka(v)
		if err != nil {
			return err
		}
		fmt.Printf("Kafka %s: %s\n", v, d.Libs)
	}
	for _, v := range []string{kafkatest.ZooKeeper35, kafkatest.ZooKeeper39} {
		cp, err := kafkatest.FetchZooKeeper(v)
		if err != nil {
			return err
		}
		fmt.Printf("ZooKeeper %s: %s\n", v, cp)
	}
	return nil
}

// startZooKeeper starts Apache ZooKeeper, else the embedded server.
func startZooKeeper() (string, func(), error) {
	zktest.ReapStale()
	srv, err := zktest.Start(zktest.Options{})
	if err == nil {
		fmt.Printf("Apache ZooKeeper on %s\n", srv.Addr())
		return srv.Addr(), srv.Stop, nil
	}
	if !errors.Is(err, zktest.ErrNotInstalled) {
		return "", nil, err
	}
	es, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		return "", nil, err
	}
	fmt.Printf("Apache ZooKeeper is not installed; ktopo's embedded ZooKeeper on %s\n", es.Addr())
	return es.Addr(), func() { _ = es.Close() }, nil
}
