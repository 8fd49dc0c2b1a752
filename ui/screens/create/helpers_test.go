package create

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkwatch"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// spec is a healthy cluster: 6 brokers in 3 racks, a few topics, one of
// them with a '_' for the collision check.
func spec() fixture.Spec {
	return fixture.Spec{
		ClusterID: "hDx3q9bTRmWvZ1o8cPzKXg", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 7, Time: 1_700_000_000_000,
		Topics: []fixture.Topic{
			{Name: "orders", Partitions: 6, RF: 3},
			{Name: "metrics_raw", Partitions: 3, RF: 2},
			{Name: "__consumer_offsets", Partitions: 4, RF: 3},
		},
	}
}

type env struct {
	m     *Model
	model *cluster.Model
	anims *anim.Set
	z     *fakeZK
	now   time.Time
}

func newEnv(t testing.TB, w, h int, opts ...func(*Options)) *env {
	return newSpecEnv(t, spec(), w, h, opts...)
}

// newSpecEnv is newEnv on the cluster sp.
func newSpecEnv(t testing.TB, sp fixture.Spec, w, h int, opts ...func(*Options)) *env {
	e := &env{model: sp.Model(), anims: anim.NewSet(theme.FlashSteps), z: &fakeZK{}, now: t0}
	o := Options{Styles: theme.New(true), Keys: keys.Default(), Anims: e.anims, Writer: clusterops.NewZooKeeperWriter(e.z),
		Now: func() time.Time { return e.now }, Rand: rand.New(rand.NewPCG(1, 2)), Task: testTask, Tick: noTicks}
	for _, f := range opts {
		f(&o)
	}
	e.m = New(o)
	e.m.SetSize(w, h)
	e.m.SetSnapshot(e.model.Snapshot())
	return e
}

// noTicks is a clock that never ticks, so that every command answers:
// run waits for them (a test sends wizard.TickMsg itself).
func noTicks(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }

// run runs a command and the commands of any batch it returns, waiting
// for each (the wizard's commands all answer: no ticks in tests).
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, run(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// typeText types s into the focused field.
func (e *env) typeText(s string) {
	for _, r := range s {
		e.m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// testTask is the id the tests' shell gives the wizard.
const testTask = 7

// press sends keys and delivers the results of the wizard's commands back
// to it (as the shell does), returning the requests it made.
func (e *env) press(ks ...string) []nav.Request {
	var out []nav.Request
	for _, k := range ks {
		out = append(out, e.handle(e.m.Update(fixture.Key(k)))...)
	}
	return out
}

// handle runs an Update's command, delivers the results addressed to the
// wizard, and collects the requests of all those Updates.
func (e *env) handle(cmd tea.Cmd, req nav.Request) []nav.Request {
	var out []nav.Request
	if req != nil {
		out = append(out, req)
	}
	for _, msg := range run(cmd) {
		tm, ok := msg.(nav.TaskMsg)
		if !ok || tm.Task != testTask {
			continue
		}
		out = append(out, e.handle(e.m.Update(tm.Msg))...)
	}
	return out
}

// clearField empties the focused field.
func (e *env) clearField() { e.m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}) }

func lines(s string) []string { return strings.Split(s, "\n") }

// fakeZK is an in-memory ZooKeeper for the write: it records the multi
// and can fail it.
type fakeZK struct {
	mu    sync.Mutex
	nodes map[string][]byte
	multi [][]any
	fail  error
	// getErr fails every read once the multi was sent (a session that
	// cannot read back; the migration guard's reads before it succeed).
	getErr error
}

func (z *fakeZK) Exists(p string) (bool, *zk.Stat, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.nodes == nil {
		z.nodes = map[string][]byte{"/config/topics": nil, "/brokers/topics": nil, "/config": nil, "/brokers": nil}
	}
	_, ok := z.nodes[p]
	return ok, &zk.Stat{}, nil
}

func (z *fakeZK) Get(p string) ([]byte, *zk.Stat, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.getErr != nil && len(z.multi) > 0 {
		return nil, nil, z.getErr
	}
	data, ok := z.nodes[p]
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	return data, &zk.Stat{}, nil
}

func (z *fakeZK) Multi(ops ...any) ([]zk.MultiResponse, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.multi = append(z.multi, ops)
	if z.fail != nil {
		return nil, z.fail
	}
	for i, op := range ops {
		if o, ok := op.(*zk.CreateRequest); ok {
			if _, exists := z.nodes[o.Path]; exists {
				res := make([]zk.MultiResponse, len(ops))
				res[i].Error = zk.ErrNodeExists
				return res, zk.ErrNodeExists
			}
		}
	}
	for _, op := range ops {
		switch o := op.(type) {
		case *zk.CreateRequest:
			z.nodes[o.Path] = o.Data
		case *zk.SetDataRequest:
			z.nodes[o.Path] = o.Data
		}
	}
	return make([]zk.MultiResponse, len(ops)), nil
}

func (z *fakeZK) written(p string) ([]byte, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	d, ok := z.nodes[p]
	return d, ok
}

var zxid int64 = 10_000

func stat(mtime int64, version int32, data []byte) *zk.Stat {
	zxid++
	return &zk.Stat{Czxid: zxid, Mzxid: zxid, Ctime: mtime, Mtime: mtime, Version: version, DataLength: int32(len(data))}
}

// apply feeds node events through the model and hands the snapshot to
// the wizard, as the shell does with a mirror batch.
func (e *env) apply(evs ...zkwatch.Event) {
	e.model.Apply(zksource.NodeEvents(zkwatch.Batch{Events: evs}), false)
	e.m.SetSnapshot(e.model.Snapshot())
}

// topicWritten is the mirror seeing the plan's two znodes at ms.
func topicWritten(p *clusterops.TopicPlan, ms int64) []zkwatch.Event {
	return []zkwatch.Event{
		{Type: zkwatch.Created, Path: p.ConfigPath, Data: p.ConfigJSON, Stat: stat(ms, 0, p.ConfigJSON)},
		{Type: zkwatch.Created, Path: p.TopicPath, Data: p.TopicJSON, Stat: stat(ms, 0, p.TopicJSON)},
	}
}

// stateAt is the controller initialising partition id at ms with leader
// and isr.
func stateAt(topic string, id, leader int, isr []int, ms int64) zkwatch.Event {
	data := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: leader, Version: 1, ISR: isr})
	return zkwatch.Event{Type: zkwatch.Created, Path: cluster.PartitionStatePath(topic, id), Data: data, Stat: stat(ms, 0, data)}
}

// brokerGone is broker id's registration disappearing.
func brokerGone(id int) zkwatch.Event {
	return zkwatch.Event{Type: zkwatch.Deleted, Path: cluster.BrokerIDPath(id)}
}

// zkEvent is a znode appearing.
func zkEvent(path string, data []byte) zkwatch.Event {
	return zkwatch.Event{Type: zkwatch.Created, Path: path, Data: data, Stat: stat(1_700_000_000_000, 0, data)}
}

func nodeEvents(evs ...zkwatch.Event) []cluster.NodeEvent {
	return zksource.NodeEvents(zkwatch.Batch{Events: evs})
}
