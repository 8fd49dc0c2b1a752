// Package operate is the operation wizard, a screen the shell pushes for
// an operation on the cluster: draining a broker (`d` on a broker card),
// moving a topic's partitions or changing its replication factor (`R` on
// a topic), adding partitions (`a`), a preferred leader election (`p` on
// a real cluster) and a topic's config overrides (`e`). Each plans with
// the domain function its command does (cluster.PlanDrain and
// PlanTopicMove on top of --generate, PlanAddPartitions,
// PlanPreferredElection, PlanTopicConfigAlteration: reassignments here,
// the others in add.go, elect.go and configs.go), and all have the
// creation wizard's shape; a drain's:
//
//  1. preview: the plan, made from the newest snapshot by the same domain
//     function the command line uses (cluster.PlanDrain is
//     `ktopo reassign --generate` of every topic on the broker onto the
//     others); the load by rack and broker before→after (the heat map),
//     then every moved partition by rack, copied and removed replicas
//     marked; the counts of replicas to copy and preferred leaders that
//     change for both strategies (`s` switches minimal/kafka), the
//     throttle (`t`), warnings (rack spread lost, replication factor above
//     the racks, target brokers offline); `w` shows the exact multi
//     (cluster.PlanReassignment's ops), `enter` asks for confirmation;
//  2. writing: the moves are checked against the newest snapshot (a
//     partition changed since the preview sends the wizard back to it);
//     by default the leaders first leave the broker where Kafka allows it
//     (leaders.go: a reorder-only reassignment, a preferred election;
//     `L` turns it off), then cluster.ExecuteReassignment writes the
//     throttles and /admin/reassign_partitions in one multi, through
//     cluster.Write;
//  3. progress: every partition's phase (queued, adding, leader, in sync,
//     removing, done) read by cluster.ReassignTracker from the snapshots
//     the shell pushes, with what stalled partitions wait for; then a
//     summary.
//
// As in the creation wizard, the write runs in a tea.Cmd holding copies
// and its outcome comes back in a nav.TaskMsg addressed with Options.Task,
// so esc during the write or the progress leaves the reassignment going:
// the shell keeps the wizard in its background list and shows its
// TaskStatus in the status bar until every partition is done.
package operate

