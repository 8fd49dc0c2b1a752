package kraftsandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// control runs lines through Control and returns what it answered.
func control(t *testing.T, c *Cluster, lines ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := Control(c, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func wantLines(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("the answer lacks %q:\n%s", w, got)
		}
	}
}

// TestControlKillRestart kills a broker and a controller from standard
// input, sees the broker fenced once its session times out and the
// status say so, then restarts both.
func TestControlKillRestart(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Racks: 3, DemoTopics: true, SessionTimeout: 300 * time.Millisecond, Tick: 10 * time.Millisecond})
	out := control(t, c, "# a comment", "", "status", "kill 2 3000", "kill 2", "kill 42", "kill x")
	wantLines(t, out,
		"metadata quorum: leader controller 3000 (epoch 1)",
		"controller 3001: up\n",
		"broker 2 (rack-b): up, unfenced",
		"topic orders: 12/12 partitions online",
		"broker 2 killed", "controller 3000 killed",
		"error: broker 2 is not running",
		"error: no such broker or controller: 42",
		`error: kill: id "x" is not a number`)
	if strings.Contains(out, "comment") {
		t.Errorf("a comment was answered:\n%s", out)
	}
	waitStatus(t, c, "broker 2 (rack-b): down, fenced")
	out = control(t, c, "status")
	wantLines(t, out, "metadata quorum: leader controller 3001 (epoch 2)", "controller 3000: down",
		"topic orders: 12/12 partitions online, ", "under-replicated")
	out = control(t, c, "restart 2 3000", "restart 2")
	wantLines(t, out, "broker 2 restarted", "controller 3000 restarted", "error: broker 2 is already running")
	waitStatus(t, c, "broker 2 (rack-b): up, unfenced")

	// A controlled shutdown fences the broker at once and moves its
	// leaders away: no partition goes offline.
	out = control(t, c, "stop 3", "stop 3", "status")
	wantLines(t, out, "broker 3 stopped", "error: broker 3 is not running", "broker 3 (rack-c): down, fenced",
		"topic orders: 12/12 partitions online")
	out = control(t, c, "restart 3")
	wantLines(t, out, "broker 3 restarted")
	waitStatus(t, c, "broker 3 (rack-c): up, unfenced")
}

// waitStatus waits until the status shows want.
func waitStatus(t *testing.T, c *Cluster, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(c.Status().String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the status never showed %q:\n%s", want, c.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestControlMoveController moves the quorum's leader and sees
// DescribeCluster on a controller's listener name the new one.
func TestControlMoveController(t *testing.T) {
	c := startTest(t, Config{Brokers: 1, Racks: 1})
	out := control(t, c, "move-controller", "move-controller x", "kill 3002", "move-controller")
	wantLines(t, out, "metadata quorum's leader moved from controller 3000 to controller 3001 (epoch 2)",
		"error: move-controller takes no argument", "controller 3002 killed",
		// 3002 is down: the leadership skips it.
		"moved from controller 3001 to controller 3000 (epoch 3)")
	if id, epoch := c.QuorumLeader(); id != 3000 || epoch != 3 {
		t.Errorf("quorum leader %d epoch %d, want 3000 in 3", id, epoch)
	}
	req := kmsg.NewPtrDescribeClusterRequest()
	req.EndpointType = 2
	resp := askController(t, c, req)
	if resp.ControllerID != 3000 {
		t.Errorf("DescribeCluster's controller %d, want 3000", resp.ControllerID)
	}
	// 3000 and 3002 down: no majority, no leader.
	control(t, c, "kill 3000")
	if _, err := c.MoveQuorumLeader(); !errors.Is(err, ErrNoQuorumLeader) {
		t.Errorf("moving without a leader: %v, want ErrNoQuorumLeader", err)
	}
	lone := startTest(t, Config{Brokers: 1, Controllers: 1, Racks: 1})
	if got := control(t, lone, "move-controller"); !strings.Contains(got, "error: controller 3000 is the only live controller") {
		t.Errorf("moving the leadership of a lone controller: %s", got)
	}
}

// askController sends req to the first controller's listener.
func askController(t *testing.T, c *Cluster, req *kmsg.DescribeClusterRequest) *kmsg.DescribeClusterResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl := controllerClient(t, c)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestControlHelpAndRefusals: help lists the commands; the ZooKeeper
// sandbox's own commands say why they are not here; an unknown one says
// to try help.
func TestControlHelpAndRefusals(t *testing.T) {
	c := startTest(t, Config{Brokers: 1, Controllers: 1, Racks: 1})
	out := control(t, c, "help", "pace x", "migrate", "elect-preferred", "bogus", "kill", "status now")
	wantLines(t, out, "kill <id>", "restart <id>", "move-controller", "status", "help", "pace <duration>", "pause, resume",
		`error: pace: "x" is not a duration`, "error: the KRaft sandbox is KRaft from the start",
		"error: elect leaders as on any KRaft cluster", `error: unknown command "bogus" (try "help")`,
		"error: kill takes a broker or controller id", "error: status takes no argument")
	if got := control(t, c, "status"); !strings.Contains(got, "no topics") {
		t.Errorf("status without topics:\n%s", got)
	}
	// The end of input only stops reading.
	if err := Control(c, strings.NewReader(""), io.Discard); err != nil || !c.Running(1) {
		t.Errorf("end of input: %v, broker 1 running %v", err, c.Running(1))
	}
}

// controllerClient is a franz-go client of the sandbox's controllers
// (--bootstrap-controller).
func controllerClient(t *testing.T, c *Cluster) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.ControllerBootstrap(), ",")...), kgo.RequestTimeoutOverhead(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestPort: Config.Port puts the brokers on Port, Port+1, … and the
// controllers after them, so that a sandbox keeps its addresses from run
// to run.
func TestPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	c := startTest(t, Config{Brokers: 2, Controllers: 1, Racks: 1, Port: port})
	if want := fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", port, port+1); c.Bootstrap() != want {
		t.Errorf("bootstrap %s, want %s", c.Bootstrap(), want)
	}
	if want := fmt.Sprintf("127.0.0.1:%d", port+2); c.ControllerBootstrap() != want {
		t.Errorf("controllers %s, want %s", c.ControllerBootstrap(), want)
	}
}

// TestControlPauseAndPace: paused, a killed broker stays unfenced however
// long it is silent; resumed, it is fenced a session timeout later. pace
// delays each write the controller applies, and 0 takes it off.
func TestControlPauseAndPace(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Controllers: 1, Racks: 1, SessionTimeout: 300 * time.Millisecond, Tick: 10 * time.Millisecond})
	fenced := func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.broker(2).fenced
	}
	wantLines(t, control(t, c, "pause", "kill 2"), "paused", "broker 2 killed")
	// Ten session timeouts of the stopped clock.
	for range 30 {
		time.Sleep(100 * time.Millisecond)
		if fenced() {
			t.Fatal("broker 2 fenced while the clock was paused")
		}
	}
	wantLines(t, control(t, c, "resume"), "resumed")
	waitFor(t, "broker 2 fenced after the resume", fenced)

	wantLines(t, control(t, c, "pace 200ms", "pace"), "pace 200ms", "pace 200ms (pace <duration> sets it")
	if c.Pace() != 200*time.Millisecond {
		t.Errorf("pace %s", c.Pace())
	}
	wantLines(t, control(t, c, "pace 0"), "pace 0s")
	if c.Pace() != 0 {
		t.Errorf("pace %s after pace 0", c.Pace())
	}
}
