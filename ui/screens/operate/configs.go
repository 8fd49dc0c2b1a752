package operate

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
)

// A topic's config overrides, as `ktopo configs --alter` (kafka-configs)
// changes them: the field holds the overrides, edited with the creation
// wizard's completion and validation (wizard.ConfigField); enter reads the
// config znode and plans the change (cluster.PlanTopicConfigAlteration:
// Kafka's checks), the preview shows each key before → after, `w` the
// multi (the whole set, version-checked, and the change notification),
// and y writes it through cluster.WriteAlteration; the progress waits
// for the mirror to show the new overrides.

// configsPlannedMsg: the config znode read and the change planned.
type configsPlannedMsg struct {
	seq int
	alt *clusterops.ConfigAlteration
	ops []any
	err error
}

// configsWrittenMsg: the multi succeeded.
type configsWrittenMsg struct{}

// initConfigs fills the field with the topic's overrides.
func (m *Model) initConfigs() {
	t := m.snap.Topic(m.topic)
	if t == nil {
		m.planErr = cluster.TopicDoesNotExistError(m.topic)
		return
	}
	var parts []string
	for _, e := range t.Config {
		parts = append(parts, e.Key+"="+e.Value)
	}
	m.cfgIn.SetValue(strings.Join(parts, " "))
	m.cfgIn.CursorEnd()
	m.checkConfigs()
}

// checkConfigs validates the field as typed.
func (m *Model) checkConfigs() {
	m.cfg.Suggest(&m.cfgIn)
	m.cfgErr, m.cfgOK, m.cfgHint = m.cfg.Check(&m.cfgIn, true)
}

// configKey handles a key while the field has the keyboard.
func (m *Model) configKey(msg tea.KeyPressMsg) (tea.Cmd, nav.Request) {
	wz := &m.wz
	switch {
	case key.Matches(msg, m.back):
		return nil, nav.Close{}
	case key.Matches(msg, wz.Complete) && wizard.Complete(&m.cfgIn):
	case key.Matches(msg, wz.Clear):
		m.cfgIn.SetValue("")
	case key.Matches(msg, wz.Submit):
		return m.planConfigs(), nil
	default:
		var cmd tea.Cmd
		m.cfgIn, cmd = m.cfgIn.Update(msg)
		m.checkConfigs()
		return cmd, nil
	}
	m.checkConfigs()
	return nil, nil
}