import (
	"math/rand/v2"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// Options configure an operation wizard.
type Options struct {
	Styles theme.Styles
	Keys   keys.Map
	// Writer is the ZooKeeper session the operation reads the configs it
	// changes through and writes through (nil: the preview only).
	Writer clusterops.ZK
	// Broker is the broker to drain; Topic, when set, the topic whose
	// partitions move instead (Broker is then ignored).
	Broker int
	Topic  string
	// AddPartitions, with Topic, adds partitions to it instead of moving
	// its partitions.
	AddPartitions bool
	// Elect runs a preferred leader election of Topic ("" for every
	// topic) instead.
	Elect bool
	// Configs, with Topic, edits the topic's config overrides instead.
	Configs bool
	// Now is the clock (default time.Now); Rand draws the kafka
	// strategy's start index and shift (default: randomly seeded).
	Now  func() time.Time
	Rand *rand.Rand
	// Pace reads the sandbox's pace; non-nil enables the pace key.
	Pace func() time.Duration
	// Task is the id the shell gave this wizard (nav.TaskMsg).
	Task int
	// Production asks, in the confirmation, for the drained broker's id
	// to be typed before anything is written (a production context).
	Production bool
}

// kind is the operation.
type kind uint8

const (
	kindDrain   kind = iota // every replica off a broker
	kindMove                // a topic's partitions, maybe to another RF
	kindAdd                 // partitions added to a topic
	kindElect               // a preferred leader election
	kindConfigs             // a topic's config overrides
)

type stage uint8

const (
	stagePreview  stage = iota // the plan, maybe with the popup or the znodes
	stageWriting               // the multi is in flight
	stageLeading               // a drain's leadership step (leaders.go)
	stageProgress              // written; the controller moves the replicas
	stageDone                  // every partition reassigned
	stageFailed                // nothing was written, or it is not known
)

// throttles are the values `t` cycles through, in bytes per second (-1:
// none).
var throttles = []int64{-1, 10 << 20, 50 << 20, 100 << 20}

// Model is the operation wizard.
type Model struct {
	opt  Options
	st   theme.Styles
	km   keys.Operation
	wz   keys.Wizard
	back key.Binding // esc while the production field has the keyboard
	id   int
	w, h int
	snap *cluster.Snapshot
	now  func() time.Time
	rng  *rand.Rand

	stage  stage
	kind   kind
	broker int
	topic  string
	// rf is the replication factor asked for (a topic), curRF the
	// topic's now.
	rf, curRF int
	// count is the partition count asked for (kindAdd), add its plan.
	count int
	add   *clusterops.AddPartitionsPlan
	// elect is the election previewed; electRows the partitions it
	// writes (those that need none are only counted); sawPending: the
	// mirror showed the election's znode.
	elect      *clusterops.ElectionPlan
	electRows  []clusterops.ElectionPartition
	sawPending bool
	// The config editor: the field and its checker, whether it has the
	// keyboard, what it says, the planned change and its multi.
	cfgIn                  textinput.Model
	cfg                    wizard.ConfigField
	editing                bool
	cfgErr, cfgOK, cfgHint string
	alt                    *clusterops.ConfigAlteration
	cfgOps                 []any
	// cfgSince says what happened to the topic's configs after the
	// write, when the mirror shows something else ("" when it shows it).
	cfgSince string
	strategy clusterops.Strategy
	throttle int64

	// The preview: the plan of both strategies, the chosen one's moves,
	// what it warns of; planErr when there is no plan.
	gen     *clusterops.GeneratePlan
	moves   []clusterops.PartitionMove
	warn    clusterops.MoveWarnings
	planErr error
	note    string
	noteErr bool
	pv      preview

	// The leadership step of a drain (leaders.go): on (the default),
	// its plan for the moves shown, its phase once written, whether it
	// wrote anything (a failure then says so) and how it ended.
	leadFirst bool
	lead      *clusterops.LeadershipFirst
	leadPhase leadPhase
	leadWrote bool
	leadAt    time.Time
	leadSeen  bool
	leadMoved int

	confirm bool
	button  int
	// typed is the confirmation's field on a production cluster.
	typed   textinput.Model
	showOps bool
	opsRaw  []string // DescribeOps of the multi
	ops     []string // opsRaw wrapped to opsW columns
	opsW    int
	opsErr  error
	opsWin  cursor.Window
	opsSeq  int // which plan the ops were asked for
	// opsSteps are the multis opsRaw shows, each as DescribeOps lines,
	// in the order they are written (a drain's leadership step first).
	opsSteps [][]string

	// The write and the progress.
	plan     *clusterops.ReassignPlan
	tracker  *clusterops.ReassignTracker
	pr       clusterops.ReassignProgress
	pg       progress
	started  time.Time
	finished time.Time
	err      error
	// unthrottle removes a throttled reassignment's throttles once it
	// is done (throttles.go).
	unthrottle unthrottle

	detached bool
	ticking  bool
	noTicks  bool
	pace     wizard.Pace
}

// New returns the wizard for draining o.Broker, or moving o.Topic's
// partitions; its plan is made from the first snapshot the shell gives it.
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	rng := o.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	m := &Model{opt: o, st: o.Styles, km: o.Keys.Operation, wz: o.Keys.Wizard, back: o.Keys.Global.Back, id: o.Task, now: o.Now, rng: rng,
		broker: o.Broker, topic: o.Topic, strategy: clusterops.StrategyMinimal, throttle: -1, leadFirst: true}
	if o.Configs {
		m.broker, m.kind, m.editing = -1, kindConfigs, true
		m.cfg = wizard.NewConfigField()
		m.cfgIn = theme.NewInput(m.st, "")
		m.cfgIn.ShowSuggestions = true
		m.cfgIn.Focus()
	} else if o.Elect {
		m.broker, m.kind = -1, kindElect
		m.pv.renderRow = m.electRow
	} else if o.Topic != "" {
		m.broker, m.kind = -1, kindMove
		if o.AddPartitions {
			m.kind = kindAdd
		}
	}
	m.wz.BackToForm.SetHelp("enter/esc", "back to the preview")
	if m.pv.renderRow == nil {
		m.pv.renderRow = m.pv.row
	}
	m.typed = theme.NewInput(m.st, "› ")
	m.typed.SetWidth(12)
	m.syncKeys()
	return m
}

// typing: the production confirmation's field has the keyboard.
func (m *Model) typing() bool { return m.opt.Production && m.stage == stagePreview && m.confirm }

