package operate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
)

// layout builds every line but the visible rows, for the stage and size:
// View then only draws.
func (m *Model) layout() {
	if m.w <= 0 || m.h <= 0 {
		return
	}
	if m.kind == kindConfigs {
		m.cfgIn.SetWidth(max(m.w-6, 10))
		if m.showOps && m.opsRaw != nil && (m.ops == nil || m.opsW != m.w) {
			m.ops, m.opsW = wizard.HardWrap(m.opsRaw, m.w-4), m.w
		}
		return
	}
	switch m.stage {
	case stagePreview:
		m.pv.layout(&m.st, m.w, m.h, m.headLines())
		if m.showOps && m.opsRaw != nil && (m.ops == nil || m.opsW != m.w) {
			m.ops, m.opsW = wizard.HardWrap(m.opsRaw, m.w-4), m.w
		}
	default:
		m.pg.layout(m.w, m.h, m.progressHead())
	}
}

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	var lines []string
	if m.kind == kindConfigs {
		lines = m.configLines()
		if m.showOps {
			ops := &opsView{wrapped: m.ops, err: m.opsErr, win: &m.opsWin}
			lines = ops.lines(&m.st, lines[:1], m.w, m.h)
		}
		return cell.Lines(lines, m.h)
	}
	switch m.stage {
	case stagePreview:
		var ops *opsView
		if m.showOps {
			ops = &opsView{wrapped: m.ops, err: m.opsErr, win: &m.opsWin, steps: len(m.opsSteps), throttled: m.throttle >= 0 && m.kind < kindAdd}
			if m.ops == nil && m.opsErr == nil {
				ops.wrapped = nil
			}
		}
		lines = m.pv.lines(&m.st, ops)
	default:
		lines = m.progressLines()
	}
	return cell.Lines(lines, m.h)
}

// Modal is the confirmation popup, composited by the shell over the
// screen ("" when none is open).
func (m *Model) Modal() string {
	if m.stage != stagePreview || !m.confirm || (m.gen == nil && m.add == nil && m.elect == nil && m.alt == nil) {
		return ""
	}
	st := &m.st
	if m.kind == kindConfigs {
		if m.alt == nil {
			return ""
		}
		b := []string{st.Bold.S("Change the configs of ") + st.Accent.S(m.topic) + st.Bold.S("?"), "",
			text.Count(len(m.alt.Set), "override") + " set, " + text.Count(len(m.alt.Deleted), "override") + " removed",
			st.Muted.S("Writes " + m.alt.Change.Path() + " and a change"), st.Muted.S("notification in one multi."), ""}
		return st.Modal.Render(strings.Join(append(b, m.confirmLines()...), "\n"))
	}
	if m.kind == kindElect {
		b := []string{st.Bold.S("Elect the preferred leaders of ") + st.Accent.S(m.subject()) + st.Bold.S("?"), "",
			text.Count(len(m.elect.Write), "partition") + " named; " + strconv.Itoa(m.elect.Count(clusterops.ElectionWillMove)) + " will move",
			st.Muted.S("Creates " + m.elect.Path), ""}
		return st.Modal.Render(strings.Join(append(b, m.confirmLines()...), "\n"))
	}
	if m.kind == kindAdd {
		b := []string{st.Bold.S("Add "+text.Count(len(m.moves), "partition")+" to ") + st.Accent.S(m.topic) + st.Bold.S("?"), "",
			m.topic + ": " + strconv.Itoa(m.add.Existing) + " → " + strconv.Itoa(m.count) + " partitions",
			st.Muted.S("Sets " + m.add.TopicPath + " at version " + strconv.Itoa(int(m.add.Version))), st.Muted.S("in one multi."), ""}
		return st.Modal.Render(strings.Join(append(b, m.confirmLines()...), "\n"))
	}
	c := m.gen.Count(m.strategy)
	head := st.Bold.S("Drain broker ") + st.Accent.S(strconv.Itoa(m.broker)) + st.Bold.S("?")
	if m.topic != "" {
		head = st.Bold.S("Reassign topic ") + st.Accent.S(m.topic) + st.Bold.S("?")
	}
	b := []string{
		head, "",
		text.Count(len(m.moves), "partition") + " move: " + text.Count(c.Replicas, "replica") + " copied,",
		strconv.Itoa(c.Leaders) + " preferred " + text.Plural(c.Leaders, "leader changes", "leaders change") + " (strategy " + m.strategy.String() + ")",
		"throttle " + throttleText(m.throttle) + removedWhenDone(m.throttle) + rfChange(m),
		st.Muted.S("Writes /admin/reassign_partitions"),
		st.Muted.S("(and the throttles) in one multi."), "",
	}
	if m.leadingFirst() {
		b = slices.Insert(b, len(b)-3, "first "+text.Count(len(m.lead.Moves), "leader")+" off broker "+strconv.Itoa(m.broker)+" (election)")
		b[len(b)-3] = st.Muted.S("Then writes /admin/reassign_partitions")
	}
	return st.Modal.Render(strings.Join(append(b, m.confirmLines()...), "\n"))
}

// removedWhenDone says, after a throttle, that it goes with the
// reassignment (throttles.go).
func removedWhenDone(throttle int64) string {
	if throttle < 0 {
		return ""
	}
	return ", removed when done"
}

// rfChange names a replication factor change, for the popup.
func rfChange(m *Model) string {
	if m.topic == "" || m.rf == m.curRF {
		return ""
	}
	return ", replication factor " + strconv.Itoa(m.curRF) + " → " + strconv.Itoa(m.rf)
}

// confirmLines end the popup: the buttons, or on a production cluster the
// field the confirmation word is typed into.
func (m *Model) confirmLines() []string {
	st := &m.st
	if m.opt.Production {
		return []string{st.Danger.S("Production cluster: type " + m.confirmWord() + " to confirm"), m.typed.View(), "",
			st.Muted.S("enter write · esc cancel")}
	}
	yes := "Reassign"
	switch m.kind {
	case kindAdd:
		yes = "Add"
	case kindElect:
		yes = "Elect"
	case kindConfigs:
		yes = "Write"
	}
	return []string{wizard.Buttons(st, yes, "Cancel", m.button), "", st.Muted.S("y write · n/esc cancel · tab switches")}
}
