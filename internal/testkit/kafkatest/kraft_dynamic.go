package kafkatest

import (
	"fmt"
	"slices"
	"strings"
)

// DynamicQuorum makes a KRaftCluster's metadata quorum dynamic (KIP-853,
// Kafka 3.9+), as Kafka 4.4's documentation sets one up: the controllers
// (KRaftOptions.Controllers, or the combined nodes) are formatted with
// kafka-storage format --initial-controllers id@host:port:directory-id,…
// (each with a directory id of its own), the brokers and the observer
// controllers with --no-initial-controllers, and every node names the
// quorum by controller.quorum.bootstrap.servers (the initial voters'
// listeners) instead of controller.quorum.voters. kraft.version is then 1.
type DynamicQuorum struct {
	// ObserverControllers are controllers started besides the voters
	// (ids after theirs): they fetch the metadata log as observers until
	// AddRaftVoter makes them voters.
	ObserverControllers int
}

// addObserverControllers adds the observer controllers' nodes after the
// voters'.
func (c *KRaftCluster) addObserverControllers() error {
	dq := c.opts.Dynamic
	if dq == nil {
		return nil
	}
	if strings.HasPrefix(c.dist.Version, "3.") && c.dist.Version < "3.9" {
		return fmt.Errorf("kafkatest: Kafka %s has no dynamic quorum (KIP-853 is 3.9+)", c.dist.Version)
	}
	c.observers = map[int]bool{}
	c.dirIDs = map[int]string{}
	for _, n := range c.nodes {
		if n.Role.IsController() {
			c.dirIDs[n.ID] = newDirectoryID()
		}
	}
	first := FirstControllerID + c.opts.Controllers
	for i := range dq.ObserverControllers {
		id := first + i
		c.nodes = append(c.nodes, newNode(id, KRaftController, fmt.Sprintf("controller-%d", id), c.dist, c.dir, c.opts.ControllerHeap, c.props))
		c.observers[id] = true
	}
	return nil
}

// newDirectoryID is a random directory id in Kafka's form: a Uuid as
// kafka-storage random-uuid prints it, as a cluster id is.
func newDirectoryID() string { return NewClusterID() }

// initialVoters are the dynamic quorum's first voters: the controllers
// that are not observers.
func (c *KRaftCluster) initialVoters() []*Node {
	return slices.DeleteFunc(c.Controllers(), func(n *Node) bool { return c.observers[n.ID] })
}

// InitialControllers is kafka-storage format's --initial-controllers
// value ("3000@127.0.0.1:PORT:DIRID,…"; "" for a static quorum).
func (c *KRaftCluster) InitialControllers() string {
	if c.opts.Dynamic == nil {
		return ""
	}
	var out []string
	for _, n := range c.initialVoters() {
		out = append(out, fmt.Sprintf("%d@%s:%s", n.ID, n.ControllerAddr(), c.dirIDs[n.ID]))
	}
	return strings.Join(out, ",")
}

// quorumFormatArgs are kafka-storage format's arguments for node n's
// quorum: none for a static quorum; --initial-controllers for an initial
// voter, --no-initial-controllers for the others.
func (c *KRaftCluster) quorumFormatArgs(n *Node) []string {
	if c.opts.Dynamic == nil {
		return nil
	}
	if n.Role.IsController() && !c.observers[n.ID] {
		return []string{"--initial-controllers", c.InitialControllers()}
	}
	return []string{"--no-initial-controllers"}
}

// dynamicQuorumProps names a dynamic quorum by its bootstrap servers
// (the initial voters' listeners) instead of static voters.
func (c *KRaftCluster) dynamicQuorumProps(p map[string]string) {
	if c.opts.Dynamic == nil {
		return
	}
	delete(p, "controller.quorum.voters")
	p["controller.quorum.bootstrap.servers"] = controllerBootstrap(c.initialVoters())
}

// ObserverControllerIDs are the ids of the controllers started as
// observers (KRaftOptions.Dynamic), ascending.
func (c *KRaftCluster) ObserverControllerIDs() []int {
	var out []int
	for _, n := range c.Controllers() {
		if c.observers[n.ID] {
			out = append(out, n.ID)
		}
	}
	return out
}

// DirectoryID is the metadata directory id controller id was formatted
// with in a dynamic quorum ("" when none was given: a static quorum, a
// broker, an observer, whose id kafka-storage draws).
func (c *KRaftCluster) DirectoryID(id int) string {
	if c.observers[id] {
		return ""
	}
	return c.dirIDs[id]
}

// Observer returns the observer with id (false if none).
func (q Quorum) Observer(id int) (Replica, bool) {
	i := slices.IndexFunc(q.Observers, func(r Replica) bool { return r.ID == id })
	if i < 0 {
		return Replica{}, false
	}
	return q.Observers[i], true
}