// confirmWord is what a production confirmation asks to type: the
// topic's name, the drained broker's id.
func (m *Model) confirmWord() string {
	if m.kind == kindElect && m.topic == "" {
		return "all"
	}
	if m.topic != "" {
		return m.topic
	}
	return strconv.Itoa(m.broker)
}

// Broker is the broker drained (-1 for a topic's move).
func (m *Model) Broker() int { return m.broker }

// Topic is the topic whose partitions move ("" for a drain).
func (m *Model) Topic() string { return m.topic }

// Adding reports that the wizard adds partitions.
func (m *Model) Adding() bool { return m.kind == kindAdd }

// Count is the partition count asked for (adding partitions).
func (m *Model) Count() int { return m.count }

// AddPlan is the partition addition previewed (nil unless adding).
func (m *Model) AddPlan() *clusterops.AddPartitionsPlan { return m.add }

// RF is the replication factor asked for (a topic's move).
func (m *Model) RF() int { return m.rf }

// Moves are the moves the preview shows (and the write writes).
func (m *Model) Moves() []clusterops.PartitionMove { return m.moves }

// Plan is the reassignment written (nil before the write).
func (m *Model) Plan() *clusterops.ReassignPlan { return m.plan }

// Progress is the reassignment's progress (zero before the write).
func (m *Model) Progress() clusterops.ReassignProgress { return m.pr }

// Strategy is the strategy chosen.
func (m *Model) Strategy() clusterops.Strategy { return m.strategy }

// Throttle is the throttle chosen (-1: none).
func (m *Model) Throttle() int64 { return m.throttle }

// Stage names the current stage: "preview", "confirm", "writing",
// "progress", "done" or "failed".
func (m *Model) Stage() string {
	switch m.stage {
	case stagePreview:
		if m.confirm {
			return "confirm"
		}
		return "preview"
	case stageWriting:
		return "writing"
	case stageLeading:
		return "leading"
	case stageProgress:
		return "progress"
	case stageDone:
		return "done"
	}
	return "failed"
}

func (m *Model) subject() string {
	if m.kind == kindElect {
		if m.topic == "" {
			return "every topic"
		}
		return "topic " + m.topic
	}
	if m.topic != "" {
		return "topic " + m.topic
	}
	return "broker " + strconv.Itoa(m.broker)
}

// verb is the operation in the form asked: "Drain", "Draining",
// "Drained" (ing, ed: the suffix).
func (m *Model) verb(form string) string {
	if m.kind == kindConfigs {
		switch form {
		case "ing":
			return "Changing the configs of"
		case "ed":
			return "Changed the configs of"
		}
		return "Configs of"
	}
	if m.kind == kindElect {
		switch form {
		case "ing":
			return "Electing the preferred leaders of"
		case "ed":
			return "Elected the preferred leaders of"
		}
		return "Elect the preferred leaders of"
	}
	if m.kind == kindAdd {
		switch form {
		case "ing":
			return "Adding partitions to"
		case "ed":
			return "Added partitions to"
		}
		return "Add partitions to"
	}
	if m.topic != "" {
		return "Reassign" + form
	}
	if form == "ing" {
		return "Draining"
	}
	return "Drain" + form
}

// Title implements ui.Screen.
func (m *Model) Title() string {
	switch m.stage {
	case stagePreview:
		return m.verb("") + " " + m.subject() + ": preview"
	case stageDone:
		return m.verb("ed") + " " + m.subject()
	}
	return m.verb("ing") + " " + m.subject()
}

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.settle()
}

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) {
	m.st = st
	theme.StyleInput(&m.typed, st)
	m.settle()
}

// SetSnapshot implements ui.SnapshotSetter: the first one makes the plan;
// later ones refresh the load the preview shows (the plan stays what was
// shown until the write re-checks it) and move the progress on.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if s == nil || s == m.snap {
		return
	}
	first := m.snap == nil
	m.snap = s
	switch m.stage {
	case stagePreview:
		if first {
			m.replan()
		}
	case stageLeading:
		m.observeLeading()
	case stageProgress, stageDone:
		m.observe()
	}
	m.settle()
}

