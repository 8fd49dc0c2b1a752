package sandbox

import (
	"strings"
	"testing"
)

// TestControl drives the control loop with a script and checks each answer.
func TestControl(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3, Racks: 3})
	e.createTopic("t", map[int][]int{0: {2, 3}}, nil)
	e.waitStates("t", map[int]*st{0: s(2, 0, 1, 0, 2, 3)})
	run := func(script []struct{ cmd, want string }) {
		t.Helper()
		var in strings.Builder
		for _, l := range script {
			in.WriteString(l.cmd + "\n")
		}
		in.WriteString("\n# a comment\n")
		var out strings.Builder
		if err := Control(e.c, strings.NewReader(in.String()), &out); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		for _, l := range script {
			if !strings.Contains(got, l.want) {
				t.Errorf("after %q: output lacks %q", l.cmd, l.want)
			}
		}
		if t.Failed() {
			t.Logf("output:\n%s", got)
		}
	}
	run([]struct{ cmd, want string }{
		{"help", "kill <id>"},
		{"status", "controller: broker 1 (epoch 1)"},
		{"kill 2", "broker 2 killed"},
		{"kill 2", "error: broker 2 is not running"},
		{"kill 9", "error: there is no broker 9 (brokers are 1..3)"},
		{"kill x", `error: kill: broker id "x" is not a number`},
		{"restart 2", "broker 2 restarted"},
		{"restart 2", "error: broker 2 is already running"},
		{"pace 2ms", "pace 2ms"},
		{"pace banana", `error: pace: "banana" is not a duration such as 250ms or 1s`},
		{"pace 0", "pace 0s"},
		{"elect-preferred nope", `error: topic "nope" does not exist`},
		{"move-controller now", "error: move-controller takes 0 argument(s), got 1"},
		{"frobnicate", `error: unknown command "frobnicate" (try "help")`},
	})
	// Once broker 2 is back in the ISR:
	e.waitStates("t", map[int]*st{0: s(3, 1, 1, 2, 3, 2)})
	run([]struct{ cmd, want string }{
		{"elect-preferred t", "preferred leader election: 1 elected, 0 not needed, 0 failed"},
		{"elect-preferred", "preferred leader election: 0 elected, 1 not needed, 0 failed"},
		{"move-controller", "controller moved from broker 1 to broker "},
	})
	e.waitStates("t", map[int]*st{0: s(2, 2, 1, 3, 3, 2)})
	if st := RunCommand(e.c, "status"); !strings.Contains(st, "topic t: 1 partitions, 1 online, 0 offline, 0 under-replicated") {
		t.Errorf("status:\n%s", st)
	}
}
