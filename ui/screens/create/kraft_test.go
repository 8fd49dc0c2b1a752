package create

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/zkwatch"
)

// kafkaWriter is a KRaft cluster's writer for the wizard's screen tests:
// CreateTopic takes answerIn on the test's clock and succeeds; the other
// operations are not the creation wizard's.
type kafkaWriter struct {
	clusterops.Writer
	e        *env
	answerIn time.Duration
}

func (w *kafkaWriter) Backend() cluster.Backend { return cluster.ViaKafka }
func (w *kafkaWriter) Words() *clusterops.Words { return &clusterops.KafkaWords }
func (w *kafkaWriter) CreateTopic(_ context.Context, p *clusterops.TopicPlan, m clusterops.Mode) (clusterops.Writes, error) {
	if m == clusterops.Apply {
		w.e.now = w.e.now.Add(w.answerIn)
	}
	return clusterops.Writes{Backend: cluster.ViaKafka, Steps: []clusterops.WriteStep{{Title: "create topic " + p.Name, Lines: []string{"CreateTopics …"}}}}, nil
}
func (w *kafkaWriter) MaybeWritten(error) bool { return false }

// kraftSpec is spec() as a KRaft cluster: a dedicated controller 3000
// leads the quorum (combined: broker 1 does).
func kraftSpec(combined bool) (fixture.Spec, *cluster.KRaft) {
	sp := spec()
	sp.Controller, sp.ControllerEpoch = 3000, 4
	if combined {
		sp.Controller = 1
	}
	return sp, fixture.KRaftFacts(sp)
}

// newKRaftEnv is the wizard on a KRaft cluster whose controller answers
// CreateTopics after answerIn.
func newKRaftEnv(t *testing.T, combined bool, answerIn time.Duration, w, h int) *env {
	t.Helper()
	sp, k := kraftSpec(combined)
	kw := &kafkaWriter{answerIn: answerIn}
	e := newSpecEnv(t, sp, w, h, func(o *Options) { o.Writer = kw })
	kw.e = e
	e.model.SetKRaft(k)
	e.m.SetSnapshot(e.model.Snapshot())
	fill(e, "payments")
	e.press("enter")
	if e.m.Stage() != "preview" {
		t.Fatalf("stage %s: %s", e.m.Stage(), e.m.form.msg)
	}
	return e
}

// polled is a poll that ended at ms showing the plan's topic with every
// partition led by its first replica, in sync: what the Kafka-protocol
// source hands the model (the poll's time as the znodes' times).
func polled(plan *clusterops.TopicPlan, ms int64) []zkwatch.Event {
	evs := topicWritten(plan, ms)
	for _, p := range plan.Result.Assignment.Partitions() {
		reps := plan.Assignment()[p]
		evs = append(evs, stateAt(plan.Name, p, reps[0], reps, ms))
	}
	return evs
}

// TestKRaftProgress: on a KRaft cluster the creation's progress speaks of
// what happens there, not of ZooKeeper: the CreateTopics request and its
// answer, the quorum's leader as "controller 3000" (a dedicated
// controller is no broker; a combined one is "a broker too"), and times
// that are what ktopo saw: the poll that first showed each partition,
// after the request was answered — not the 0ms a ZooKeeper clock would
// give from the polls' own times.
func TestKRaftProgress(t *testing.T) {
	e := newKRaftEnv(t, false, 128*time.Millisecond, 200, 58)
	plan := e.m.Plan()
	create(t, e)
	answered := t0.Add(128 * time.Millisecond)
	e.apply(polled(plan, answered.Add(212*time.Millisecond).UnixMilli())...)
	if e.m.Stage() != "done" {
		t.Fatalf("stage %s\n%s", e.m.Stage(), view(e))
	}
	out := view(e)
	for _, want := range []string{
		"✓ write      CreateTopics at 03:04:05 · answered in 128ms",
		"✓ controller 3000 created every partition with a leader",
		"answered in 128ms · polls showed the first leader 212ms after the answer · the last 212ms · all in sync 212ms",
		" 0 ● 212ms ",
		"times: the first poll that showed it, after CreateTopics was answered",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, wrong := range []string{"multi", "ZooKeeper", "broker 3000", "znode", " 0ms"} {
		if strings.Contains(out, wrong) {
			t.Errorf("%q on a KRaft cluster:\n%s", wrong, out)
		}
	}
	if line, _ := e.m.TaskStatus(); line != "Topic payments created: all 12 partitions online (seen by the poll 212ms after CreateTopics was answered), in sync (212ms)." {
		t.Errorf("status %q", line)
	}
	for _, sz := range [][2]int{{80, 22}, {200, 58}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			e.m.SetSize(sz[0], sz[1])
			checkSize(t, view(e), sz[0], sz[1])
			golden.RequireEqual(t, view(e))
		})
	}
}

// TestKRaftProgressBeforeTheAnswer: a poll may show the topic before
// CreateTopics' answer reaches ktopo: no time is shown until the answer
// is in, then the poll counts as at the answer (0ms), never before it.
// A combined controller is named as a broker too.
func TestKRaftProgressBeforeTheAnswer(t *testing.T) {
	e := newKRaftEnv(t, true, 300*time.Millisecond, 200, 58)
	plan := e.m.Plan()
	e.press("enter")
	// y writes; the test shell delivers the answer only after the poll.
	cmd, _ := e.m.Update(fixture.Key("y"))
	e.apply(polled(plan, t0.Add(100*time.Millisecond).UnixMilli())...)
	if got := e.m.tr.tmText[0]; strings.TrimSpace(got) != "" {
		t.Fatalf("a time before the answer: %q", got)
	}
	e.handle(cmd, nil)
	out := view(e)
	if !strings.Contains(out, " 0 ● 0ms ") || !strings.Contains(out, "controller 1 (a broker too) created every partition with a leader") {
		t.Fatalf("after the answer:\n%s", out)
	}
}