// replan makes the plan of both strategies from the newest snapshot.
func (m *Model) replan() {
	if m.kind == kindConfigs {
		if m.editing && m.cfgIn.Value() == "" {
			m.initConfigs()
		}
		return
	}
	if m.kind == kindElect {
		m.replanElect()
		return
	}
	if m.kind == kindAdd {
		m.replanAdd()
		return
	}
	if m.topic == "" {
		m.gen, m.planErr = clusterops.PlanDrain(m.snap, clusterops.DrainRequest{Broker: m.broker, Strategy: m.strategy, Rand: m.rng})
		m.choose()
		return
	}
	if m.curRF == 0 {
		if t := m.snap.Topic(m.topic); t != nil && len(t.Partitions) > 0 {
			m.curRF = len(t.Partitions[0].Replicas)
			m.rf = m.curRF
		}
	}
	m.gen, m.planErr = clusterops.PlanTopicMove(m.snap, clusterops.TopicMoveRequest{Topic: m.topic, RF: m.rf, Strategy: m.strategy, Rand: m.rng})
	m.choose()
}

// choose takes the chosen strategy's moves from the plan.
func (m *Model) choose() {
	m.moves, m.warn = nil, clusterops.MoveWarnings{}
	if m.gen != nil {
		m.moves = m.gen.Moves(m.strategy)
		m.warn = clusterops.WarnMoves(m.snap, m.moves)
	}
	m.lead = nil
	if m.kind == kindDrain && m.snap != nil {
		m.lead = clusterops.PlanLeadershipFirst(m.snap, m.broker, m.moves)
	}
	m.showOps, m.opsRaw, m.ops, m.opsErr = false, nil, nil, nil
	m.opsSteps = nil
	m.opsSeq++
	m.pv.set(m.snap, m.moves)
}

func (m *Model) observe() {
	if m.kind == kindConfigs {
		m.observeConfigs()
		return
	}
	if m.kind == kindElect {
		m.observeElect()
		return
	}
	if m.kind == kindAdd {
		m.observeAdd()
		return
	}
	if m.tracker == nil {
		return
	}
	m.pr = m.tracker.Update(m.snap)
	m.pg.observe(m.snap, &m.pr)
	if m.stage == stageProgress && m.pr.Done() {
		m.stage = stageDone
		m.finished = m.now()
		if m.throttled() {
			m.unthrottle.phase = unthrottleDue
		}
	}
}

// Capturing implements ui.Capturer: on a production cluster the
// confirmation's field takes every key.
func (m *Model) Capturing() bool { return m.typing() || (m.kind == kindConfigs && m.editing) }

// Back implements ui.Backer: esc closes the popup or the znodes, returns
// from a failure to the preview; otherwise the shell closes the wizard
// (a running reassignment then goes on in the background).
func (m *Model) Back() bool {
	defer m.settle()
	switch {
	case m.stage == stagePreview && m.confirm:
		m.confirm = false
		return true
	case m.stage == stagePreview && m.showOps:
		m.showOps = false
		return true
	case m.kind == kindConfigs && m.stage == stagePreview && !m.editing:
		m.editing = true
		m.alt, m.moves = nil, nil
		m.cfgIn.Focus()
		return true
	case m.stage == stageFailed:
		m.toPreview()
		return true
	}
	return false
}

// Detach implements ui.Task: closing the wizard while the reassignment
// is written or runs, or its throttles are being removed, keeps it in
// the background.
func (m *Model) Detach() bool {
	if m.stage == stageWriting || m.stage == stageLeading || m.stage == stageProgress || m.removingThrottles() {
		m.detached = true
		return true
	}
	return false
}

// TaskStatus implements ui.Task: the status bar's line while the wizard
// works in the background.
func (m *Model) TaskStatus() (string, nav.TaskState) {
	switch m.stage {
	case stageWriting:
		return m.verb("ing") + " " + m.subject() + ": writing the reassignment…", nav.TaskRunning
	case stageLeading:
		return m.verb("ing") + " " + m.subject() + ": leaders first, " + strconv.Itoa(m.leadMoved) + "/" + strconv.Itoa(len(m.lead.Elect)) + " moved off", nav.TaskRunning
	case stageProgress:
		s := m.verb("ing") + " " + m.subject() + ": " + strconv.Itoa(m.pr.Count[cluster.ReassignDone]) + "/" + strconv.Itoa(len(m.pr.Partitions)) + " partitions " + m.pg.doneWord()
		if w := m.pg.waiting(&m.pr); len(w) > 0 {
			s += " — waiting: " + w[0]
		}
		return s, nav.TaskRunning
	case stageDone:
		if m.removingThrottles() {
			return m.verb("ing") + " " + m.subject() + ": every partition " + m.pg.doneWord() + "; removing the throttles…", nav.TaskRunning
		}
		return m.summaryLine(), nav.TaskDone
	case stageFailed:
		return m.verb("ing") + " " + m.subject() + " failed: " + m.err.Error(), nav.TaskFailed
	}
	return "", nav.TaskDone
}

