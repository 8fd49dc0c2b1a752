// Command kafka-cluster runs a real Kafka cluster on loopback, for
// pointing ktopo at real brokers by hand: in ZooKeeper mode (the default),
// in KRaft mode, or a ZooKeeper-mode cluster to migrate to KRaft step by
// step:
//
//	go run ./internal/testkit/kafkatest/kafka-cluster                 # Kafka 3.9, 3 brokers, its own ZooKeeper
//	go run ./internal/testkit/kafkatest/kafka-cluster --kafka 2.8 --brokers 4 --racks 2
//	go run ./internal/testkit/kafkatest/kafka-cluster --zookeeper 127.0.0.1:2181/kafka
//	go run ./internal/testkit/kafkatest/kafka-cluster --kraft                      # Kafka 4.4: 3 controllers, 3 brokers
//	go run ./internal/testkit/kafkatest/kafka-cluster --kraft --combined           # one node, broker and controller
//	go run ./internal/testkit/kafkatest/kafka-cluster --kraft --kafka 3.9 --controllers 1 --brokers 3
//	go run ./internal/testkit/kafkatest/kafka-cluster --migration                  # 3.9 in ZooKeeper mode, to migrate
//	go run ./internal/testkit/kafkatest/kafka-cluster --fetch       # only fetch the jars (CI does)
//
// It prints the connect string to give ktopo (--zookeeper), the brokers'
// bootstrap list (and in KRaft mode the controllers'), then reads commands
// on standard input (kill N, stop N, start N, status; with --migration also
// the migration's steps: provision, enable, roll [N], finalize, abandon,
// stall, resume) until interrupted, when it stops every process. Without
// --zookeeper it starts an Apache ZooKeeper (scripts/zk-test-server;
// Debian's zookeeper package) or, when that is not installed, ktopo's
// embedded one (not in --kraft mode, which needs none).
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
	var version string
	flag.StringVar(&version, "kafka", "", "Kafka version: 4.4, 3.9, 2.8 or a full version such as "+kafkatest.Kafka39+" (default 3.9; 4.4 with --kraft)")
	flag.StringVar(&version, "version", "", "the same as --kafka")
	kraft := flag.Bool("kraft", false, "KRaft mode: controllers and brokers, no ZooKeeper")
	combined := flag.Bool("combined", false, "with --kraft: every node is broker and controller (process.roles=broker,controller); default one node")
	controllers := flag.Int("controllers", 0, "with --kraft: separate controllers, ids 3000.. (default 3); with --migration: the KRaft controllers (default 1)")
	migration := flag.Bool("migration", false, "a Kafka 3.9 cluster in ZooKeeper mode to migrate to KRaft step by step (commands on standard input)")
	brokers := flag.Int("brokers", 0, "number of brokers (ids 1..N; default 3, 1 with --combined)")
	racks := flag.Int("racks", 3, "racks rack-a, rack-b, … round-robin (-1: no racks)")
	connect := flag.String("zookeeper", "", "ZooKeeper connect string with a chroot (default: start one, chroot /kafka)")
	dir := flag.String("dir", "", "directory for the nodes' data and logs (default: a temporary one, removed on exit)")
	fetchOnly := flag.Bool("fetch", false, "only fetch every Kafka and ZooKeeper version the tests use into "+kafkatest.CacheDir()+", then exit")
	flag.Parse()
	if *fetchOnly {
		return fetchAll()
	}
	switch {
	case *combined && !*kraft:
		return errors.New("--combined is a KRaft topology: add --kraft")
	case *kraft && *migration:
		return errors.New("--kraft and --migration exclude each other (a migration starts in ZooKeeper mode)")
	case *kraft && *connect != "":
		return errors.New("--kraft runs no ZooKeeper: drop --zookeeper")
	}
	if version == "" {
		version = "3.9"
		if *kraft {
			version = "4.4"
		}
	}
	switch version {
	case "4.4":
		version = kafkatest.Kafka44
	case "3.9":
		version = kafkatest.Kafka39
	case "2.8":
		version = kafkatest.Kafka28
	}
	if *migration && version != kafkatest.Kafka39 {
		return fmt.Errorf("--migration runs Kafka %s (the last version with both modes), not %s", kafkatest.Kafka39, version)
	}
	kafkatest.ReapStale()
	defer kafkatest.StopAll() // the tool JVM that formatted the KRaft nodes, last
	var c cluster
	if *kraft {
		o := kafkatest.KRaftOptions{Version: version, Combined: *combined, Controllers: *controllers,
			Brokers: *brokers, Racks: *racks, Dir: *dir, SessionTimeout: 10 * time.Second}
		fmt.Printf("starting Kafka %s in KRaft mode: %s …\n", version, kraftTopology(o))
		k, err := kafkatest.StartKRaft(o)
		if err != nil {
			return err
		}
		defer k.Stop()
		fmt.Printf("ready: cluster id %s\nbootstrap servers: %s\ncontroller bootstrap: %s (--bootstrap-controller)\nquorum voters: %s\nlogs: %s\n",
			k.ClusterID(), k.Bootstrap(), k.ControllerBootstrap(), k.QuorumVoters(), k.Dir())
		c = kraftCluster{k}
	} else {
		if *connect == "" {
			addr, stop, err := startZooKeeper()
			if err != nil {
				return err
			}
			defer stop()
			*connect = addr + "/kafka"
		}
		if *migration {
			fmt.Printf("starting Kafka %s in ZooKeeper mode, to migrate: %d brokers on %s …\n", version, max(*brokers, 3), *connect)
			m, err := kafkatest.StartMigration(kafkatest.MigrationOptions{Connect: *connect, Brokers: *brokers, Racks: *racks,
				Controllers: *controllers, Dir: *dir, SessionTimeout: 10 * time.Second, Rolling: true})
			if err != nil {
				return err
			}
			defer m.Stop()
			fmt.Printf("ready: ktopo --zookeeper %s\nbootstrap servers: %s\ncontroller bootstrap (once provisioned): %s\nlogs: %s\n",
				m.Connect(), m.Bootstrap(), m.ControllerBootstrap(), m.Dir())
			c = migrationCluster{m}
		} else {
			fmt.Printf("starting Kafka %s: %d brokers on %s …\n", version, max(*brokers, 3), *connect)
			z, err := kafkatest.Start(kafkatest.Options{Version: version, Connect: *connect, Brokers: *brokers, Racks: *racks, Dir: *dir,
				SessionTimeout: 10 * time.Second})
			if err != nil {
				return err
			}
			defer z.Stop()
			fmt.Printf("ready: ktopo --zookeeper %s\nbootstrap servers: %s\nlogs: %s\n", z.Connect(), z.Bootstrap(), z.Dir())
			c = zkCluster{z}
		}
	}
	fmt.Println("commands: " + c.help() + "; ctrl+c stops the cluster")

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
			fmt.Println("stopping the cluster …")
			return nil
		case l := <-lines:
			if err := command(c, strings.Fields(l)); err != nil {
				fmt.Println(err)
			}
		}
	}
}

