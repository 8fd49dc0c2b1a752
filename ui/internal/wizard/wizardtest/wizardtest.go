// Package wizardtest is what the tests of the two wizards (the creation
// wizard, ui/screens/create, and the operation wizard, ui/screens/operate)
// share: the cluster they run on, a clock that never ticks, the shell's
// delivery of their commands' results, and an in-memory ZooKeeper for
// their writes.
package wizardtest

import (
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/nav"
)

// T0 is the tests' clock at the start.
var T0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Task is the id the tests' shell gives the wizard.
const Task = 7

// Spec is a healthy cluster: 6 brokers in 3 racks, three topics, one of
// them with a '_' (for the creation's collision check).
func Spec() fixture.Spec {
	return fixture.Spec{
		ClusterID: "hDx3q9bTRmWvZ1o8cPzKXg", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 7, Time: 1_700_000_000_000,
		Topics: []fixture.Topic{
			{Name: "orders", Partitions: 6, RF: 3},
			{Name: "metrics_raw", Partitions: 3, RF: 2},
			{Name: "__consumer_offsets", Partitions: 4, RF: 3},
		},
	}
}

// NoTicks is a clock that never ticks, so that every command answers:
// Deliver waits for them (a test sends wizard.TickMsg itself).
func NoTicks(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }

// Deliver runs cmd and hands the results addressed to the wizard (a
// nav.TaskMsg for Task) to its update, as the shell does, then theirs in
// turn; it returns the requests of all those updates.
func Deliver(update func(tea.Msg) (tea.Cmd, nav.Request), cmd tea.Cmd) []nav.Request {
	var out []nav.Request
	for _, msg := range fixture.RunAll(cmd) {
		tm, ok := msg.(nav.TaskMsg)
		if !ok || tm.Task != Task {
			continue
		}
		c, req := update(tm.Msg)
		if req != nil {
			out = append(out, req)
		}
		out = append(out, Deliver(update, c)...)
	}
	return out
}

// FakeZK is an in-memory ZooKeeper for the wizards' writes: it records
// every multi and applies its creates and sets (a create of a znode that
// exists fails the multi with zk.ErrNodeExists, unless Overwrite; a
// sequential one gets the next number), or fails it with Fail.
type FakeZK struct {
	mu sync.Mutex
	// Nodes are the znodes by path (Init: the parents the writes need).
	Nodes map[string][]byte
	// Sent are the multis sent, in order.
	Sent [][]any
	// Fail fails every multi (nothing applied).
	Fail error
	// GetErr fails every read once a multi was sent (a session that
	// cannot read back; the migration guard's reads before it succeed).
	GetErr error
	// Overwrite lets a create replace a znode that exists: for tests that
	// do not delete what the controller deletes once done
	// (/admin/reassign_partitions, /admin/preferred_replica_election).
	Overwrite bool
	seq       int
}

// Init gives Nodes the parents the writes need, when it has none yet.
func (z *FakeZK) Init() {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.init()
}

func (z *FakeZK) init() {
	if z.Nodes == nil {
		z.Nodes = map[string][]byte{"/admin": nil, "/brokers": nil, "/brokers/topics": nil,
			"/config": nil, "/config/topics": nil, "/config/brokers": nil}
	}
}

// Exists implements zkops.ZK.
func (z *FakeZK) Exists(p string) (bool, *zk.Stat, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.init()
	_, ok := z.Nodes[p]
	return ok, &zk.Stat{}, nil
}

// Get implements zkops.ZK.
func (z *FakeZK) Get(p string) ([]byte, *zk.Stat, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.init()
	if z.GetErr != nil && len(z.Sent) > 0 {
		return nil, nil, z.GetErr
	}
	d, ok := z.Nodes[p]
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	return d, &zk.Stat{}, nil
}

// Multi implements zkops.ZK.
func (z *FakeZK) Multi(ops ...any) ([]zk.MultiResponse, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.init()
	z.Sent = append(z.Sent, ops)
	res := make([]zk.MultiResponse, len(ops))
	if z.Fail != nil {
		return res, z.Fail
	}
	for i, op := range ops {
		if o, ok := op.(*zk.CreateRequest); ok && o.Flags&zk.FlagSequence == 0 && !z.Overwrite {
			if _, exists := z.Nodes[o.Path]; exists {
				res[i].Error = zk.ErrNodeExists
				return res, zk.ErrNodeExists
			}
		}
	}
	for _, op := range ops {
		switch o := op.(type) {
		case *zk.CreateRequest:
			p := o.Path
			if o.Flags&zk.FlagSequence != 0 {
				p += fmt.Sprintf("%010d", z.seq)
				z.seq++
			}
			z.Nodes[p] = o.Data
		case *zk.SetDataRequest:
			z.Nodes[o.Path] = o.Data
		}
	}
	return res, nil
}

// Written returns the znode at p, and whether there is one.
func (z *FakeZK) Written(p string) ([]byte, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	d, ok := z.Nodes[p]
	return d, ok
}
