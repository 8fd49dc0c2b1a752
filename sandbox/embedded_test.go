package sandbox

import (
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/zkserver"
)

// TestOnEmbeddedServer runs a scenario on ktopo's embedded ZooKeeper (the
// default of "ktopo sandbox" and of the TUI): the same znodes as on Apache
// ZooKeeper.
func TestOnEmbeddedServer(t *testing.T) {
	srv, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e := newEnv(t, Config{Connect: srv.Addr() + "/sandbox", Brokers: 4, Racks: 2})
	e.createTopic("t", failureTopics["t"], nil)
	e.waitStates("t", failureInitial["t"])
	e.kill(2)
	e.waitStates("t", map[int]*st{0: s(3, 1, 1, 1, 3, 4), 1: s(3, 1, 1, 1, 3, 4), 2: s(4, 1, 1, 1, 4, 3)})
	e.restart(2)
	e.waitStates("t", map[int]*st{0: s(3, 1, 1, 2, 3, 4, 2), 1: s(3, 1, 1, 2, 3, 4, 2), 2: s(4, 1, 1, 2, 4, 3, 2)})
	if _, err := e.c.ElectPreferred("t"); err != nil {
		t.Fatal(err)
	}
	e.waitStates("t", map[int]*st{0: s(2, 2, 1, 3, 3, 4, 2), 1: s(3, 1, 1, 2, 3, 4, 2), 2: s(4, 1, 1, 2, 4, 3, 2)})
	e.kill(1) // the controller
	waitFor(t, "a new controller", func() (bool, string) {
		id, epoch := e.controller()
		return id > 1 && epoch == 2, e.get(cluster.ControllerPath).String()
	})
	e.create(cluster.DeleteTopicPath("t"), nil)
	e.waitGone(topicPaths("t")...)
}
