package create

import (
	"strconv"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
)

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	st := &m.st
	var lines []string
	switch m.fr.Stage {
	case stageForm:
		lines = m.formView()
	case stagePreview:
		lines = m.pv.view(st, m.form.in[fName].Value())
	default:
		lines = m.tr.view(st, m.fr.Stage, m.currentPace(), m.fr.CanPace())
	}
	return cell.Lines(lines, m.h)
}

// Modal is the confirmation popup, composited by the shell over the
// screen ("" when none is open).
func (m *Model) Modal() string {
	if m.fr.Stage != stagePreview || !m.fr.Confirm.Open() || m.pv.plan == nil {
		return ""
	}
	return m.fr.Confirm.View(&m.st, m.pv.popup(&m.st, m.form.in[fName].Value()), "Create", "create")
}

func (m *Model) formView() []string {
	st := &m.st
	f := &m.form
	lines := make([]string, 0, m.h)
	title := " " + st.Bold.S("Create a topic")
	if s := m.snap; s != nil {
		live := len(s.LiveBrokerIDs())
		racks := 0
		for _, r := range s.Racks() {
			if r.Kind == cluster.RackNamed && r.Live > 0 {
				racks++
			}
		}
		info := "  ·  " + strconv.Itoa(live) + " live brokers"
		if n := cordonedLive(s); n > 0 {
			// KIP-1066: they keep their replicas and get no new one.
			info += " (" + strconv.Itoa(n) + " cordoned)"
		}
		if racks > 0 {
			info += " in " + strconv.Itoa(racks) + " racks"
		}
		if c := s.Controller().BrokerID; c >= 0 {
			info += "  ·  controller " + strconv.Itoa(c)
		} else {
			info += "  ·  no controller"
		}
		title += st.Muted.S(info)
	} else {
		title += st.Muted.S("  ·  loading the cluster…")
	}
	lines = append(lines, cell.Clip(title, m.w))
	// What the migration guard says of a write now, before anything is
	// typed: a topic that could not be written is not worth a form.
	switch v := m.verdict; v.Level {
	case cluster.WriteRefused:
		for _, l := range wizard.Wrap("✗ A topic created here would not be written: "+v.Message(), m.w, 1) {
			lines = append(lines, st.Error.S(l))
		}
	case cluster.WriteWarn:
		for _, l := range wizard.Wrap("⚠ "+v.Message()+" (the confirmation asks first)", m.w, 1) {
			lines = append(lines, st.Warning.S(l))
		}
	}
	lines = append(lines, "")
	manual := f.manual()
	for i := range nFields {
		fl := field(i)
		focused := f.focus == fl
		label := cell.Fit(labels[fl], labelW-3)
		marker := "  "
		lInk := st.Text
		if focused {
			marker = st.SelectedMark.S("› ")
			lInk = st.Bold
		}
		disabled := manual && (fl == fPartitions || fl == fRF || fl == fRack)
		if disabled {
			lInk = st.Muted
		}
		var val string
		if fl == fRack {
			on, off := "○ enforced", "○ disabled"
			if f.rackOff {
				off = "◉ disabled"
			} else {
				on = "◉ enforced"
			}
			onInk, offInk := st.Text, st.Muted
			if f.rackOff {
				onInk, offInk = st.Muted, st.Text
			}
			if focused {
				if f.rackOff {
					offInk = st.Accent
				} else {
					onInk = st.Accent
				}
			}
			if disabled {
				onInk, offInk = st.Muted, st.Muted
			}
			val = onInk.S(on) + "   " + offInk.S(off)
		} else {
			val = f.in[fl].View()
			if disabled && !focused {
				val = st.Muted.S(f.in[fl].Value())
			}
		}
		lines = append(lines, cell.Clip(" "+marker+lInk.S(label)+val, m.w))
		// messages under the field: errors always once touched, warnings,
		// and the focused field's hint
		indent := labelW
		if e := f.errs[fl]; e != "" && f.touched[fl] && !disabled {
			for _, l := range wizard.Wrap(e, m.w, indent) {
				lines = append(lines, st.Error.S(l))
			}
		} else if ok := f.ok[fl]; ok != "" && !disabled && (f.touched[fl] || fl != fName) {
			lines = append(lines, cell.Clip(cell.Spaces(indent)+st.Online.S("✓ "+ok), m.w))
		}
		if w := f.warns[fl]; w != "" && f.errs[fl] == "" {
			for _, l := range wizard.Wrap(w, m.w, indent) {
				lines = append(lines, st.Warning.S(l))
			}
		}
		if focused && f.hints[fl] != "" {
			for _, l := range wizard.Wrap(f.hints[fl], m.w, indent) {
				lines = append(lines, st.Muted.S(l))
			}
		}
	}
	lines = append(lines, "")
	if f.msg != "" {
		for _, l := range wizard.Wrap(f.msg, m.w, 1) {
			lines = append(lines, st.Error.S(l))
		}
	} else {
		lines = append(lines, cell.Clip(" "+st.Muted.S("enter previews where every replica goes; nothing is written before you confirm"), m.w))
	}
	return lines
}

// cordonedLive counts the live brokers that are cordoned (a KRaft
// cluster's, KIP-1066): they take no new partition.
func cordonedLive(s *cluster.Snapshot) int {
	n := 0
	for _, b := range s.Brokers() {
		if b.Live && b.Cordoned {
			n++
		}
	}
	return n
}
