package ui

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/kraftfake"
	"github.com/ktopo/ktopo/kafkaops"
)

// TestKRaftSandbox: on the KRaft sandbox (a sandbox control beside a
// KRaft cluster's source, as "ktopo --sandbox kraft" runs) the shell has
// the KRaft tabs, kills and restarts brokers and moves the quorum's
// leader with the sandbox's keys, and elects leaders with the election
// wizard as on a real KRaft cluster (p opens it rather than electing at
// once).
func TestKRaftSandbox(t *testing.T) {
	spec, k := fixture.SmallKRaft()
	m := spec.Model()
	m.SetKRaft(k)
	fc := kraftfake.New(m.Snapshot())
	sb := &fakeSandbox{running: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true}, moveTo: 3001}
	a := New(Config{Source: &kafkaSource{ch: make(chan clusterwatch.Batch)}, Writer: kafkaops.New(fc, 0), Sandbox: sb,
		Connect: "127.0.0.1:9092", Mode: ModeSandbox, Now: func() time.Time { return t0 }, Location: t0.Location(), Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	loadSpec(a, spec, k)
	if !a.kraftSandbox() {
		t.Fatal("not told apart as the KRaft sandbox")
	}
	s := screen(a)
	for _, want := range []string{"SANDBOX", "Overview", "Events"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Tree") || strings.Contains(s, "Migration") {
		t.Errorf("a KRaft cluster's shell has no tree or radar tab:\n%s", s)
	}
	press(a, "x")
	if st, isErr := a.Status(); isErr || !strings.Contains(st, "Killed broker 1: the controller fences it after broker.session.timeout.ms without heartbeats") {
		t.Errorf("status after x: %q %v", st, isErr)
	}
	// x on a rack heading kills its brokers together.
	press(a, "k", "x")
	if st, isErr := a.Status(); isErr || !strings.Contains(st, "together: the controller fences each after broker.session.timeout.ms") {
		t.Errorf("status after x on a rack: %q %v", st, isErr)
	}
	press(a, "m")
	if st, isErr := a.Status(); isErr || st != "The metadata quorum's leader moved to controller 3001." {
		t.Errorf("status after m: %q %v", st, isErr)
	}
	press(a, "p")
	if want := []string{"kill 1", "kill together [4]", "move"}; !slices.Equal(sb.actions, want) {
		t.Errorf("sandbox actions %v, want %v (p is the election wizard's)", sb.actions, want)
	}
	if len(a.stack) != 1 || !strings.Contains(screen(a), "lect") {
		t.Errorf("p did not open the election wizard:\n%s", screen(a))
	}
}