func (m *Model) summaryLine() string {
	s := m.verb("ed") + " " + m.subject() + ": " + text.Count(len(m.pr.Partitions), "partition") + " moved in " + m.finished.Sub(m.started).Round(time.Millisecond).String()
	switch {
	case m.kind == kindConfigs:
		return m.configsSummary()
	case m.kind == kindElect:
		return m.electSummary()
	case m.kind == kindAdd:
		return m.verb("ed") + " " + m.subject() + ": " + text.Count(len(m.pr.Partitions), "new partition") + " online in " +
			m.finished.Sub(m.started).Round(time.Millisecond).String() + "; it has " + strconv.Itoa(m.count) + " partitions"
	case m.topic != "":
		s += "; replication factor " + strconv.Itoa(m.rf)
		if t := m.throttlesLine(); t != "" {
			s += "; " + t
		}
		return s
	}
	if b, ok := m.snap.Broker(m.broker); ok && b.Replicas > 0 {
		s += "; it still holds " + text.Count(b.Replicas, "replica") + " (placed there since the plan)"
	} else {
		s += "; it holds no replica"
	}
	if m.leadWrote && m.lead != nil {
		s += "; leaders first: " + strconv.Itoa(m.leadMoved) + "/" + strconv.Itoa(len(m.lead.Elect)) + " moved off before the copy"
	}
	if t := m.throttlesLine(); t != "" {
		s += "; " + t
	}
	return s
}

func (m *Model) toPreview() {
	m.stage = stagePreview
	m.confirm, m.showOps = false, false
	m.plan, m.tracker, m.err = nil, nil, nil
	m.unthrottle = unthrottle{}
	m.leadPhase, m.leadWrote = leadNone, false
	if m.snap != nil {
		m.replan()
	}
}

// msgs of the wizard's own commands, delivered in nav.TaskMsg.
type (
	// reassignStartedMsg: the multi succeeded.
	reassignStartedMsg struct{ plan *clusterops.ReassignPlan }
	// electionStartedMsg: the election's znode was created.
	electionStartedMsg struct{}
	// partitionsAddedMsg: the topic znode was written.
	partitionsAddedMsg struct{}
	// reassignFailedMsg: the plan or the multi failed.
	reassignFailedMsg struct{ err error }
	// opsDescribedMsg: the exact multi (the `w` view).
	opsDescribedMsg struct {
		seq   int
		lines []string
		steps [][]string
		err   error
	}
	// tickMsg moves the elapsed time on.
	tickMsg struct{}
)

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	cmd, req := m.update(msg)
	if m.unthrottle.phase == unthrottleDue {
		// Done since the last message (or by this one): the throttles go.
		cmd = tea.Batch(cmd, m.clearThrottles())
	}
	m.settle()
	return cmd, req
}

// settle brings what derives from the state up to date: the keys in
// force, the layout. Every entry point ends here.
func (m *Model) settle() {
	m.syncKeys()
	m.layout()
}

// syncKeys enables the bindings of the current stage and no others.
func (m *Model) syncKeys() {
	set := func(on bool, bs ...*key.Binding) {
		for _, b := range bs {
			b.SetEnabled(on)
		}
	}
	km, wz := &m.km, &m.wz
	preview := m.stage == stagePreview && !m.confirm
	confirm := m.stage == stagePreview && m.confirm
	working := m.stage == stageWriting || m.stage == stageLeading || m.stage == stageProgress
	set(preview && len(m.moves) > 0, &km.Start, &km.Written)
	set(preview && len(m.moves) > 0 && m.kind < kindAdd, &km.Throttle)
	set(preview && m.gen != nil && m.kind < kindAdd, &km.Strategy)
	set(preview && m.kind == kindDrain && !m.lead.Empty(), &km.LeadersFirst)
	set(preview && m.kind == kindMove && m.snap != nil && m.rf < len(m.snap.LiveBrokerIDs()), &km.MoreReplicas)
	set(preview && m.kind == kindMove && m.rf > 1, &km.FewerReplicas)
	set(preview && m.kind == kindAdd && m.snap != nil, &km.MorePartitions)
	set(preview && m.kind == kindAdd && m.add != nil && m.count > m.add.Existing+1, &km.FewerPartitions)
	set(preview || working || m.stage == stageDone, &wz.ScrollUp, &wz.ScrollDown, &wz.PageUp, &wz.PageDown)
	set(confirm && !m.opt.Production, &km.Confirm, &wz.Cancel, &wz.SwitchButton)
	set(confirm, &wz.Choose)
	set(confirm && m.opt.Production, &m.back)
	set(m.opt.Pace != nil && (working || m.stage == stageDone), &wz.Pace)
	set(m.stage == stageFailed, &wz.BackToForm)
	editing := m.kind == kindConfigs && m.editing && m.stage == stagePreview
	set(editing, &wz.Complete, &wz.Clear, &wz.Submit)
	if editing {
		set(false, &km.Start, &km.Written, &wz.ScrollUp, &wz.ScrollDown, &wz.PageUp, &wz.PageDown)
	}
	set(m.typing() || editing, &m.back)
}

