package cluster

import (
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

func TestMain(m *testing.M) {
	// Fuzzing (the coordinator and each worker process) needs no server.
	flag.Parse()
	if flag.Lookup("test.fuzz").Value.String() != "" || flag.Lookup("test.fuzzworker").Value.String() == "true" {
		os.Exit(m.Run())
	}
	zktest.Main(m)
}

// readShape reads, synchronously, what KafkaMirrorShape asks for under root
// and returns it as a reset batch with chroot-relative paths: a stand-in for
// the zkwatch mirror, to check the shape and the codecs against a real server.
func readShape(t *testing.T, conn *zk.Conn, root string) []NodeEvent {
	t.Helper()
	sh := KafkaMirrorShape()
	var evs []NodeEvent
	get := func(p string) {
		data, st, err := conn.Get(root + p)
		if errors.Is(err, zk.ErrNoNode) {
			return
		}
		if err != nil {
			t.Fatalf("get %s: %v", p, err)
		}
		evs = append(evs, NodeEvent{Type: NodeCreated, Path: p, Data: data, Stat: Stat(*st)})
		for _, d := range sh.Derive(p, data) {
			dd, dst, err := conn.Get(root + d)
			if err == nil {
				evs = append(evs, NodeEvent{Type: NodeCreated, Path: d, Data: dd, Stat: Stat(*dst)})
			}
		}
	}
	for _, c := range sh.Containers {
		children, _, err := conn.Children(root + c.Path)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			t.Fatalf("children %s: %v", c.Path, err)
		}
		for _, ch := range children {
			if c.ReadChildren {
				get(c.Path + "/" + ch)
			} else {
				evs = append(evs, NodeEvent{Type: NodeCreated, Path: c.Path + "/" + ch})
			}
		}
	}
	for _, n := range sh.Nodes {
		get(n)
	}
	return evs
}

