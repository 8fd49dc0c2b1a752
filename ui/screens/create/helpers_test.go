package create

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/internal/wizard/wizardtest"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// The wizards' shared test kit: the clock, the shell's task id, the
// cluster (with a '_' topic for the collision check), the in-memory
// ZooKeeper written to, a clock that never ticks.
var (
	t0      = wizardtest.T0
	spec    = wizardtest.Spec
	noTicks = wizardtest.NoTicks
)

const testTask = wizardtest.Task

type fakeZK = wizardtest.FakeZK

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
	o := Options{Styles: theme.New(true), Keys: keys.Default(), Anims: e.anims, Writer: zkops.NewWriter(e.z),
		Now: func() time.Time { return e.now }, Rand: rand.New(rand.NewPCG(1, 2)), Task: testTask, Tick: noTicks}
	for _, f := range opts {
		f(&o)
	}
	e.m = New(o)
	e.m.SetSize(w, h)
	e.m.SetSnapshot(e.model.Snapshot())
	return e
}

// typeText types s into the focused field.
func (e *env) typeText(s string) {
	for _, r := range s {
		e.m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// press sends keys and delivers the results of the wizard's commands back
// to it (as the shell does), returning the requests it made.
func (e *env) press(ks ...string) []nav.Request {
	var out []nav.Request
	for _, k := range ks {
		out = append(out, e.handle(e.m.Update(fixture.Key(k)))...)
	}
	return out
}

// handle collects req and delivers the results of cmd addressed to the
// wizard, collecting the requests of those Updates too.
func (e *env) handle(cmd tea.Cmd, req nav.Request) []nav.Request {
	var out []nav.Request
	if req != nil {
		out = append(out, req)
	}
	return append(out, wizardtest.Deliver(e.m.Update, cmd)...)
}

// clearField empties the focused field.
func (e *env) clearField() { e.m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}) }

func lines(s string) []string { return strings.Split(s, "\n") }

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
