package operate

import (
	"math/rand/v2"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// operation is one of the wizard's operations: reassign (a drain, with
// its leaders-first step, or a topic's partitions), addPartitions,
// election, configs. The wizard (Model) runs what they share, through
// the frame: the stages, the popup, the exact-writes view, the note, the
// ticks, the background; an operation plans, draws its plan and its
// progress, writes, and follows what it wrote.
//
// Its writes go through the writer it is given (base.wr, a
// clusterops.Writer: ZooKeeper's multis, or Kafka's Admin API on a KRaft
// cluster), each as one call: the one describing the exact writes, the
// one writing them (a write in steps makes one call per step).
type operation interface {
	// verb is the operation in a form ("Drain", "Draining", "Drained");
	// subject what it acts on ("broker 3", "topic orders").
	verb(f form) string
	subject() string
	// replan makes the plan from the newest snapshot (b.snap).
	replan()
	// head are the lines above the rows: the plan in the preview, where
	// the operation stands once written.
	head(w int) []string
	// rows is what the screen shows under the head (nil: nothing).
	rows() rows
	// ready reports a plan that writes something: enter and w act.
	ready() bool
	// popup is the confirmation's body (nil: no plan to confirm), its
	// yes button, and the word a production confirmation asks for.
	popup() (body []string, yes, word string)
	// describe shows the exact writes: a command when they are read.
	describe() tea.Cmd
	// write checks the plan against the newest snapshot and, when it is
	// still the one previewed, writes it (else the note says why not).
	write() tea.Cmd
	// observe follows the written operation in the newest snapshot.
	observe()
	// update takes the operation's own messages (its writes' results,
	// the ticks) and returns what follows.
	update(msg tea.Msg) tea.Cmd
	// syncKeys enables the operation's own bindings (b.km) that act in
	// the preview (preview: the preview shows, no popup over it).
	syncKeys(preview bool)
	// key handles one of the operation's own bindings.
	key(msg tea.KeyPressMsg) tea.Cmd
	// summary is the status bar's line for the current stage, and the
	// task's state.
	summary() (string, nav.TaskState)
}

// form is the grammatical form of an operation's verb.
type form uint8

const (
	formBare form = iota // "Drain"
	formIng              // "Draining"
	formEd               // "Drained"
)

// verbs are an operation's verb in each form, by form.
type verbs [3]string

func (v *verbs) verb(f form) string { return v[f] }

// rows is what a wizard screen shows under its head: the matrix of the
// plan, the progress grid, the config table; a window over more lines
// than fit.
type rows interface {
	// layout sizes the rows for a w×h screen under head (in Update).
	layout(st *theme.Styles, w, h int, head []string)
	// lines appends the rows on screen to out.
	lines(st *theme.Styles, out []string) []string
	// scroll moves by d rows, page by d pages; end to the first (d < 0)
	// or the last rows.
	scroll(d int)
	page(d int)
	end(d int)
}

// base is what the operations share with the wizard running them: the
// frame, the cluster as last seen, the writer, the styles and keys, and
// the views most of them draw with (the matrix of a plan, the progress
// grid).
type base struct {
	fr   wizard.Frame
	snap *cluster.Snapshot
	wr   clusterops.Writer
	st   theme.Styles
	km   keys.Operation
	wz   keys.Wizard
	back key.Binding // esc while a text field has the keyboard
	// start is the operation's own enter (km.Drain, km.Elect…): the
	// help names what it asks to confirm.
	start *key.Binding
	rng   *rand.Rand
	w, h  int
	// savePlan keeps the plan of a reassignment ktopo leaves running.
	savePlan PlanSaver

	pv preview
	pg progress
	// pr is the written operation's progress, err why its write failed.
	pr  clusterops.ReassignProgress
	err error
	// sizes are the newest reading of the brokers' log directories (nil:
	// the shell never gave one); bytesNow is the status bar's progress by
	// bytes ("" without sizes).
	sizes    *cluster.Sizes
	bytesNow string
}

// sizer is an operation that shows bytes: each reading the shell hands
// the wizard re-measures it.
type sizer interface{ sized() }

// kind is what the wizard knows of an operation before it exists: how
// to make it, and how the shell names it when it refuses it.
type kind struct {
	make func(b *base, op nav.Operation) operation
	// what is the operation in the read-only refusal: "drain broker 3".
	what func(op nav.Operation) string
	// unavailable says that a session without a writer cannot do it.
	unavailable string
}

// kinds are the operations by the request that opens them: a row for
// every nav.OperationKind, at its index (TestEveryOperationKind).
var kinds = [...]kind{
	nav.OpDrain: {
		make: func(b *base, op nav.Operation) operation { return newReassign(b, op.Broker, "") },
		what: func(op nav.Operation) string {
			return "drain broker " + strconv.Itoa(op.Broker) + " (f shows what losing it would do)"
		},
		unavailable: "Reassignments are not available: this session cannot write to the cluster.",
	},
	nav.OpReassign: {
		make:        func(b *base, op nav.Operation) operation { return newReassign(b, -1, op.Topic) },
		what:        func(op nav.Operation) string { return "reassign topic " + op.Topic },
		unavailable: "Reassignments are not available: this session cannot write to the cluster.",
	},
	nav.OpAddPartitions: {
		make:        func(b *base, op nav.Operation) operation { return newAddPartitions(b, op.Topic) },
		what:        func(op nav.Operation) string { return "add partitions to topic " + op.Topic },
		unavailable: "Reassignments are not available: this session cannot write to the cluster.",
	},
	nav.OpElect: {
		make:        func(b *base, op nav.Operation) operation { return newElection(b, op.Topic) },
		what:        func(nav.Operation) string { return "start a preferred leader election" },
		unavailable: "Preferred leader elections are not available: this session cannot write to the cluster.",
	},
	nav.OpConfigs: {
		make:        func(b *base, op nav.Operation) operation { return newConfigs(b, op.Topic) },
		what:        func(op nav.Operation) string { return "alter the configs of topic " + op.Topic },
		unavailable: "Config changes are not available: this session cannot write to the cluster.",
	},
}

// Refusals are what the shell says instead of opening op: in read-only
// mode, and on a session that cannot write.
func Refusals(op nav.Operation) (readOnly, noWriter string) {
	k := kinds[op.Kind]
	return "read-only mode: refusing to " + k.what(op), k.unavailable
}

// writeFailedMsg: a write failed (nothing written, or not known).
type writeFailedMsg struct{ err error }

// fail is the command result of a failed write. Kafka's refusal of a
// reassignment while another runs comes without its tool's advice
// (--additional), which the wizard cannot follow.
func fail(reply func(tea.Msg) tea.Msg, err error) tea.Msg {
	if cluster.ErrorClass(err) == cluster.ClassReassignmentRunning {
		err = wizard.Error(clusterops.ReassignmentInProgress + " Another reassignment started meanwhile; nothing was written.")
	}
	return reply(writeFailedMsg{err})
}

// refresher is an operation whose preview follows the cluster: every
// snapshot after the first, not only the write, checks what would
// refuse it.
type refresher interface{ refresh() }

// replanned is the check a write starts with: stale says what changed
// since the preview ("" when nothing did). When something did, nothing is
// written: the plan is made again from the newest snapshot and the note
// says "Not written: " and stale.
func (b *base) replanned(op operation, stale string) bool {
	if stale == "" {
		return false
	}
	op.replan()
	b.noteErr("Not written: " + stale)
	return true
}

// begin starts the write of a plan that did not change since the preview
// (stale "", else see replanned): the writing stage, and the writer to
// write through. nil, with the note saying why, when nothing is written.
func (b *base) begin(op operation, stale string) clusterops.Writer {
	if b.replanned(op, stale) {
		return nil
	}
	w := b.writer()
	if w != nil {
		b.fr.Begin()
	}
	return w
}

// working reports a stage whose writes are sent or being carried out.
func (b *base) working() bool { return b.fr.Stage.Working() }

// noteErr shows an error note above the plan.
func (b *base) noteErr(s string) { b.fr.Note.Set(s, true) }

// writer is the session to write through; without one the note says so
// and it is nil.
func (b *base) writer() clusterops.Writer {
	if b.wr == nil {
		b.noteErr(wizard.ErrNoWriter.Error())
	}
	return b.fr.Writer(b.wr)
}

// words are how the writer's writes read (clusterops.WordsOf: those of
// the cluster's backend without a writer).
func (b *base) words() *clusterops.Words { return clusterops.WordsOf(b.wr, b.snap) }

// target is where the writes go (ZooKeeper without a writer).
func (b *base) target() cluster.Backend {
	if b.wr == nil {
		return cluster.ViaZooKeeper
	}
	return b.wr.Backend()
}

// planningLines say that the plan is being made, or (prefix, err) why
// there is none.
func planningLines(st *theme.Styles, w int, err error, prefix string) []string {
	msg := "Planning…"
	if err != nil {
		msg = prefix + err.Error()
	}
	out := wizard.Wrap(msg, w, 1)
	for i, l := range out {
		out[i] = st.Error.If(err != nil).S(l)
	}
	return out
}

// warningLines are warnings, each wrapped after a ⚠.
func warningLines(st *theme.Styles, w int, warns []string) []string {
	var out []string
	for _, wn := range warns {
		for _, l := range wizard.Wrap("⚠ "+wn, w, 1) {
			out = append(out, st.Warning.S(l))
		}
	}
	return out
}

// gridRows are the rows of an operation drawn as a matrix in its
// preview and as the progress grid once written.
func (b *base) gridRows() rows {
	switch b.fr.Stage {
	case wizard.StagePreview:
		return &b.pv
	case wizard.StageProgress, wizard.StageDone:
		return &b.pg
	}
	return nil
}

// status is the status bar's line of an operation whose progress the
// grid shows: writing while its write is in flight, the progress, done
// once done, the failure.
func (b *base) status(op operation, writing, done string) (string, nav.TaskState) {
	switch b.fr.Stage {
	case wizard.StageWriting:
		return op.verb(formIng) + " " + op.subject() + ": " + writing, nav.TaskRunning
	case wizard.StageProgress:
		return b.progressLine(op), nav.TaskRunning
	case wizard.StageDone:
		return done, nav.TaskDone
	case wizard.StageFailed:
		return b.failedLine(op)
	}
	return "", nav.TaskDone
}