func (m *Model) update(msg tea.Msg) (tea.Cmd, nav.Request) {
	switch msg := msg.(type) {
	case configsPlannedMsg:
		m.configsPlanned(msg)
		return nil, nil
	case configsWrittenMsg:
		if m.stage != stageWriting {
			return nil, nil
		}
		m.stage = stageProgress
		m.observe()
		return nil, nil
	case electionStartedMsg:
		if m.stage != stageWriting {
			return nil, nil
		}
		m.stage = stageProgress
		m.pg.set(m.moves, -1, &electGlyphs)
		m.observe()
		return m.tick(), nil
	case partitionsAddedMsg:
		if m.stage != stageWriting {
			return nil, nil
		}
		m.stage = stageProgress
		m.pg.set(m.moves, -1, &addGlyphs)
		m.observe()
		return m.tick(), nil
	case leadWrittenMsg, leadElectionMsg:
		return m.leadStep(msg), nil
	case reassignStartedMsg:
		if m.stage != stageWriting && m.stage != stageLeading {
			return nil, nil
		}
		if m.stage == stageLeading {
			m.moves = msg.plan.Moves
		}
		m.plan = msg.plan
		m.stage = stageProgress
		m.tracker = clusterops.NewReassignTracker(msg.plan.Moves, msg.plan.TopicVersions)
		m.pg.set(msg.plan.Moves, msg.plan.Throttle, &reassignGlyphs)
		m.observe()
		return m.tick(), nil
	case reassignFailedMsg:
		if m.stage != stageWriting && m.stage != stageLeading {
			return nil, nil
		}
		m.stage, m.err = stageFailed, msg.err
	case opsDescribedMsg:
		if msg.seq == m.opsSeq {
			m.opsRaw, m.ops, m.opsErr, m.opsSteps = msg.lines, nil, msg.err, msg.steps
			m.opsWin = cursor.Window{}
		}
	case throttlesMsg:
		m.throttlesDone(msg)
	case tickMsg:
		m.ticking = false
		if m.kind == kindElect && m.stage == stageProgress {
			m.observe() // the grace for an unseen znode runs out
		}
		if m.stage == stageLeading {
			return tea.Batch(m.leadStep(nil), m.tick()), nil
		}
		return m.tick(), nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseWheelMsg:
		m.scroll(cursor.WheelStep * cursor.WheelNotch(msg))
	}
	return nil, nil
}

// tick redraws the elapsed time while the wizard is on screen and waits.
func (m *Model) tick() tea.Cmd {
	// The leadership step moves on by the ticks, in the background too,
	// and so does a throttled reassignment: the tick after its last
	// partition is done removes the throttles.
	background := m.stage == stageLeading || m.throttled()
	if m.ticking || (m.detached && !background) || m.noTicks || (m.stage != stageWriting && m.stage != stageLeading && m.stage != stageProgress) {
		return nil
	}
	m.ticking = true
	id := m.id
	return tea.Tick(500*time.Millisecond, func(time.Time) tea.Msg { return nav.TaskMsg{Task: id, Msg: tickMsg{}} })
}

func (m *Model) scroll(d int) {
	switch {
	case m.stage == stagePreview && m.showOps:
		m.opsWin.Scroll(d)
	case m.stage == stagePreview:
		m.pv.win.Scroll(d)
	default:
		m.pg.win.Scroll(d)
	}
}

func (m *Model) page(d int) {
	switch {
	case m.stage == stagePreview && m.showOps:
		m.opsWin.Scroll(d * max(m.opsWin.H-1, 1))
	case m.stage == stagePreview:
		m.pv.win.Scroll(d * max(m.pv.win.H-1, 1))
	default:
		m.pg.win.Scroll(d * max(m.pg.win.H-1, 1))
	}
}

