package operate

import (
	"context"
	"maps"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// configs edits a topic's config overrides, as `ktopo configs --alter`
// (kafka-configs) changes them: the field holds the overrides, edited
// with the creation wizard's completion and validation
// (wizard.ConfigField); enter reads the config znode and plans the change
// (clusterops.PlanTopicConfigReplacement: Kafka's checks), the preview
// shows each key before → after, `w` the multi (the whole set,
// version-checked, and the change notification), and y writes it through
// the writer's AlterConfigs; the progress waits for the mirror to show
// the new overrides.
type configs struct {
	*base
	verbs
	topic string
	// The field and its checker, what it says.
	in                     textinput.Model
	cfg                    wizard.ConfigField
	cfgErr, cfgOK, cfgHint string
	// alt is the planned change and ops its multi; planErr why there is
	// no field (the topic is gone); seq which enter the plan answers.
	alt *clusterops.ConfigAlteration
	ops clusterops.Writes
	// effects are what the change does to the topic's partitions as the
	// cluster stands, in `ktopo configs --alter`'s words
	// (clusterops.TopicConfigEffects): "Effect: …" and "Warning: …".
	effects []string
	planErr error
	seq     int
	// since says what happened to the topic's configs after the write,
	// when the mirror shows something else ("" when it shows it).
	since string
	view  configView
}

type (
	// configsPlannedMsg: the config znode read and the change planned.
	configsPlannedMsg struct {
		seq int
		alt *clusterops.ConfigAlteration
		ops clusterops.Writes
		err error
	}
	// configsWrittenMsg: the multi succeeded.
	configsWrittenMsg struct{}
)

func newConfigs(b *base, topic string) *configs {
	c := &configs{base: b, topic: topic, cfg: wizard.NewConfigField(), in: theme.NewInput(b.st, ""),
		verbs: verbs{"Configs of", "Changing the configs of", "Changed the configs of"}}
	c.in.ShowSuggestions = true
	// The suggestions' keys are the wizard's, which the help shows (the
	// text input's own included up and down).
	c.in.KeyMap.NextSuggestion, c.in.KeyMap.PrevSuggestion = b.wz.NextMatch, b.wz.PrevMatch
	c.in.Focus()
	c.view.c = c
	b.fr.Stage = wizard.StageEdit
	b.start = &b.km.ChangeConfigs
	return c
}

func (c *configs) subject() string { return "topic " + c.topic }

func (c *configs) ready() bool { return c.alt != nil && len(c.alt.Set)+len(c.alt.Deleted) > 0 }

// replan fills the field with the topic's overrides (once: what was typed
// stays).
func (c *configs) replan() {
	if c.fr.Stage != wizard.StageEdit || c.in.Value() != "" {
		return
	}
	t := c.snap.Topic(c.topic)
	if t == nil {
		c.planErr = cluster.TopicDoesNotExistError(c.topic)
		return
	}
	var parts []string
	for _, e := range t.Config {
		parts = append(parts, e.Key+"="+e.Value)
	}
	c.in.SetValue(strings.Join(parts, " "))
	c.in.CursorEnd()
	c.check()
}

// check validates the field as typed.
func (c *configs) check() {
	c.cfg.Suggest(&c.in)
	c.cfgErr, c.cfgOK, c.cfgHint = c.cfg.Check(&c.in, true)
}

func (c *configs) syncKeys(bool) {}

// key handles a key while the field has the keyboard.
func (c *configs) key(msg tea.KeyPressMsg) tea.Cmd {
	wz := &c.wz
	switch {
	case key.Matches(msg, wz.Complete) && wizard.Complete(&c.in):
	case key.Matches(msg, wz.Clear):
		c.in.SetValue("")
	case key.Matches(msg, wz.Submit):
		return c.plan()
	default:
		var cmd tea.Cmd
		c.in, cmd = c.in.Update(msg)
		c.check()
		return cmd
	}
	c.check()
	return nil
}

// plan reads the config znode and plans the change the field asks for:
// I/O, so a command.
func (c *configs) plan() tea.Cmd {
	toks := strings.Fields(c.in.Value())
	want, err := cluster.ParseConfigArgs(toks)
	if len(toks) == 0 {
		want, err = map[string]string{}, nil
	}
	if err != nil {
		c.cfgErr = err.Error()
		return nil
	}
	if c.cfgErr != "" {
		return nil
	}
	w := c.wr
	if w == nil {
		c.cfgErr = wizard.ErrNoWriter.Error()
		return nil
	}
	c.seq++
	reply, snap, topic, seq := c.fr.Reply(), c.snap, c.topic, c.seq
	return func() tea.Msg {
		alt, ops, err := clusterops.PlanTopicConfigReplacement(context.Background(), w, snap, topic, want)
		return reply(configsPlannedMsg{seq: seq, alt: alt, ops: ops, err: err})
	}
}

// edit goes back to the field from the preview.
func (c *configs) edit() {
	c.fr.Stage = wizard.StageEdit
	c.alt, c.ops, c.effects, c.fr.Confirm.Warnings = nil, clusterops.Writes{}, nil, nil
	c.fr.Ops.Reset()
	c.in.Focus()
}

func (c *configs) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case configsPlannedMsg:
		if msg.seq != c.seq || c.fr.Stage != wizard.StageEdit {
			return nil
		}
		if msg.err != nil {
			c.cfgErr = msg.err.Error()
			return nil
		}
		c.alt, c.ops = msg.alt, msg.ops
		c.effects = clusterops.TopicConfigEffects(c.snap, c.topic, c.alt.Change.Config).Lines
		// The popup repeats the warnings: what must be read before y.
		c.fr.Confirm.Warnings = nil
		for _, l := range c.effects {
			if w, ok := strings.CutPrefix(l, "Warning: "); ok {
				c.fr.Confirm.Warnings = append(c.fr.Confirm.Warnings, w)
			}
		}
		c.fr.Stage = wizard.StagePreview
		c.fr.Ops.Reset()
		c.in.Blur()
	case configsWrittenMsg:
		if c.fr.Stage == wizard.StageWriting {
			c.fr.Stage = wizard.StageProgress
			if c.words().AppliedOnAnswer {
				// The controller applied the change when it answered;
				// the poller reads a topic's configs in turn.
				c.fr.Finish()
				return nil
			}
			c.observe()
		}
	}
	return nil
}

