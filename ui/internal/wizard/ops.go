package wizard

import (
	"github.com/ktopo/ktopo/cluster"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/theme"
)

// Ops is the exact-writes view (`w`): the znodes and JSON a wizard's
// write sends (the Kafka requests, on a KRaft cluster), as the writer
// describes them (clusterops.Writes), read by a command (what exists
// decides the parents created, the configs the throttles change). Its lines are those of the plan shown: a plan made again
// drops them (Reset), and an answer for an older plan is dropped.
type Ops struct {
	shown bool
	raw   []string
	// steps are the writes the lines show, each as its own lines, in the
	// order they are sent (an operation written in steps has several).
	steps   [][]string
	wrapped []string
	w       int
	err     error
	win     cursor.Window
	seq     int // which plan the lines are of
	head    OpsHead
}

// OpsMsg is the answer of a command describing the writes (Describe).
type OpsMsg struct {
	Seq   int
	Lines []string
	Steps [][]string
	Err   error
	// Title, when set, replaces the head's (the writes told how many
	// steps they are).
	Title string
}

// OpsHead is what the view says above the lines: Title in bold, Detail
// after it, then Notes (one line each); Reading while the lines are read.
type OpsHead struct {
	Title, Detail string
	Notes         []string
	Reading       string
}

// Describe shows the view, head above its lines, and returns the command
// reading them: describe runs off the event loop and must hold only
// copies.
func (f *Frame) Describe(head OpsHead, describe func() (lines []string, steps [][]string, err error)) tea.Cmd {
	seq := f.Ops.show(head)
	reply := f.Reply()
	return func() tea.Msg {
		lines, steps, err := describe()
		return reply(OpsMsg{Seq: seq, Lines: lines, Steps: steps, Err: err})
	}
}

// DescribeWrites shows the writes build describes through w (a command:
// describing may read what the writes depend on), as their lines; without
// a writer, the view says so.
func (f *Frame) DescribeWrites(head OpsHead, w clusterops.Writer, build func(w clusterops.Writer) (clusterops.Writes, error)) tea.Cmd {
	if w == nil {
		f.Ops.ShowLines(head, nil, ErrNoWriter)
		return nil
	}
	seq := f.Ops.show(head)
	reply := f.Reply()
	return func() tea.Msg {
		ws, err := build(w)
		if err != nil {
			return reply(OpsMsg{Seq: seq, Err: err})
		}
		return reply(OpsMsg{Seq: seq, Lines: ws.Lines(), Steps: ws.StepLines(), Title: ws.Title()})
	}
}

// Shown reports that the view is open.
func (o *Ops) Shown() bool { return o.shown }

// show opens the view for the current plan, empty until Set.
func (o *Ops) show(head OpsHead) int {
	o.shown, o.raw, o.steps, o.wrapped, o.err, o.head = true, nil, nil, nil, nil, head
	o.win = cursor.Window{}
	return o.seq
}

// ShowLines opens the view with lines known at once (a write that reads
// nothing first).
func (o *Ops) ShowLines(head OpsHead, lines []string, err error) {
	o.Set(OpsMsg{Seq: o.show(head), Lines: lines, Steps: [][]string{lines}, Err: err})
}

// Hide closes the view, keeping its lines.
func (o *Ops) Hide() { o.shown = false }

// Reset forgets the lines: the plan changed, so they are no longer its.
func (o *Ops) Reset() {
	o.seq++
	o.shown, o.raw, o.steps, o.wrapped, o.err = false, nil, nil, nil, nil
}

// Set takes a command's answer, unless it is for an older plan.
func (o *Ops) Set(msg OpsMsg) {
	if msg.Seq != o.seq {
		return
	}
	o.raw, o.steps, o.err = msg.Lines, msg.Steps, msg.Err
	if msg.Title != "" {
		o.head.Title = msg.Title
	}
	if o.raw == nil && o.err == nil {
		o.raw = []string{} // read: nothing to write
	}
	o.win = cursor.Window{}
	o.wrapped = nil
	o.Wrap(o.w)
}

// Lines are the lines read (nil while they are read).
func (o *Ops) Lines() []string { return o.raw }

// Steps are the writes the lines show, in the order they are sent.
func (o *Ops) Steps() [][]string { return o.steps }

// Wrap cuts the lines for a view w columns wide (in Update, not View).
func (o *Ops) Wrap(w int) {
	if w <= 0 || (o.wrapped != nil && o.w == w) {
		o.w = w
		return
	}
	o.w = w
	o.wrapped = nil
	if o.raw != nil {
		o.wrapped = HardWrap(o.raw, w-4)
	}
	o.win.SetN(len(o.wrapped))
}

// Scroll moves the lines by d.
func (o *Ops) Scroll(d int) { o.win.Scroll(d) }

// Page moves the lines by d pages.
func (o *Ops) Page(d int) { o.win.Scroll(d * max(o.win.H-1, 1)) }

// End shows the first lines (d < 0) or the last.
func (o *Ops) End(d int) { o.win.Scroll(d * max(o.win.N, 1)) }

// View appends the view to out (the lines above it), for a screen w
// columns wide and h high. Lines of a write in steps that start with
// "first: " or "then: " head their step.
func (o *Ops) View(st *theme.Styles, out []string, w, h int) []string {
	head := &o.head
	out = append(out, "", cell.Clip(" "+st.Bold.S(head.Title)+st.Muted.S(head.Detail), w))
	for _, n := range head.Notes {
		out = append(out, cell.Clip(" "+st.Muted.S(n), w))
	}
	switch {
	case o.err != nil:
		for _, l := range Wrap(o.err.Error(), w, 1) {
			out = append(out, st.Error.S(l))
		}
		return out
	case o.wrapped == nil:
		return append(out, " "+st.Muted.S(head.Reading))
	}
	o.win.SetH(max(h-len(out), 1))
	from, to := o.win.Visible()
	for i := from; i < to; i++ {
		l := o.wrapped[i]
		if strings.HasPrefix(l, "first: ") || strings.HasPrefix(l, "then: ") {
			out = append(out, " "+st.Leader.S(l))
			continue
		}
		out = append(out, "   "+OpLine(st, l))
	}
	return out
}

// StepsTitle is the view's title for writes sent to t in n steps.
func StepsTitle(t cluster.Backend, n int) string { return clusterops.WritesTitle(t, n) }