func (m *Model) key(msg tea.KeyPressMsg) (tea.Cmd, nav.Request) {
	km, wz := &m.km, &m.wz
	if m.kind == kindConfigs && m.editing && m.stage == stagePreview {
		return m.configKey(msg)
	}
	if m.typing() {
		if key.Matches(msg, m.back) {
			m.confirm = false
			return nil, nil
		}
		if key.Matches(msg, wz.Choose) {
			if m.typed.Value() != m.confirmWord() {
				m.note, m.noteErr = "Not written: type "+m.confirmWord()+" to confirm on a production cluster.", true
				m.confirm = false
				return nil, nil
			}
			return m.write(), nil
		}
		var cmd tea.Cmd
		m.typed, cmd = m.typed.Update(msg)
		return cmd, nil
	}
	if m.stage == stagePreview && m.confirm {
		switch {
		case key.Matches(msg, km.Confirm):
			return m.write(), nil
		case key.Matches(msg, wz.Cancel):
			m.confirm = false
		case key.Matches(msg, wz.Choose):
			if m.button == 0 {
				return m.write(), nil
			}
			m.confirm = false
		case key.Matches(msg, wz.SwitchButton):
			m.button = 1 - m.button
		}
		return nil, nil
	}
	switch {
	case key.Matches(msg, km.Start):
		m.confirm, m.button = true, 0
		m.note = ""
		if m.opt.Production {
			m.typed.SetValue("")
			return m.typed.Focus(), nil
		}
	case key.Matches(msg, km.Strategy):
		m.strategy = 1 - m.strategy
		m.choose()
	case key.Matches(msg, km.LeadersFirst):
		m.leadFirst = !m.leadFirst
		m.showOps, m.opsRaw, m.ops, m.opsErr, m.opsSteps = false, nil, nil, nil, nil
		m.opsSeq++
	case key.Matches(msg, km.MoreReplicas):
		m.rf++
		m.replan()
	case key.Matches(msg, km.FewerReplicas):
		m.rf--
		m.replan()
	case key.Matches(msg, km.MorePartitions):
		m.count++
		m.replan()
	case key.Matches(msg, km.FewerPartitions):
		m.count--
		m.replan()
	case key.Matches(msg, km.Throttle):
		m.throttle = nextThrottle(m.throttle)
		m.opsSeq++
		if m.showOps {
			return m.describeOps(), nil
		}
	case key.Matches(msg, km.Written):
		if m.showOps {
			m.showOps = false
			return nil, nil
		}
		return m.describeOps(), nil
	case key.Matches(msg, wz.ScrollUp):
		m.scroll(-1)
	case key.Matches(msg, wz.ScrollDown):
		m.scroll(1)
	case key.Matches(msg, wz.PageUp):
		m.page(-1)
	case key.Matches(msg, wz.PageDown):
		m.page(1)
	case key.Matches(msg, wz.Pace):
		return nil, m.nextPace()
	case key.Matches(msg, wz.BackToForm):
		m.toPreview()
	}
	return nil, nil
}

func nextThrottle(cur int64) int64 {
	for i, t := range throttles {
		if t == cur {
			return throttles[(i+1)%len(throttles)]
		}
	}
	return -1
}

// currentPace is the pace shown: the one chosen here, else the sandbox's.
func (m *Model) currentPace() time.Duration { return m.pace.Current(m.opt.Pace) }

func (m *Model) nextPace() nav.Request { return nav.SetPace{Pace: m.pace.Next(m.opt.Pace)} }

type wizardError string

func (e wizardError) Error() string { return string(e) }

const errNoWriter = wizardError("This session cannot write to ZooKeeper (read-only).")

