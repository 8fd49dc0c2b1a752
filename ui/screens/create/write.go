package create

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
)

// submit leaves the form for the preview when every value is valid, and
// says why not otherwise.
func (m *Model) submit() {
	if m.snap == nil || m.snap.Partial() {
		// A partial snapshot leaves topics out: the name may be taken.
		m.form.msg = "The cluster is still loading."
		return
	}
	req, fld, err := m.form.request(m.snap)
	if err != nil {
		m.form.fail(fld, err)
		return
	}
	m.form.msg = ""
	switch {
	case req.Assignment != nil:
	case m.snap.KRaft() != nil:
		if !m.pv.hasSeed {
			m.pv.seed, m.pv.hasSeed = clusterops.DrawSeed(m.rng), true
		}
	default:
		n := m.brokerCount(req.RackAware)
		if m.pv.start < 0 || m.pv.start >= n || m.pv.shift >= n {
			m.pv.start, m.pv.shift = m.rng.IntN(max(n, 1)), m.rng.IntN(max(n, 1))
		}
	}
	if err := m.replan(req); err != nil {
		fl := fieldOf(err)
		if fl == fManual && req.Assignment == nil {
			fl = fPartitions // no manual assignment: the topic znode is too big for the count
		}
		m.form.fail(fl, err)
		return
	}
	m.fr.Stage = stagePreview
	m.form.blur()
	m.pv.setNote("", false)
	if m.verdict.Level == cluster.WriteRefused {
		m.pv.setNote("Would not be written: "+m.verdict.Message(), true)
	}
}

func (m *Model) brokerCount(mode cluster.RackAwareMode) int {
	bs, err := clusterops.PlacementBrokers(m.snap, mode)
	if err != nil {
		return 0
	}
	return len(bs)
}

// replan computes the plan of req with the chosen start index and shift.
func (m *Model) replan(req clusterops.TopicRequest) error {
	req.StartIndex, req.ReplicaShift = m.pv.start, m.pv.shift
	req.Seed, req.HasSeed = m.pv.seed, m.pv.hasSeed
	if req.Assignment != nil {
		req.StartIndex, req.ReplicaShift = -1, -1
	}
	plan, err := clusterops.PlanTopic(m.snap, req)
	if err != nil {
		return err
	}
	m.pv.set(req, plan, m.snap)
	return nil
}

// reroll draws a new random start index and shift (different from the
// current pair whenever another exists).
func (m *Model) reroll() {
	if m.pv.plan == nil || m.pv.plan.Manual {
		return
	}
	if m.pv.plan.Result.Striped {
		for old := m.pv.seed; m.pv.seed == old; {
			m.pv.seed = clusterops.DrawSeed(m.rng)
		}
		m.replanPreview()
		return
	}
	n := len(m.pv.plan.Brokers)
	if n == 0 {
		return
	}
	for range 16 {
		s, h := m.rng.IntN(n), m.rng.IntN(n)
		if s != m.pv.start || h != m.pv.shift || n == 1 {
			m.pv.start, m.pv.shift = s, h
			break
		}
	}
	m.replanPreview()
}

// step moves the start index by d, keeping the shift.
func (m *Model) step(d int) {
	if m.pv.plan == nil || m.pv.plan.Manual {
		return
	}
	if m.pv.plan.Result.Striped {
		m.pv.seed = max(m.pv.seed+int64(d), 0)
		m.replanPreview()
		return
	}
	n := len(m.pv.plan.Brokers)
	if n == 0 {
		return
	}
	m.pv.start = ((m.pv.start+d)%n + n) % n
	m.replanPreview()
}

func (m *Model) replanPreview() {
	if err := m.replan(m.pv.req); err != nil {
		m.pv.setNote(err.Error(), true)
		return
	}
	m.pv.setNote("", false)
}

// describeOps asks the writer what the creation would write now (through
// ZooKeeper: which parents are missing, whether an orphan config exists;
// on a KRaft cluster, the CreateTopics request): a Cmd.
func (m *Model) describeOps() tea.Cmd {
	plan, w := m.pv.plan, m.opt.Writer
	if plan == nil {
		return nil
	}
	words, backend := clusterops.WordsOf(w, m.snap), cluster.ViaZooKeeper
	if w != nil {
		backend = w.Backend()
	}
	head := wizard.OpsHead{Title: wizard.StepsTitle(backend, 1), Detail: words.CreateThen, Reading: words.CreateReading}
	return m.fr.DescribeWrites(head, w, func(w clusterops.Writer) (clusterops.Writes, error) {
		return w.CreateTopic(context.Background(), plan, clusterops.Describe)
	})
}

// create re-validates the previewed plan against the newest snapshot and,
// when it still yields exactly the same znodes, writes that plan.
func (m *Model) create() tea.Cmd {
	shown := m.pv.plan
	if shown == nil {
		return nil
	}
	req := m.pv.req
	req.StartIndex, req.ReplicaShift = shown.Result.StartIndex, shown.Result.ReplicaShift
	req.Seed, req.HasSeed = shown.Result.Seed, shown.Result.Striped
	if shown.Manual {
		req.StartIndex, req.ReplicaShift = -1, -1
	}
	fresh, err := clusterops.PlanTopic(m.snap, req)
	if err != nil {
		m.pv.setNote("Not created: "+err.Error(), true)
		return nil
	}
	if !clusterops.SamePlan(shown, fresh) {
		m.pv.set(req, fresh, m.snap)
		m.pv.setNote("Not created: the cluster changed since the preview ("+brokerChange(shown, fresh)+"), so the plan would differ. This is the new plan: check it and press enter again.", true)
		return nil
	}
	w := m.fr.Writer(m.opt.Writer)
	if w == nil {
		m.pv.setNote(wizard.ErrNoWriter.Error(), true)
		return nil
	}
	m.fr.Begin()
	m.tr = newTracker(shown, m.snap, m.now(), m.opt.Anims)
	m.tr.setSize(m.w, m.h)
	id := m.id
	now := m.now
	write := func() tea.Msg {
		start := now()
		if _, err := w.CreateTopic(context.Background(), shown, clusterops.Apply); err != nil {
			if w.MaybeWritten(err) {
				return nav.TaskMsg{Task: id, Msg: replyLostMsg{err, now().Sub(start)}}
			}
			return nav.TaskMsg{Task: id, Msg: createFailedMsg{err}}
		}
		return nav.TaskMsg{Task: id, Msg: topicCreatedMsg{took: now().Sub(start)}}
	}
	return tea.Batch(write, m.tick())
}

// verifyTimeout bounds finding out what became of a creation whose reply
// was lost: the session's return, then a read back.
const verifyTimeout = time.Minute

// verify finds out what became of the creation whose reply was lost:
// I/O, so a Cmd.
func (m *Model) verify(err error) tea.Cmd {
	w, plan, id := m.opt.Writer, m.tr.plan, m.id
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
		defer cancel()
		return nav.TaskMsg{Task: id, Msg: verifiedMsg{w.VerifyCreate(ctx, plan, err)}}
	}
}

// brokerChange says how the registered brokers of two plans differ.
func brokerChange(a, b *clusterops.TopicPlan) string {
	d := a.BrokerDiff(b)
	s := ""
	if len(d.Left) > 0 {
		s = text.Plural(len(d.Left), "broker ", "brokers ") + text.Ints(d.Left) + " left"
	}
	if len(d.Joined) > 0 {
		if s != "" {
			s += ", "
		}
		s += text.Plural(len(d.Joined), "broker ", "brokers ") + text.Ints(d.Joined) + " joined"
	}
	if d.Empty() {
		s = "racks or registrations changed"
	}
	return s
}
