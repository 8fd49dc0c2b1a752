package kraftsandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The sandbox's controls: what "ktopo sandbox --kraft" reads on its
// standard input and the TUI's sandbox keys call (kill and restart a
// process, move the quorum's leader, the status).

// ErrNoQuorumLeader is MoveQuorumLeader's error when the quorum has no
// leader (a majority of the controllers is down).
var ErrNoQuorumLeader = errors.New("the metadata quorum has no leader: a majority of the controllers is down")

// MoveQuorumLeader makes the metadata quorum's leader resign, as
// kafka-metadata-quorum cannot but a restart of the active controller
// does: the next live controller (in id order, after the old leader) is
// elected in a new epoch. It returns the new leader's id.
func (c *Cluster) MoveQuorumLeader() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.leader < 0 {
		return -1, ErrNoQuorumLeader
	}
	i := slices.IndexFunc(c.controllers, func(ct *controller) bool { return ct.id == c.leader })
	for k := 1; k < len(c.controllers); k++ {
		ct := c.controllers[(i+k)%len(c.controllers)]
		if !ct.alive || ct.observer {
			continue
		}
		old := c.leader
		c.leader = ct.id
		c.leaderEpoch++
		c.logf("controller %d resigned; controller %d is the metadata quorum's leader in epoch %d", old, ct.id, c.leaderEpoch)
		c.record()
		return int(ct.id), nil
	}
	return -1, fmt.Errorf("controller %d is the only live controller: no other can lead the metadata quorum", c.leader)
}

// QuorumLeader is the metadata quorum's leader (-1: none) and epoch.
func (c *Cluster) QuorumLeader() (id int, epoch int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int(c.leader), int(c.leaderEpoch)
}

// Status is the cluster as the controller sees it, for "status".
type Status struct {
	ClusterID string
	// Leader is the metadata quorum's leader (-1: none), Epoch its epoch
	// and Offset the metadata log's end offset.
	Leader, Epoch int
	Offset        int64
	Controllers   []ControllerStatus
	Brokers       []BrokerStatus
	Topics        []TopicStatus
}

// ControllerStatus is one controller: whether its process runs, whether
// it is a voter of the metadata quorum (else an observer).
type ControllerStatus struct {
	ID      int
	Running bool
	Voter   bool
}

// BrokerStatus is one broker: its rack ("" for none), whether its process
// runs, whether the controller has fenced it.
type BrokerStatus struct {
	ID      int
	Rack    string
	Running bool
	Fenced  bool
}

// TopicStatus counts a topic's partitions: all of them, those with a
// leader, those whose ISR lacks a replica.
type TopicStatus struct {
	Name                                string
	Partitions, Online, UnderReplicated int
}

// Status reads the cluster's state.
func (c *Cluster) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{ClusterID: c.clusterID, Leader: int(c.leader), Epoch: int(c.leaderEpoch), Offset: c.offset}
	for _, ct := range c.controllers {
		st.Controllers = append(st.Controllers, ControllerStatus{ID: int(ct.id), Running: ct.alive, Voter: !ct.observer})
	}
	for _, b := range c.brokers {
		bs := BrokerStatus{ID: int(b.id), Running: b.alive, Fenced: b.fenced || !b.registered}
		if b.rack != nil {
			bs.Rack = *b.rack
		}
		st.Brokers = append(st.Brokers, bs)
	}
	names := make([]string, 0, len(c.topics))
	for n := range c.topics {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t := c.topics[n]
		ts := TopicStatus{Name: n, Partitions: len(t.parts)}
		for _, p := range t.parts {
			if p.leader >= 0 {
				ts.Online++
			}
			if len(p.isr) < len(p.replicas) {
				ts.UnderReplicated++
			}
		}
		st.Topics = append(st.Topics, ts)
	}
	return st
}