// cluster is what the command loop drives: any of the three rigs.
type cluster interface {
	nodes() []*kafkatest.Node
	status() error
	help() string
	// step runs a rig's own command (the migration's steps); false when
	// the command is not one.
	step(f []string) (bool, error)
}

type zkCluster struct{ c *kafkatest.Cluster }

func (z zkCluster) nodes() []*kafkatest.Node { return z.c.Nodes() }
func (z zkCluster) help() string             { return "kill N, stop N, start N, status" }
func (z zkCluster) step([]string) (bool, error) {
	return false, nil
}
func (z zkCluster) status() error {
	id, epoch, err := z.c.Controller()
	if err != nil {
		return err
	}
	fmt.Printf("controller: broker %d (epoch %d)\n", id, epoch)
	return nil
}

type kraftCluster struct{ c *kafkatest.KRaftCluster }

func (k kraftCluster) nodes() []*kafkatest.Node { return k.c.Nodes() }
func (k kraftCluster) help() string             { return "kill N, stop N, start N, status" }
func (k kraftCluster) step([]string) (bool, error) {
	return false, nil
}
func (k kraftCluster) status() error { return quorumStatus(k.c.Quorum()) }

func quorumStatus(q kafkatest.Quorum, err error) error {
	if err != nil {
		return err
	}
	fmt.Printf("quorum leader: controller %d (epoch %d), high watermark %d\n", q.LeaderID, q.LeaderEpoch, q.HighWatermark)
	return nil
}

