package operate

import (
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
)

// View implements ui.Screen: the head the operation made in Update, then
// the exact writes when `w` shows them, else its rows.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.head...)
	switch r := m.op.rows(); {
	case m.fr.Stage <= wizard.StagePreview && m.fr.Ops.Shown():
		lines = m.fr.Ops.View(&m.st, lines, m.w, m.h)
	case r != nil:
		lines = r.lines(&m.st, lines)
	}
	return cell.Lines(lines, m.h)
}

// Modal is the confirmation popup, composited by the shell over the
// screen ("" when none is open).
func (m *Model) Modal() string {
	if m.fr.Stage != wizard.StagePreview || !m.fr.Confirm.Open() {
		return ""
	}
	body, yes, _ := m.op.popup()
	if body == nil {
		return ""
	}
	return m.fr.Confirm.View(&m.st, body, yes, "write")
}