// describe shows the writes planned with the change.
func (c *configs) describe() tea.Cmd {
	c.fr.Ops.ShowLines(wizard.OpsHead{Title: c.ops.Title(), Detail: c.words().ConfigsThen}, c.ops.Lines(), nil)
	return nil
}

// write writes the planned multi (version-checked: a config changed
// since fails it, writing nothing).
func (c *configs) write() tea.Cmd {
	if c.alt == nil {
		return nil
	}
	w := c.begin(c, "")
	if w == nil {
		return nil
	}
	reply, alt := c.fr.Reply(), c.alt
	return func() tea.Msg {
		if _, err := w.AlterConfigs(context.Background(), []*clusterops.ConfigAlteration{alt}, clusterops.Apply); err != nil {
			return fail(reply, err)
		}
		return reply(configsWrittenMsg{})
	}
}

// observe is done once the mirror shows the new overrides.
func (c *configs) observe() {
	if c.alt == nil || c.fr.Stage != wizard.StageProgress {
		return
	}
	// The write was version-checked: once the model holds the config
	// znode at a later version it has seen this write, or one after it
	// (which a quick second writer can make the mirror skip ours for).
	t := c.snap.Topic(c.topic)
	switch {
	case t == nil:
		c.since = "the topic has been deleted since"
	case !t.HasConfig || t.ConfigVersion <= c.alt.Change.Version:
		return // not seen yet
	default:
		got := map[string]string{}
		for _, e := range t.Config {
			got[e.Key] = e.Value
		}
		if !maps.Equal(got, c.alt.Change.Config) {
			c.since = "they have been changed again since (version " + strconv.Itoa(int(t.ConfigVersion)) + ")"
		}
	}
	c.fr.Finish()
}

func (c *configs) summary() (string, nav.TaskState) {
	if c.fr.Stage == wizard.StageProgress {
		return c.verb(formIng) + " " + c.subject() + ": waiting for the mirror to show the new overrides", nav.TaskRunning
	}
	return c.status(c, c.words().ConfigsStatus, c.summaryLine())
}

func (c *configs) summaryLine() string {
	s := "Topic " + c.topic + "'s configs changed"
	if c.alt != nil {
		s += ": " + text.Count(len(c.alt.Set), "override") + " set, " + text.Count(len(c.alt.Deleted), "override") + " removed"
	}
	if c.since != "" {
		s += "; " + c.since
	}
	return s
}

func (c *configs) head(w int) []string {
	st := &c.st
	return []string{cell.Clip(" "+st.Bold.S("Configs of topic ")+st.Accent.S(c.topic)+st.Muted.S("  ·  overrides, key=value separated by spaces; a key left out is removed"), w)}
}

func (c *configs) rows() rows { return &c.view }