func TestKafkaLayoutOnZooKeeper(t *testing.T) {
	connect := zktest.Chroot(t)
	addr, root, _ := strings.Cut(connect, "/")
	root = "/" + root
	conn := zktest.Connect(t, addr)
	acl := zk.WorldACL(zk.PermAll)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	create := func(p string, data []byte) {
		t.Helper()
		_, err := conn.Create(root+p, data, 0, acl)
		must(err)
	}

	// §1.2: startup paths and the cluster id.
	for _, p := range PersistentPaths(true) {
		must(zktest.CreateAll(conn, root+p))
	}
	must(zktest.CreateAll(conn, root+ClusterPath)) // Kafka creates /cluster/id recursively
	create(ClusterIDPath, EncodeClusterID(NewClusterID()))

	// §1.4: brokers register with create(empty, ephemeral) + setData(v0) in
	// one multi, each on its own session.
	sessions := map[int]*zk.Conn{}
	for id, rack := range map[int]string{0: "r1", 1: "r1", 2: "r2"} {
		bc := zktest.Connect(t, addr)
		sessions[id] = bc
		_, err := bc.Multi(
			&zk.CreateRequest{Path: root + BrokerIDPath(id), Acl: acl, Flags: zk.FlagEphemeral},
			&zk.SetDataRequest{Path: root + BrokerIDPath(id), Data: []byte(brokerJSON(id, rack)), Version: 0},
		)
		must(err)
	}
	_, st, err := conn.Get(root + BrokerIDPath(0))
	must(err)
	if st.Version != 1 || st.EphemeralOwner == 0 {
		t.Errorf("broker znode: dataVersion %d, owner %x (Kafka's are born at version 1)", st.Version, st.EphemeralOwner)
	}

	// §1.3: broker 0 becomes controller: /controller_epoch 0, then
	// multi(create /controller, setData epoch 1 expecting version 0).
	create(ControllerEpochPath, EncodeControllerEpoch(0))
	_, err = sessions[0].Multi(
		&zk.CreateRequest{Path: root + ControllerPath, Data: EncodeController(NewControllerInfo(2, 0, 1)), Acl: acl, Flags: zk.FlagEphemeral},
		&zk.SetDataRequest{Path: root + ControllerEpochPath, Data: EncodeControllerEpoch(1), Version: 0},
	)
	must(err)
	epochVersion := int32(1)
	fenced := func(ops ...any) {
		t.Helper()
		_, err := conn.Multi(append([]any{&zk.CheckVersionRequest{Path: root + ControllerEpochPath, Version: epochVersion}}, ops...)...)
		must(err)
	}

	// §2.3 + §5.1: config first, then the assignment; the controller adds
	// partition znodes and states, fenced by the epoch znode version.
	assignment := map[int][]int{0: {0, 1, 2}, 1: {1, 2, 0}, 2: {2, 0, 1}}
	create(TopicConfigPath("orders"), EncodeEntityConfig(map[string]string{"min.insync.replicas": "2"}))
	create(TopicPath("orders"), EncodeTopicAssignment(NewTopicAssignment(assignment, NewTopicID().String())))
	fenced(&zk.CreateRequest{Path: root + TopicPartitionsPath("orders"), Acl: acl})
	for p, r := range assignment {
		fenced(&zk.CreateRequest{Path: root + PartitionPath("orders", p), Acl: acl})
		fenced(&zk.CreateRequest{Path: root + PartitionStatePath("orders", p), Acl: acl,
			Data: EncodePartitionState(PartitionState{ControllerEpoch: 1, Leader: r[0], ISR: r})})
	}

	m := NewModel(ModelOptions{})
	changes := m.Apply(readShape(t, conn, root), true)
	if len(changes) != 3+1+3+1 {
		t.Errorf("first load: %q", kinds(changes))
	}
	s := m.Snapshot()
	checkInvariants(t, s)
	c := s.Controller()
	if c.BrokerID != 0 || c.Epoch != 1 || c.EpochZkVersion != 1 {
		t.Errorf("controller %+v (a new cluster's first controller has epoch 1, zkVersion 1)", c)
	}
	if len(s.Racks()) != 2 || s.Health().Partitions != 3 || !s.Health().Healthy() || s.Topic("orders").MinISR != 2 {
		t.Errorf("%+v %+v", s.Racks(), s.Health())
	}
	b0, _ := s.Broker(0)
	_, st0, _ := conn.Get(root + BrokerIDPath(0))
	if b0.Epoch != st0.Czxid || b0.Registration.Rack != "r1" {
		t.Errorf("%+v", b0)
	}
	if len(s.Errors()) != 0 {
		t.Errorf("%+v", s.Errors())
	}

	// §5.3: broker 2's session ends; the controller moves leadership of
	// orders-2 to 0 and drops 2 from the other ISRs, bumping leader epochs.
	sessions[2].Close()
	for p, r := range assignment {
		path := root + PartitionStatePath("orders", p)
		_, st, err := conn.Get(path)
		must(err)
		isr := slices.DeleteFunc(slices.Clone(r), func(b int) bool { return b == 2 })
		fenced(&zk.SetDataRequest{Path: path, Version: st.Version,
			Data: EncodePartitionState(PartitionState{ControllerEpoch: 1, Leader: isr[0], LeaderEpoch: 1, ISR: isr})})
	}
	got := kinds(m.Apply(readShape(t, conn, root), true))
	slices.Sort(got)
	want := []string{
		"broker_gone 2",
		"isr_shrank orders-0: -[2] isr [0,1]",
		"isr_shrank orders-1: -[2] isr [1,0]",
		"isr_shrank orders-2: -[2] isr [0,1]",
		"leader_moved orders-2: leader 2 -> 0 (leader epoch 1)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("after broker 2 died:\n%q\nwant\n%q", got, want)
	}
	s = m.Snapshot()
	checkInvariants(t, s)
	if b2, ok := s.Broker(2); !ok || b2.Live || b2.Rack != "r2" || b2.Replicas != 3 {
		t.Errorf("%+v", b2)
	}
	p2 := s.Topic("orders").Partition(2)
	if p2.StateVersion != 1 || !p2.LeaderDrift() || s.Health().UnderReplicated != 3 || s.Health().UnderMinISR != 0 {
		t.Errorf("%+v %+v", p2, s.Health())
	}
	// A stale controller's fenced write is refused by ZooKeeper.
	_, err = conn.Multi(&zk.CheckVersionRequest{Path: root + ControllerEpochPath, Version: 0},
		&zk.SetDataRequest{Path: root + PartitionStatePath("orders", 0), Version: -1, Data: []byte("{}")})
	if !errors.Is(err, zk.ErrBadVersion) {
		t.Errorf("fencing: %v", err)
	}
}