// describeOps asks ZooKeeper for the configs the throttles change and
// shows the exact multi cluster.PlanReassignment builds: I/O, so a Cmd.
func (m *Model) describeOps() tea.Cmd {
	m.showOps, m.opsRaw, m.ops, m.opsErr = true, nil, nil, nil
	if m.kind == kindElect {
		return m.describeElection()
	}
	if m.kind == kindConfigs {
		m.opsRaw = clusterops.DescribeOps(m.cfgOps) // read when planned
		return nil
	}
	if m.kind == kindAdd {
		if m.add != nil {
			m.opsRaw = clusterops.DescribeOps(clusterops.AddPartitionsOps(m.add)) // pure: no read needed
		}
		return nil
	}
	z := m.opt.Writer
	if z == nil {
		m.opsErr = errNoWriter
		return nil
	}
	if m.leadingFirst() {
		return m.describeLeading()
	}
	snap, rs, throttle, seq, id := m.snap, clusterops.MovesAsReassignments(m.moves), m.throttle, m.opsSeq, m.id
	return func() tea.Msg {
		plan, err := clusterops.PlanReassignment(snap, z, rs, throttle)
		var lines []string
		if err == nil {
			lines = clusterops.DescribeOps(plan.Ops)
		}
		return nav.TaskMsg{Task: id, Msg: opsDescribedMsg{seq: seq, lines: lines, steps: [][]string{lines}, err: err}}
	}
}

// write checks the previewed moves against the newest snapshot and, when
// every moved partition still has the replicas the plan was made from,
// writes them as the command line's --execute does.
func (m *Model) write() tea.Cmd {
	m.confirm = false
	if len(m.moves) == 0 {
		return nil
	}
	if m.kind == kindAdd {
		return m.writeAdd()
	}
	if m.kind == kindElect {
		return m.writeElection()
	}
	if m.kind == kindConfigs {
		return m.writeConfigs()
	}
	if stale := clusterops.StaleMoves(m.snap, m.moves); len(stale) > 0 {
		m.replan()
		m.note, m.noteErr = "Not written: "+text.Count(len(stale), "partition")+" changed since the preview ("+stale[0].String()+
			"…). This is the new plan: check it and press enter again.", true
		return nil
	}
	z := m.opt.Writer
	if z == nil {
		m.note, m.noteErr = errNoWriter.Error(), true
		return nil
	}
	if m.leadingFirst() {
		return m.writeLeading()
	}
	m.stage = stageWriting
	m.started = m.now()
	snap, rs, throttle, id := m.snap, clusterops.MovesAsReassignments(m.moves), m.throttle, m.id
	write := func() tea.Msg {
		plan, err := clusterops.PlanReassignment(snap, z, rs, throttle)
		if err == nil {
			err = clusterops.ExecuteReassignment(z, plan)
		}
		if err != nil {
			return nav.TaskMsg{Task: id, Msg: reassignFailedMsg{err}}
		}
		return nav.TaskMsg{Task: id, Msg: reassignStartedMsg{plan}}
	}
	return tea.Batch(write, m.tick())
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km, wz := &m.km, &m.wz
	if m.kind == kindConfigs && m.editing && m.stage == stagePreview {
		return []key.Binding{wz.Submit, wz.Complete, wz.Clear, m.back}
	}
	switch m.stage {
	case stagePreview:
		if m.confirm {
			return []key.Binding{km.Confirm, wz.Cancel, wz.Choose, m.back}
		}
		return []key.Binding{km.Start, km.MoreReplicas, km.FewerReplicas, km.MorePartitions, km.FewerPartitions, km.Strategy, km.Throttle, km.LeadersFirst, km.Written}
	case stageFailed:
		return []key.Binding{wz.BackToForm}
	}
	return []key.Binding{wz.Pace, wz.ScrollDown}
}

// FullHelp implements help.KeyMap: every binding; the current stage's are
// enabled (syncKeys).
func (m *Model) FullHelp() [][]key.Binding {
	km, wz := &m.km, &m.wz
	return [][]key.Binding{
		{km.Start, km.MoreReplicas, km.FewerReplicas, km.MorePartitions, km.FewerPartitions, km.Strategy, km.Throttle, km.LeadersFirst, km.Written},
		{km.Confirm, wz.Cancel, wz.SwitchButton, wz.Choose, m.back},
		{wz.Pace, wz.BackToForm},
		{wz.Submit, wz.Complete, wz.Clear},
		{wz.ScrollUp, wz.ScrollDown, wz.PageUp, wz.PageDown},
	}
}

// Written is the exact multi `w` showed (cluster.DescribeOps lines; nil
// before it was read).
func (m *Model) Written() []string { return m.opsRaw }

// WrittenSteps are the multis `w` showed, in the order they are written,
// each as cluster.DescribeOps lines (a drain's leadership step first).
func (m *Model) WrittenSteps() [][]string { return m.opsSteps }

// LeadersFirst reports whether a drain moves the leaders first, and the
// step's plan for the moves shown.
func (m *Model) LeadersFirst() (bool, *clusterops.LeadershipFirst) { return m.leadFirst, m.lead }