func (c *configs) popup() ([]string, string, string) {
	if c.alt == nil {
		return nil, "", c.topic
	}
	st := &c.st
	var how []string
	for _, l := range c.words().ConfigsHow(c.alt.Change.Path()) {
		how = append(how, st.Muted.S(l))
	}
	return append([]string{st.Bold.S("Change the configs of ") + st.Accent.S(c.topic) + st.Bold.S("?"), "",
		text.Count(len(c.alt.Set), "override") + " set, " + text.Count(len(c.alt.Deleted), "override") + " removed"}, append(how, "")...), "Write", c.topic
}

// configView is the editor and the planned change, under the title: the
// field, what it says, then each key before → after, and where the write
// stands.
type configView struct {
	c     *configs
	w     int
	built []string
}

func (v *configView) layout(st *theme.Styles, w, _ int, _ []string) {
	v.w = w
	v.c.in.SetWidth(max(w-6, 10))
	v.built = v.c.lines(st, w)
}

func (v *configView) lines(_ *theme.Styles, out []string) []string { return append(out, v.built...) }

func (v *configView) scroll(int) {}
func (v *configView) page(int)   {}
func (v *configView) end(int)    {}

// lines draws the editor and the planned change.
func (c *configs) lines(st *theme.Styles, w int) []string {
	out := []string{""}
	if c.planErr != nil {
		return append(out, wizard.Wrap(c.planErr.Error(), w, 1)...)
	}
	editing := c.fr.Stage == wizard.StageEdit
	marker := "  "
	if editing {
		marker = st.SelectedMark.S("› ")
	}
	out = append(out, cell.Clip(" "+marker+c.in.View(), w))
	switch {
	case c.cfgErr != "":
		for _, l := range wizard.Wrap(c.cfgErr, w, 3) {
			out = append(out, st.Error.S(l))
		}
	case c.cfgOK != "":
		out = append(out, cell.Clip("   "+st.Online.S("✓ "+c.cfgOK), w))
	}
	if editing || c.alt == nil {
		for _, l := range wizard.Wrap(c.cfgHint, w, 3) {
			out = append(out, st.Muted.S(l))
		}
		return append(out, "", cell.Clip(" "+st.Muted.S("enter previews the change (nothing is written before you confirm) · tab completes · esc closes"), w))
	}
	out = append(out, "", " "+st.Header.S(cell.Fit("KEY", 40)+"BEFORE → AFTER"))
	before := map[string]string{}
	for _, e := range c.alt.Before {
		before[e.Key] = e.Value
	}
	for _, k := range c.alt.Set {
		b, had := before[k]
		if !had {
			b = "(default)"
		}
		out = append(out, cell.Clip(" "+st.Accent.S(cell.Fit(k, 40))+st.Muted.S(b)+" → "+st.Bold.S(c.alt.Change.Config[k]), w))
	}
	for _, k := range c.alt.Deleted {
		out = append(out, cell.Clip(" "+st.Danger.S(cell.Fit(k, 40))+st.Muted.S(before[k])+" → "+st.Bold.S("(default)"), w))
	}
	if len(c.alt.Set)+len(c.alt.Deleted) == 0 {
		out = append(out, " "+st.Online.S("Nothing changes: the overrides are already these."))
	}
	if len(c.effects) > 0 {
		out = append(out, "")
	}
	for _, e := range c.effects {
		ink := st.Text
		if strings.HasPrefix(e, "Warning: ") {
			ink = st.Warning
		}
		for _, l := range wizard.Wrap(e, w, 1) {
			out = append(out, ink.S(l))
		}
	}
	if c.fr.Stage == wizard.StagePreview {
		return append(out, "", cell.Clip(" "+st.Muted.S("enter writes (after a confirmation) · w shows "+c.words().Exact+" · esc edits again"), w))
	}
	out = append(out, "")
	switch c.fr.Stage {
	case wizard.StageWriting:
		out = append(out, " "+st.Muted.S("Writing…"))
	case wizard.StageProgress:
		out = append(out, " "+st.Muted.S("Written; waiting for the mirror to show the new overrides…"))
	case wizard.StageDone:
		out = append(out, cell.Clip(" "+st.Online.S("✓ "+c.summaryLine()+"."), w))
	case wizard.StageFailed:
		for _, l := range wizard.Wrap("✗ "+c.err.Error()+" — nothing was written; enter or esc goes back", w, 1) {
			out = append(out, st.Error.S(l))
		}
	case wizard.StageEdit, wizard.StagePreview:
	}
	return out
}