// String is the status as "status" prints it.
func (s Status) String() string {
	var b strings.Builder
	if s.Leader >= 0 {
		fmt.Fprintf(&b, "metadata quorum: leader controller %d (epoch %d), log end offset %d\n", s.Leader, s.Epoch, s.Offset)
	} else {
		fmt.Fprintf(&b, "metadata quorum: no leader (epoch %d), log end offset %d\n", s.Epoch, s.Offset)
	}
	for _, ct := range s.Controllers {
		state := "up"
		switch {
		case !ct.Running:
			state = "down"
		case ct.ID == s.Leader:
			state = "up, leader"
		}
		if !ct.Voter {
			// A dynamic quorum's observer controller.
			state += ", observer"
		}
		fmt.Fprintf(&b, "controller %d: %s\n", ct.ID, state)
	}
	for _, br := range s.Brokers {
		rack := ""
		if br.Rack != "" {
			rack = " (" + br.Rack + ")"
		}
		var state string
		switch {
		case br.Running && br.Fenced:
			state = "up, fenced (catching up)"
		case br.Running:
			state = "up, unfenced"
		case br.Fenced:
			state = "down, fenced"
		default:
			state = "down, not fenced yet (broker.session.timeout.ms)"
		}
		fmt.Fprintf(&b, "broker %d%s: %s\n", br.ID, rack, state)
	}
	if len(s.Topics) == 0 {
		b.WriteString("no topics")
	}
	for i, t := range s.Topics {
		fmt.Fprintf(&b, "topic %s: %d/%d partitions online", t.Name, t.Online, t.Partitions)
		if t.UnderReplicated > 0 {
			fmt.Fprintf(&b, ", %d under-replicated", t.UnderReplicated)
		}
		if i < len(s.Topics)-1 {
			b.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// controlHelp lists the control commands.
const controlHelp = `commands:
  kill <id> [<id>…]       crash broker or controller <id> (kill -9): its listener
                          closes; a broker is fenced broker.session.timeout.ms
                          later, a controller leaves the quorum (the others elect
                          a leader when it led)
  stop <id> [<id>…]       stop a broker cleanly (SIGTERM): a controlled shutdown
                          moves its leaders away and takes it out of the ISRs
                          first; a controller stops as kill stops it
  restart <id> [<id>…]    start it again on its old address: a broker registers
                          anew (fenced until caught up), a controller rejoins
  move-controller         the metadata quorum's leader resigns; the next live
                          controller leads in a new epoch
  pace <duration>         delay before each write the controller applies, e.g.
                          500ms (0 = none), to watch each change land
  pause, resume           stop and restart the simulated clock: killed brokers
                          are not fenced, copies and sizes stand still
  status                  the quorum, controllers, brokers (fenced or not) and
                          topics (partitions online)
  help                    this list`

// Control reads control commands from in, one per line, runs each on c
// and answers on out: one or more lines per command, errors as lines
// starting with "error: ". Blank lines and lines starting with '#' are
// skipped. The end of in only stops reading (the cluster keeps running);
// Control returns the read error, if any.
func Control(c *Cluster, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if _, err := io.WriteString(out, RunCommand(c, line)+"\n"); err != nil {
			return err
		}
	}
	return sc.Err()
}

// RunCommand runs one control command and returns its answer (without a
// trailing newline).
func RunCommand(c *Cluster, line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return `error: empty command (try "help")`
	}
	cmd, args := f[0], f[1:]
	noArgs := func() error {
		if len(args) > 0 {
			return fmt.Errorf("%s takes no argument, got %d", cmd, len(args))
		}
		return nil
	}
	switch cmd {
	case "help":
		return controlHelp
	case "kill", "stop", "restart":
		if len(args) == 0 {
			return fmt.Sprintf("error: %s takes a broker or controller id", cmd)
		}
		var ids []int
		for _, a := range args {
			id, err := strconv.Atoi(a)
			if err != nil {
				return fmt.Sprintf("error: %s: id %q is not a number", cmd, a)
			}
			ids = append(ids, id)
		}
		var lines []string
		for _, id := range ids {
			act, done := c.Kill, "killed"
			switch cmd {
			case "stop":
				act, done = c.Stop, "stopped"
			case "restart":
				act, done = c.Restart, "restarted"
			}
			if err := act(id); err != nil {
				lines = append(lines, "error: "+err.Error())
				continue
			}
			lines = append(lines, fmt.Sprintf("%s %d %s", c.role(id), id, done))
		}
		return strings.Join(lines, "\n")
	case "move-controller":
		if err := noArgs(); err != nil {
			return "error: " + err.Error()
		}
		before, _ := c.QuorumLeader()
		id, err := c.MoveQuorumLeader()
		if err != nil {
			return "error: " + err.Error()
		}
		_, epoch := c.QuorumLeader()
		return fmt.Sprintf("metadata quorum's leader moved from controller %d to controller %d (epoch %d)", before, id, epoch)
	case "status":
		if err := noArgs(); err != nil {
			return "error: " + err.Error()
		}
		return c.Status().String()
	case "pace":
		if len(args) != 1 {
			return fmt.Sprintf("pace %s (pace <duration> sets it, e.g. pace 500ms; 0 = none)", c.Pace())
		}
		d, err := time.ParseDuration(args[0])
		if err != nil || d < 0 {
			return fmt.Sprintf("error: pace: %q is not a duration such as 250ms or 1s", args[0])
		}
		c.SetPace(d)
		return fmt.Sprintf("pace %s", d)
	case "pause", "resume":
		if err := noArgs(); err != nil {
			return "error: " + err.Error()
		}
		if cmd == "pause" {
			c.Pause()
			return "paused: no heartbeat is missed, no copy moves, no partition grows until resume"
		}
		c.Resume()
		return "resumed"
	case "elect-preferred":
		return "error: elect leaders as on any KRaft cluster: ktopo leader-election or kafka-leader-election --bootstrap-server …"
	case "migrate":
		return "error: the KRaft sandbox is KRaft from the start: the migration is the ZooKeeper sandbox's (ktopo sandbox)"
	}
	return fmt.Sprintf("error: unknown command %q (try \"help\")", cmd)
}

// role names what id is: "broker" or "controller".
func (c *Cluster) role(id int) string {
	if c.controller(int32(id)) != nil {
		return "controller"
	}
	return "broker"
}
