package operate

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
)

// syncKeys enables the bindings of the current stage and no others: the
// frame's here, the operation's own by the operation.
func (m *Model) syncKeys() {
	set := func(on bool, bs ...*key.Binding) {
		for _, b := range bs {
			b.SetEnabled(on)
		}
	}
	km, wz := &m.km, &m.wz
	stage := m.fr.Stage
	confirm := stage == wizard.StagePreview && m.fr.Confirm.Open()
	preview := stage == wizard.StagePreview && !confirm
	editing := stage == wizard.StageEdit
	prod := m.fr.Confirm.Production()
	set(false, &km.Drain, &km.Reassign, &km.AddPartitions, &km.Elect, &km.ChangeConfigs, &km.Throttle, &km.Strategy, &km.LeadersFirst, &km.MoreReplicas, &km.FewerReplicas, &km.MorePartitions, &km.FewerPartitions, &km.Reseed)
	m.op.syncKeys(preview)
	set(preview && m.op.ready(), m.start, &km.Written)
	set(preview || stage.Working() || stage == wizard.StageDone, &wz.ScrollUp, &wz.ScrollDown, &wz.PageUp, &wz.PageDown, &wz.Top, &wz.Bottom)
	set(confirm && !prod, &km.Confirm, &wz.Cancel, &wz.SwitchButton)
	set(confirm, &wz.Choose)
	set(m.fr.CanPace() && (stage.Working() || stage == wizard.StageDone), &wz.Pace)
	set(stage == wizard.StageFailed, &wz.BackToForm)
	set(editing, &wz.Complete, &wz.NextMatch, &wz.PrevMatch, &wz.Clear, &wz.Submit)
	set(m.fr.Confirm.Typing() || editing, &m.back)
}

func (m *Model) key(msg tea.KeyPressMsg) (tea.Cmd, nav.Request) {
	km, wz := &m.km, &m.wz
	if m.fr.Stage == wizard.StageEdit {
		if key.Matches(msg, m.back) {
			return nil, nav.Close{}
		}
		return m.op.key(msg), nil
	}
	if m.fr.Stage == wizard.StagePreview && m.fr.Confirm.Open() {
		if a, cmd := m.fr.Confirm.Key(msg, m.confirmKeys()); a != wizard.Yes {
			return cmd, nil // a mistyped word: the popup says so and stays
		}
		return m.write(), nil
	}
	switch {
	case key.Matches(msg, *m.start):
		m.fr.Note.Clear()
		_, _, word := m.op.popup()
		cmd, refused := m.fr.Ask(word, clusterops.VerdictOf(m.wr, m.snap))
		if refused != "" {
			m.fr.Note.Set(refused, true)
		}
		return cmd, nil
	case key.Matches(msg, km.Written):
		if m.fr.Ops.Shown() {
			m.fr.Ops.Hide()
			return nil, nil
		}
		return m.op.describe(), nil
	case wizard.ScrollKey(msg, wz, scroller{m}):
	case key.Matches(msg, wz.Pace):
		return nil, m.fr.NextPace()
	case key.Matches(msg, wz.BackToForm):
		m.toPreview()
	default:
		return m.op.key(msg), nil
	}
	return nil, nil
}

// write writes the operation previewed, once confirmed.
func (m *Model) write() tea.Cmd {
	if !m.op.ready() {
		return nil
	}
	return m.op.write()
}
