package create

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
)

// syncKeys enables the bindings of the current stage and no others: the
// help shows only what acts, and enter means one thing at a time.
func (m *Model) syncKeys() {
	km := &m.km
	set := func(on bool, bs ...*key.Binding) {
		for _, b := range bs {
			b.SetEnabled(on)
		}
	}
	confirm := m.fr.Stage == stagePreview && m.fr.Confirm.Open()
	preview := m.fr.Stage == stagePreview && !confirm
	form := m.fr.Stage == stageForm
	working := m.fr.Stage == stageWriting || m.fr.Stage == stageProgress
	after := working || m.fr.Stage == stageDone || m.fr.Stage == stageFailed
	manual := m.pv.plan != nil && m.pv.plan.Manual
	set(form, &km.Next, &km.Prev, &km.Clear, &km.Submit, &km.Close)
	set(form && m.form.focus == fRack, &km.Toggle)
	set(form && m.form.focus == fConfigs, &km.Complete, &km.NextMatch, &km.PrevMatch)
	set(preview, &km.Create, &km.Written, &km.ColumnsLeft, &km.ColumnsRight)
	set(preview && !manual, &km.Reroll, &km.StepBack, &km.StepForward)
	// On a KRaft cluster the placement is the controller's, drawn from a
	// seed: r, ←/→ change the seed, not a start index.
	if m.snap != nil && m.snap.KRaft() != nil {
		km.Reroll.SetHelp("r", "re-roll seed")
		km.StepBack.SetHelp("←/h", "previous seed")
		km.StepForward.SetHelp("→/l", "next seed")
		km.Written.SetHelp("w", "what is sent")
	}
	set(preview || after, &km.ScrollUp, &km.ScrollDown, &km.PageUp, &km.PageDown, &km.Top, &km.Bottom)
	set(confirm, &km.Confirm, &km.Cancel, &km.SwitchButton, &km.Choose)
	set(m.fr.CanPace() && (working || m.fr.Stage == stageDone), &km.Pace)
	set(m.fr.Stage == stageDone, &km.OpenTopic)
	set(m.fr.Stage == stageFailed, &km.BackToForm)
}

func (m *Model) scroll(d int) {
	switch m.fr.Stage {
	case stagePreview:
		m.pv.Scroll(d)
	case stageProgress, stageDone, stageFailed:
		if m.tr != nil {
			m.tr.win.Scroll(d)
		}
	}
}

func (m *Model) key(msg tea.KeyPressMsg) (tea.Cmd, nav.Request) {
	km := &m.km
	switch m.fr.Stage {
	case stageForm:
		leaving := m.leaving
		m.leaving = false
		if m.form.msg == discardAsk {
			m.form.msg = ""
		}
		if key.Matches(msg, km.Close) {
			// A form typed into asks before it is dropped.
			if !leaving && slices.Contains(m.form.touched[:], true) {
				m.leaving, m.form.msg = true, discardAsk
				return nil, nil
			}
			return nil, nav.Close{}
		}
		if key.Matches(msg, km.Submit) {
			m.submit()
			return nil, nil
		}
		return m.form.update(msg, m.snap, km), nil
	case stagePreview:
		if m.fr.Confirm.Open() {
			return m.confirmKey(msg)
		}
		switch {
		case key.Matches(msg, km.Create):
			if m.pv.plan != nil {
				m.fr.Note.Clear()
				cmd, refused := m.fr.Ask(m.form.in[fName].Value(), clusterops.VerdictOf(m.opt.Writer, m.snap))
				if refused != "" {
					m.pv.setNote(refused, true)
				}
				return cmd, nil
			}
		case key.Matches(msg, km.Written):
			if m.fr.Ops.Shown() {
				m.fr.Ops.Hide()
				return nil, nil
			}
			return m.describeOps(), nil
		case key.Matches(msg, km.Reroll):
			m.reroll()
		case key.Matches(msg, km.StepBack):
			m.step(-1)
		case key.Matches(msg, km.StepForward):
			m.step(1)
		case key.Matches(msg, km.ColumnsLeft):
			m.pv.scrollColumns(-1)
		case key.Matches(msg, km.ColumnsRight):
			m.pv.scrollColumns(1)
		case wizard.ScrollKey(msg, km, &m.pv):
		}
	case stageWriting, stageProgress, stageDone, stageFailed:
		// syncKeys enabled what applies in this stage: the pace while the
		// sandbox can be slowed and the topic is not failed, the topic
		// once it is online, the way back after a failure.
		switch {
		case key.Matches(msg, km.Pace):
			return nil, m.nextPace()
		case key.Matches(msg, km.OpenTopic):
			return nil, nav.OpenTopic{Topic: m.tr.plan.Name, Partition: -1, Replace: true}
		case key.Matches(msg, km.BackToForm):
			m.toForm()
		case m.tr != nil && wizard.ScrollKey(msg, km, &m.tr.win):
		}
	}
	return nil, nil
}

// currentPace is the pace shown: the one chosen here, else the sandbox's.
func (m *Model) currentPace() time.Duration { return m.fr.Pace() }

func (m *Model) nextPace() nav.Request { return m.fr.NextPace() }

func (m *Model) confirmKey(msg tea.KeyPressMsg) (tea.Cmd, nav.Request) {
	km := &m.km
	ck := wizard.ConfirmKeys{Yes: km.Confirm, Cancel: km.Cancel, Switch: km.SwitchButton, Choose: km.Choose, Back: m.back}
	if a, cmd := m.fr.Confirm.Key(msg, &ck); a != wizard.Yes {
		return cmd, nil
	}
	return m.create(), nil
}

// ShortHelp implements help.KeyMap: the few keys of the stage that the
// footer has room for.
func (m *Model) ShortHelp() []key.Binding {
	km := &m.km
	switch m.fr.Stage {
	case stageForm:
		return []key.Binding{km.Submit, km.Next, km.Clear, km.Close}
	case stagePreview:
		if m.fr.Confirm.Open() {
			return []key.Binding{km.Confirm, km.Cancel}
		}
		return []key.Binding{km.Create, km.Reroll, km.StepBack, km.StepForward, km.Written}
	case stageDone:
		return []key.Binding{km.OpenTopic, km.Pace}
	case stageFailed:
		return []key.Binding{km.BackToForm}
	}
	return []key.Binding{km.Pace, km.ScrollUp}
}

// FullHelp implements help.KeyMap: every binding, of which the help shows
// the current stage's (the others are disabled, see syncKeys).
func (m *Model) FullHelp() [][]key.Binding {
	km := &m.km
	return [][]key.Binding{
		{km.Next, km.Prev, km.Complete, km.NextMatch, km.PrevMatch, km.Clear, km.Toggle, km.Submit, km.Close},
		{km.Create, km.Reroll, km.StepBack, km.StepForward, km.Written, km.ColumnsLeft, km.ColumnsRight},
		{km.Confirm, km.Cancel, km.SwitchButton, km.Choose},
		{km.Pace, km.OpenTopic, km.BackToForm},
		{km.ScrollUp, km.ScrollDown, km.PageUp, km.PageDown, km.Top, km.Bottom},
	}
}

// discardAsk is what esc says in a form typed into: a second esc drops
// it, any other key goes on with it.
const discardAsk = "esc again closes the wizard and drops what was typed; any other key goes on"