type migrationCluster struct{ m *kafkatest.Migration }

func (m migrationCluster) nodes() []*kafkatest.Node { return m.m.Nodes() }
func (m migrationCluster) help() string {
	return "kill N, stop N, start N, status; provision, enable, roll [N], finalize, abandon, stall, resume"
}
func (m migrationCluster) status() error {
	fmt.Printf("phase: %s\n", m.m.Phase())
	if st, err := m.m.MigrationState(); err == nil {
		fmt.Printf("/migration: KRaft controller %d (epoch %d), metadata offset %d (epoch %d)\n",
			st.KRaftControllerID, st.KRaftControllerEpoch, st.KRaftMetadataOffset, st.KRaftMetadataEpoch)
	}
	if q, err := m.m.Quorum(); err == nil {
		return quorumStatus(q, nil)
	}
	return nil
}
func (m migrationCluster) step(f []string) (bool, error) {
	var err error
	switch f[0] {
	case "provision":
		err = m.m.ProvisionControllers()
	case "enable":
		err = m.m.EnableMigration()
	case "roll":
		if len(f) == 2 {
			id, aerr := strconv.Atoi(f[1])
			if aerr != nil {
				return true, fmt.Errorf("no broker %q", f[1])
			}
			err = m.m.RollBrokerToKRaft(id)
		} else {
			err = m.m.RollToKRaft()
		}
	case "finalize":
		err = m.m.Finalize()
	case "abandon":
		err = m.m.Abandon()
	case "stall":
		m.m.StallSync()
	case "resume":
		m.m.ResumeSync()
	default:
		return false, nil
	}
	if err == nil {
		fmt.Printf("%s done: phase %s\n", f[0], m.m.Phase())
	}
	return true, err
}

func command(c cluster, f []string) error {
	if len(f) == 0 {
		return nil
	}
	if ok, err := c.step(f); ok {
		return err
	}
	if f[0] == "status" {
		if err := c.status(); err != nil {
			return err
		}
		for _, n := range c.nodes() {
			state := "down"
			if n.Running() {
				state = "up"
			}
			addr := n.Addr()
			if addr == "" {
				addr = n.ControllerAddr()
			}
			fmt.Printf("%s (%s, %s) %s: %s\n", n.Name(), n.Role, n.Rack, addr, state)
		}
		return nil
	}
	if len(f) != 2 {
		return errors.New("commands: " + c.help())
	}
	id, err := strconv.Atoi(f[1])
	var n *kafkatest.Node
	for _, x := range c.nodes() {
		if x.ID == id {
			n = x
		}
	}
	if err != nil || n == nil {
		return fmt.Errorf("no node %q", f[1])
	}
	switch f[0] {
	case "kill":
		n.Kill()
	case "stop":
		n.Stop()
	case "start":
		if err := n.Start(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown command %q", f[0])
	}
	fmt.Printf("%s: %s done\n", n.Name(), f[0])
	return nil
}

// fetchAll fetches what the real-Kafka tests run, so that a failure to reach
// Maven Central shows up once, before the tests.
func fetchAll() error {
	for _, v := range []string{kafkatest.Kafka44, kafkatest.Kafka39, kafkatest.Kafka28} {
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

// kraftTopology says what a KRaft cluster of these options runs: "1
// controller and 4 brokers", "3 combined nodes".
func kraftTopology(o kafkatest.KRaftOptions) string {
	controllers, brokers := o.Nodes()
	if o.Combined {
		return plural(brokers, "combined node")
	}
	return plural(controllers, "controller") + " and " + plural(brokers, "broker")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