// planConfigs reads the config znode and plans the change the field asks
// for: I/O, so a Cmd.
func (m *Model) planConfigs() tea.Cmd {
	toks := strings.Fields(m.cfgIn.Value())
	want, err := cluster.ParseConfigArgs(toks)
	if len(toks) == 0 {
		want, err = map[string]string{}, nil
	}
	if err != nil {
		m.cfgErr = err.Error()
		return nil
	}
	if m.cfgErr != "" {
		return nil
	}
	z := m.opt.Writer
	if z == nil {
		m.cfgErr = errNoWriter.Error()
		return nil
	}
	m.opsSeq++
	snap, topic, seq, id := m.snap, m.topic, m.opsSeq, m.id
	return func() tea.Msg {
		entries, version, err := clusterops.ReadEntityConfig(z, cluster.EntityTopics, topic)
		if err != nil {
			return nav.TaskMsg{Task: id, Msg: configsPlannedMsg{seq: seq, err: err}}
		}
		add := map[string]string{}
		var del []string
		now := map[string]string{}
		for _, e := range entries {
			now[e.Key] = e.Value
			if _, ok := want[e.Key]; !ok {
				del = append(del, e.Key)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if v, ok := now[k]; !ok || v != want[k] {
				add[k] = want[k]
			}
		}
		alt, err := clusterops.PlanTopicConfigAlteration(topic, entries, version, add, del, snap)
		var ops []any
		if err == nil {
			ops, err = clusterops.WithParents(z, alt.Ops(), cluster.ConfigTopicsPath, cluster.ConfigChangesPath)
		}
		return nav.TaskMsg{Task: id, Msg: configsPlannedMsg{seq: seq, alt: alt, ops: ops, err: err}}
	}
}

// configsPlanned shows the planned change (or why there is none).
func (m *Model) configsPlanned(msg configsPlannedMsg) {
	if msg.seq != m.opsSeq || !m.editing {
		return
	}
	if msg.err != nil {
		m.cfgErr = msg.err.Error()
		return
	}
	m.alt, m.cfgOps = msg.alt, msg.ops
	m.editing = false
	m.cfgIn.Blur()
	m.moves = nil
	if len(m.alt.Set)+len(m.alt.Deleted) > 0 {
		// One row per key changed; moves only gates the keys.
		m.moves = []clusterops.PartitionMove{{}}
	}
	m.opsRaw, m.ops = clusterops.DescribeOps(m.cfgOps), nil
}

// writeConfigs writes the planned multi.
func (m *Model) writeConfigs() tea.Cmd {
	z, ops, id := m.opt.Writer, m.cfgOps, m.id
	if z == nil || m.alt == nil {
		return nil
	}
	m.stage = stageWriting
	m.started = m.now()
	return func() tea.Msg {
		if err := clusterops.WriteAlteration(z, ops); err != nil {
			return nav.TaskMsg{Task: id, Msg: reassignFailedMsg{err}}
		}
		return nav.TaskMsg{Task: id, Msg: configsWrittenMsg{}}
	}
}

// observeConfigs is done once the mirror shows the new overrides.
func (m *Model) observeConfigs() {
	if m.alt == nil || m.stage != stageProgress {
		return
	}
	// The write was version-checked: once the model holds the config
	// znode at a later version it has seen this write, or one after it
	// (which a quick second writer can make the mirror skip ours for).
	t := m.snap.Topic(m.topic)
	switch {
	case t == nil:
		m.cfgSince = "the topic has been deleted since"
	case !t.HasConfig || t.ConfigVersion <= m.alt.Change.Version:
		return // not seen yet
	default:
		got := map[string]string{}
		for _, e := range t.Config {
			got[e.Key] = e.Value
		}
		if !maps.Equal(got, m.alt.Change.Config) {
			m.cfgSince = "they have been changed again since (version " + strconv.Itoa(int(t.ConfigVersion)) + ")"
		}
	}
	m.stage = stageDone
	m.finished = m.now()
}

func (m *Model) configsSummary() string {
	s := "Topic " + m.topic + "'s configs changed"
	if m.alt != nil {
		s += ": " + text.Count(len(m.alt.Set), "override") + " set, " + text.Count(len(m.alt.Deleted), "override") + " removed"
	}
	if m.cfgSince != "" {
		s += "; " + m.cfgSince
	}
	return s
}

// configLines draws the editor and the planned change.
func (m *Model) configLines() []string {
	st := &m.st
	w := m.w
	out := []string{cell.Clip(" "+st.Bold.S("Configs of topic ")+st.Accent.S(m.topic)+st.Muted.S("  ·  overrides, key=value separated by spaces; a key left out is removed"), w), ""}
	if m.planErr != nil {
		return append(out, wizard.Wrap(m.planErr.Error(), w, 1)...)
	}
	marker := "  "
	if m.editing {
		marker = st.SelectedMark.S("› ")
	}
	out = append(out, cell.Clip(" "+marker+m.cfgIn.View(), w))
	switch {
	case m.cfgErr != "":
		for _, l := range wizard.Wrap(m.cfgErr, w, 3) {
			out = append(out, st.Error.S(l))
		}
	case m.cfgOK != "":
		out = append(out, cell.Clip("   "+st.Online.S("✓ "+m.cfgOK), w))
	}
	if m.editing {
		for _, l := range wizard.Wrap(m.cfgHint, w, 3) {
			out = append(out, st.Muted.S(l))
		}
		out = append(out, "", cell.Clip(" "+st.Muted.S("enter previews the change (nothing is written before you confirm) · tab completes · esc closes"), w))
		return out
	}
	out = append(out, "", " "+st.Header.S(cell.Fit("KEY", 40)+"BEFORE → AFTER"))
	before := map[string]string{}
	for _, e := range m.alt.Before {
		before[e.Key] = e.Value
	}
	for _, k := range m.alt.Set {
		b, had := before[k]
		if !had {
			b = "(default)"
		}
		out = append(out, cell.Clip(" "+st.Accent.S(cell.Fit(k, 40))+st.Muted.S(b)+" → "+st.Bold.S(m.alt.Change.Config[k]), w))
	}
	for _, k := range m.alt.Deleted {
		out = append(out, cell.Clip(" "+st.Danger.S(cell.Fit(k, 40))+st.Muted.S(before[k])+" → "+st.Bold.S("(default)"), w))
	}
	if len(m.alt.Set)+len(m.alt.Deleted) == 0 {
		out = append(out, " "+st.Online.S("Nothing changes: the overrides are already these."))
	}
	out = append(out, "", cell.Clip(" "+st.Muted.S("enter writes (after a confirmation) · w shows the multi · esc edits again"), w))
	if m.stage != stagePreview {
		out = append(out, "")
		switch m.stage {
		case stageWriting:
			out = append(out, " "+st.Muted.S("Writing…"))
		case stageProgress:
			out = append(out, " "+st.Muted.S("Written; waiting for the mirror to show the new overrides…"))
		case stageDone:
			out = append(out, cell.Clip(" "+st.Online.S("✓ "+m.configsSummary()+"."), w))
		case stageFailed:
			for _, l := range wizard.Wrap("✗ "+m.err.Error()+" — nothing was written; enter or esc goes back", w, 1) {
				out = append(out, st.Error.S(l))
			}
		}
	}
	return out
}
