// Package ui is ktopo's terminal UI shell: App is the only tea.Model. It
// owns the cluster model, receives the ZooKeeper mirror's batches through
// one re-armed command, applies them and hands the results to the screens
// that own the data, focused or not. It routes keys (global bindings
// first, then the focused screen), lays the screens out between a header
// and a status bar, shows the full help, the `:` command line and a stack
// of pushed screens (topic, broker, the creation wizard).
//
// Work that outlives its screen lives here too: when the user closes the
// creation wizard while the topic is being written or brought online, the
// wizard (a Task) moves from the screen stack to the App's background task
// list. The App keeps feeding it snapshots and the results of its commands
// (nav.TaskMsg), shows its progress in the status bar, and announces the
// outcome there when it finishes; the events screen keeps the record of
// every partition coming online, as for any change.
package ui

import (
	"log"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/screens/create"
	"github.com/ktopo/ktopo/ui/screens/events"
	"github.com/ktopo/ktopo/ui/screens/overview"
	"github.com/ktopo/ktopo/ui/screens/topic"
	"github.com/ktopo/ktopo/ui/screens/topics"
	"github.com/ktopo/ktopo/ui/screens/tree"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkwatch"
)

// Screen is what the shell needs from a view. Defined here, at the
// consumer.
type Screen interface {
	help.KeyMap
	Title() string
	Update(tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	SetStyles(theme.Styles)
}

// SnapshotSetter is a screen that shows the cluster.
type SnapshotSetter interface {
	SetSnapshot(*cluster.Snapshot)
}

// Capturer is a screen with a text field; while it captures, single-key
// global bindings (q, ?, 1–4) go to the screen.
type Capturer interface {
	Capturing() bool
}

// Backer is a screen that uses esc itself (to clear a filter) before the
// shell pops it.
type Backer interface {
	Back() bool
}

// Task is a screen whose work can outlive it (the creation wizard). When
// the user closes it, Detach reports whether work is still in flight; if
// so the shell keeps it in a background list, feeds it snapshots and the
// nav.TaskMsg results addressed to its TaskID, and shows TaskStatus in the
// status bar until done, when the final line is shown once and the task
// is dropped.
type Task interface {
	TaskID() int
	Detach() bool
	TaskStatus() (line string, done bool)
}

// Modal is a screen that may show a popup (the wizard's confirmation);
// the shell composites a non-empty Modal() centred over the screen.
type Modal interface {
	Modal() string
}

// Pacer is implemented by a SandboxControl whose simulated controller and
// brokers can be slowed down, so that each step is visible.
type Pacer interface {
	SetPace(d time.Duration)
	Pace() time.Duration
}

// Source is the live mirror of the cluster (*zkwatch.Mirror).
type Source interface {
	Batches() <-chan zkwatch.Batch
	Stats() zkwatch.Stats
	OpenSubtree(path string) error
	CloseSubtree(path string) error
}

// Browser reads single znodes for the tree screen (*zkwatch.Conn).
type Browser interface {
	ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error)
	Get(path string) ([]byte, *zk.Stat, error)
}

// SandboxControl drives the sandbox cluster ktopo started itself.
type SandboxControl interface {
	Kill(id int) error
	Restart(id int) error
	// ElectPreferred runs a preferred leader election for a topic ("" for
	// all) and returns a one-line summary.
	ElectPreferred(topic string) (string, error)
	MoveController() error
	Running(id int) bool
}

var (
	_ Source  = (*zkwatch.Mirror)(nil)
	_ Browser = (*zkwatch.Conn)(nil)
)

// Mode is how ktopo runs, shown as the status bar's badge.
type Mode uint8

// Modes.
const (
	ModeLive Mode = iota
	ModeSandbox
	ModeReadOnly
)

// Config configures an App.
type Config struct {
	Source  Source
	Browser Browser        // nil: the tree shows only the mirror
	Sandbox SandboxControl // nil unless running the sandbox
	// Connect is the connect string shown in the header.
	Connect string
	Mode    Mode
	// Context is the name of the config-file context, "" for none;
	// Production paints the badge in the production colour.
	Context    string
	Production bool
	// NoColor selects the attributes-only theme (NO_COLOR).
	NoColor bool
	// Writer is the ZooKeeper session topics are created through (a
	// *zkwatch.Conn). It enables the creation wizard (`c`, `:create`)
	// unless Mode is ModeReadOnly; nil disables it.
	Writer cluster.ZK
	// Rand draws the wizard's random start index and replica shift (nil:
	// randomly seeded; tests fix it).
	Rand *rand.Rand
	// Now is the clock (default time.Now); Location the time zone of the
	// times shown (default local).
	Now      func() time.Time
	Location *time.Location
	// Logger receives debug lines (nil: none). Debug measures View.
	Logger *log.Logger
	Debug  bool
	// EventCapacity bounds the events timeline (0: the default).
	EventCapacity int
}

// Tabs.
const (
	TabOverview = iota
	TabTopics
	TabTree
	TabEvents
	tabCount
)

// App is the root model.
type App struct {
	cfg   Config
	st    theme.Styles
	km    keys.Map
	anims *anim.Set
	model *cluster.Model
	snap  *cluster.Snapshot

	overview *overview.Model
	topics   *topics.Model
	tree     *tree.Model
	events   *events.Model
	tabs     [tabCount]Screen
	active   int
	stack    []Screen
	// tasks are closed screens whose work still runs (see Task).
	tasks []Screen
	// paceSeq is the newest pace request seen (see paceOrder).
	paceSeq   uint64
	paceOrder *paceOrder

	w, h     int
	help     help.Model
	showHelp bool
	cmd      textinput.Model
	cmdOpen  bool

	status    string
	statusErr bool
	statusID  int

	// connection
	state     zkwatch.State
	haveState bool
	loaded    bool // the first full load arrived
	resyncing bool // a session expired; waiting for the reload
	closed    bool
	lastData  time.Time
	stats     zkwatch.Stats
	loadedIn  time.Duration
	started   time.Time

	// Frames counts View calls (idle-CPU checks in tests).
	Frames int
	dbg    debugStats
}

// New builds the App.
func New(cfg Config) *App {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	a := &App{cfg: cfg, km: keys.Default(), anims: anim.NewSet(theme.FlashSteps),
		model: cluster.NewModel(cluster.ModelOptions{}), help: help.New(), paceOrder: &paceOrder{}}
	if cfg.NoColor {
		a.st = theme.Mono()
	} else {
		a.st = theme.New(true)
	}
	a.km.SetSandbox(cfg.Sandbox != nil && cfg.Mode == ModeSandbox)
	a.km.Global.Create.SetEnabled(cfg.Writer != nil && cfg.Mode != ModeReadOnly)
	a.overview = overview.New(a.st, a.km, a.anims)
	a.overview.SetConnect(cfg.Connect)
	a.topics = topics.New(a.st, a.km, a.anims)
	a.tree = tree.New(a.st, a.km, cfg.Location)
	a.events = events.New(a.st, a.km, cfg.Location)
	if cfg.EventCapacity > 0 {
		a.events.SetCapacity(cfg.EventCapacity)
	}
	a.tabs = [tabCount]Screen{a.overview, a.topics, a.tree, a.events}
	a.cmd = theme.NewInput(a.st, ":")
	a.cmd.ShowSuggestions = true
	a.cmd.SetSuggestions(a.commandNames())
	a.help.Styles = a.st.Help
	a.started = cfg.Now()
	return a
}

// batchMsg is a mirror batch that arrived.
type batchMsg zkwatch.Batch

// sourceClosedMsg: the mirror closed its channel.
type sourceClosedMsg struct{}

// waitForBatch is re-armed after every batch: one outstanding receive, so
// a busy UI applies back-pressure and zkwatch keeps coalescing meanwhile.
func waitForBatch(ch <-chan zkwatch.Batch) tea.Cmd {
	return func() tea.Msg {
		b, ok := <-ch
		if !ok {
			return sourceClosedMsg{}
		}
		return batchMsg(b)
	}
}

// Init implements tea.Model.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if a.cfg.Source != nil {
		cmds = append(cmds, waitForBatch(a.cfg.Source.Batches()))
	}
	if a.cfg.Debug {
		cmds = append(cmds, debugTick())
	}
	return tea.Batch(cmds...)
}

// Snapshot returns the current cluster snapshot (nil before the first load).
func (a *App) Snapshot() *cluster.Snapshot { return a.snap }

// Active returns the active tab.
func (a *App) Active() int { return a.active }

// Focused returns the screen that has the keyboard.
func (a *App) Focused() Screen {
	if n := len(a.stack); n > 0 {
		return a.stack[n-1]
	}
	return a.tabs[a.active]
}

// Stack returns the pushed screens, bottom first.
func (a *App) Stack() []Screen { return a.stack }

// Tasks returns the closed screens whose work still runs.
func (a *App) Tasks() []Screen { return a.tasks }

// Status returns the status line message.
func (a *App) Status() (string, bool) { return a.status, a.statusErr }

// ShowingHelp reports whether the full help is shown.
func (a *App) ShowingHelp() bool { return a.showHelp }

// Overview, Topics, Tree and Events return the tab screens.
func (a *App) Overview() *overview.Model { return a.overview }

// Topics returns the topics screen.
func (a *App) Topics() *topics.Model { return a.topics }

// Tree returns the tree screen.
func (a *App) Tree() *tree.Model { return a.tree }

// Events returns the events screen.
func (a *App) Events() *events.Model { return a.events }

// Anims returns the animation set.
func (a *App) Anims() *anim.Set { return a.anims }

// Update implements tea.Model.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	return a, a.update(msg)
}

func (a *App) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		// Every screen, not only the visible one: switching never shows a
		// stale layout.
		a.w, a.h = msg.Width, msg.Height
		a.layout()
		return nil
	case tea.BackgroundColorMsg:
		if !a.cfg.NoColor {
			a.restyle(theme.New(msg.IsDark()))
		}
		return nil
	case batchMsg:
		cmd := a.applyBatch(zkwatch.Batch(msg))
		return tea.Batch(cmd, waitForBatch(a.cfg.Source.Batches()))
	case sourceClosedMsg:
		a.closed = true
		a.layout()
		return nil
	case anim.FrameMsg:
		return a.anims.Step(msg)
	case clearStatusMsg:
		if msg.id == a.statusID {
			a.status = ""
		}
		return nil
	case debugTickMsg:
		a.dbg.report(a.cfg.Logger)
		return debugTick()
	}
	if cmd, ok := a.handleRequest(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return a.handleKey(msg)
	case tea.PasteMsg:
		if a.cmdOpen {
			var cmd tea.Cmd
			a.cmd, cmd = a.cmd.Update(msg)
			return cmd
		}
	case tea.MouseWheelMsg:
		if a.showHelp {
			return nil
		}
	}
	return a.Focused().Update(msg)
}

// layout sizes every screen for the current window.
func (a *App) layout() {
	ch := a.contentHeight()
	for _, s := range a.tabs {
		s.SetSize(a.w, ch)
	}
	for _, s := range a.stack {
		s.SetSize(a.w, ch)
	}
	for _, s := range a.tasks {
		s.SetSize(a.w, ch)
	}
	a.help.SetWidth(a.w)
	a.cmd.SetWidth(max(a.w-4, 10))
}

func (a *App) contentHeight() int {
	h := a.h - 2 // header and status bar
	if a.banner() != "" {
		h--
	}
	return max(h, 1)
}

func (a *App) restyle(st theme.Styles) {
	a.st = st
	for _, s := range a.tabs {
		s.SetStyles(st)
	}
	for _, s := range a.stack {
		s.SetStyles(st)
	}
	for _, s := range a.tasks {
		s.SetStyles(st)
	}
	a.help.Styles = st.Help
	theme.StyleInput(&a.cmd, st)
}

// applyBatch applies a mirror batch to the model and hands the results to
// the screens that own them.
func (a *App) applyBatch(b zkwatch.Batch) tea.Cmd {
	now := a.cfg.Now()
	hadBanner := a.banner() != ""
	for _, s := range b.States {
		a.state, a.haveState = s, true
		if s == zkwatch.StateExpired {
			a.resyncing = true
		}
	}
	if a.cfg.Source != nil {
		a.stats = a.cfg.Source.Stats()
	}
	var cmd tea.Cmd
	if len(b.Events) > 0 || b.Reset {
		nodes := clusterwatch.NodeEvents(b)
		changes := a.model.Apply(nodes, b.Reset)
		a.snap = a.model.Snapshot()
		a.tree.Apply(nodes, b.Reset)
		first := b.Reset && !a.loaded
		if b.Reset {
			a.loaded, a.resyncing = true, false
			if first {
				a.loadedIn = now.Sub(a.started)
			}
		}
		a.lastData = now
		for _, s := range a.allScreens() {
			if ss, ok := s.(SnapshotSetter); ok {
				ss.SetSnapshot(a.snap)
			}
		}
		// The first load describes the cluster as it is, not what
		// happened: it neither fills the timeline nor flashes.
		if !first && len(changes) > 0 {
			a.events.Append(changes, now.UnixMilli())
			a.flash(changes, now)
			cmd = a.anims.Kick()
		}
		cmd = tea.Batch(cmd, a.finishTasks())
	} else if a.state == zkwatch.StateConnected && !a.resyncing {
		a.lastData = now
	}
	if hadBanner != (a.banner() != "") {
		a.layout()
	}
	return cmd
}

func (a *App) allScreens() []Screen {
	out := make([]Screen, 0, tabCount+len(a.stack)+len(a.tasks))
	out = append(out, a.tabs[:]...)
	out = append(out, a.stack...)
	return append(out, a.tasks...)
}

// flash starts the animations of changed cells.
func (a *App) flash(changes []cluster.Change, now time.Time) {
	for i := range changes {
		c := &changes[i]
		switch c.Kind {
		case cluster.ChangeLeaderMoved:
			a.anims.Start(anim.Key{Topic: c.Topic, Partition: c.Partition, Field: anim.FieldLeader}, text.Broker(c.From), text.Broker(c.To), now)
		case cluster.ChangePartitionAppeared:
			a.anims.Start(anim.Key{Topic: c.Topic, Partition: c.Partition, Field: anim.FieldLeader}, "new", text.Broker(c.Leader), now)
		case cluster.ChangeIsrShrank:
			old := slices.Concat(c.ISR, c.Removed)
			slices.Sort(old)
			a.anims.Start(anim.Key{Topic: c.Topic, Partition: c.Partition, Field: anim.FieldISR}, text.Ints(old), text.Ints(c.ISR), now)
		case cluster.ChangeIsrExpanded:
			var old []int
			for _, r := range c.ISR {
				if !slices.Contains(c.Added, r) {
					old = append(old, r)
				}
			}
			a.anims.Start(anim.Key{Topic: c.Topic, Partition: c.Partition, Field: anim.FieldISR}, text.Ints(old), text.Ints(c.ISR), now)
		case cluster.ChangeBrokerRegistered:
			a.anims.Start(anim.Key{Partition: c.Broker, Field: anim.FieldBroker}, "down", "up", now)
		case cluster.ChangeBrokerGone:
			a.anims.Start(anim.Key{Partition: c.Broker, Field: anim.FieldBroker}, "up", "down", now)
		case cluster.ChangeTopicCreated:
			a.anims.Start(anim.Key{Topic: c.Topic, Field: anim.FieldTopic}, "", "new", now)
		}
	}
}

// banner is the connection warning line, "" when the data is current.
func (a *App) banner() string {
	since := ""
	if !a.lastData.IsZero() {
		since = " as of " + a.lastData.In(a.cfg.Location).Format("15:04:05")
	}
	switch {
	case a.closed:
		return "ZooKeeper connection closed — the data shown is frozen" + since
	case a.resyncing:
		return "ZooKeeper session expired — resyncing; the data shown is" + since + " and may be stale"
	case !a.loaded:
		if a.haveState && a.state == zkwatch.StateConnected {
			return "Loading the cluster from ZooKeeper…"
		}
		return "Connecting to ZooKeeper…"
	case a.haveState && a.state != zkwatch.StateConnected:
		return "Disconnected from ZooKeeper — reconnecting; the data shown is" + since + " and may be stale"
	}
	return ""
}

// setStatus shows a message for a few seconds.
func (a *App) setStatus(s string, isErr bool) tea.Cmd {
	a.status, a.statusErr = s, isErr
	a.statusID++
	id := a.statusID
	return tea.Tick(6*time.Second, func(time.Time) tea.Msg { return clearStatusMsg{id} })
}

type clearStatusMsg struct{ id int }

// switchTab shows tab i, clearing the screen stack.
func (a *App) switchTab(i int) tea.Cmd {
	a.showHelp = false
	for len(a.stack) > 0 {
		a.dropTop()
	}
	prev := a.active
	a.active = i
	var cmds []tea.Cmd
	if prev == TabTree && i != TabTree {
		cmds = append(cmds, a.tree.SetVisible(false))
	}
	if i == TabTree {
		cmds = append(cmds, a.tree.SetVisible(true))
	}
	return tea.Batch(cmds...)
}

// push shows a screen on top of the current one.
func (a *App) push(s Screen) tea.Cmd {
	a.showHelp = false
	s.SetSize(a.w, a.contentHeight())
	if ss, ok := s.(SnapshotSetter); ok && a.snap != nil {
		ss.SetSnapshot(a.snap)
	}
	var cmd tea.Cmd
	if len(a.stack) == 0 && a.active == TabTree {
		cmd = a.tree.SetVisible(false)
	}
	a.stack = append(a.stack, s)
	return cmd
}

// pop removes the top screen.
func (a *App) pop() tea.Cmd {
	if len(a.stack) == 0 {
		return nil
	}
	a.dropTop()
	if len(a.stack) == 0 && a.active == TabTree {
		return a.tree.SetVisible(true)
	}
	return nil
}

// dropTop removes the top screen; a Task with work in flight moves to the
// background list.
func (a *App) dropTop() {
	n := len(a.stack)
	top := a.stack[n-1]
	a.stack = a.stack[:n-1]
	if t, ok := top.(Task); ok && t.Detach() {
		a.tasks = append(a.tasks, top)
	}
}

// task finds the screen with a task id: on the stack or in the background.
func (a *App) task(id int) (Screen, bool) {
	for _, s := range a.stack {
		if t, ok := s.(Task); ok && t.TaskID() == id {
			return s, false
		}
	}
	for _, s := range a.tasks {
		if t, ok := s.(Task); ok && t.TaskID() == id {
			return s, true
		}
	}
	return nil, false
}

// finishTasks drops the background tasks that finished and shows the
// outcome of the last one in the status bar.
func (a *App) finishTasks() tea.Cmd {
	var cmd tea.Cmd
	kept := a.tasks[:0]
	for _, s := range a.tasks {
		line, done := s.(Task).TaskStatus()
		if !done {
			kept = append(kept, s)
			continue
		}
		if line != "" {
			cmd = a.setStatus(line, strings.Contains(line, "failed"))
		}
	}
	clear(a.tasks[len(kept):])
	a.tasks = kept
	return cmd
}

func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &a.km.Global
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if a.cmdOpen {
		return a.commandKey(msg)
	}
	if a.showHelp {
		// Any key closes the help; q still quits.
		a.showHelp = false
		if key.Matches(msg, g.Quit) {
			return tea.Quit
		}
		return nil
	}
	focused := a.Focused()
	if c, ok := focused.(Capturer); ok && c.Capturing() {
		if key.Matches(msg, g.FieldHelp) {
			a.showHelp = true
			return nil
		}
		return focused.Update(msg)
	}
	switch {
	case key.Matches(msg, g.Quit):
		return tea.Quit
	case key.Matches(msg, g.Help):
		a.showHelp = true
		return nil
	case key.Matches(msg, g.Command):
		a.cmdOpen = true
		a.cmd.SetValue("")
		return a.cmd.Focus()
	case key.Matches(msg, g.Overview):
		return a.switchTab(TabOverview)
	case key.Matches(msg, g.Topics):
		return a.switchTab(TabTopics)
	case key.Matches(msg, g.Tree):
		return a.switchTab(TabTree)
	case key.Matches(msg, g.Events):
		return a.switchTab(TabEvents)
	case key.Matches(msg, g.Create):
		return a.openCreate()
	case key.Matches(msg, g.Back):
		if b, ok := focused.(Backer); ok && b.Back() {
			return nil
		}
		if len(a.stack) > 0 {
			return a.pop()
		}
		if a.active != TabOverview {
			return a.switchTab(TabOverview)
		}
		return nil
	}
	return focused.Update(msg)
}

func (a *App) openCreate() tea.Cmd {
	switch {
	case a.cfg.Mode == ModeReadOnly:
		return a.setStatus("Read-only mode: topic creation is disabled.", true)
	case a.cfg.Writer == nil:
		return a.setStatus("Topic creation is not available: this session cannot write to ZooKeeper.", true)
	}
	if n := len(a.stack); n > 0 {
		if _, ok := a.stack[n-1].(*create.Model); ok {
			return nil // already open
		}
	}
	o := create.Options{Styles: a.st, Keys: a.km, Anims: a.anims, Writer: a.cfg.Writer, Now: a.cfg.Now, Rand: a.cfg.Rand}
	if p, ok := a.cfg.Sandbox.(Pacer); ok && a.cfg.Mode == ModeSandbox {
		o.Pace = p.Pace
	}
	return a.push(create.New(o))
}

// commands of the `:` line, with their aliases.
var commands = []struct {
	names []string
	help  string
}{
	{[]string{"overview", "o", "brokers"}, "brokers by rack"},
	{[]string{"topics", "t"}, "the topic list"},
	{[]string{"tree", "zk"}, "the ZooKeeper browser"},
	{[]string{"events", "e"}, "the change timeline"},
	{[]string{"topic"}, "open a topic: :topic NAME"},
	{[]string{"create", "c"}, "create a topic"},
	{[]string{"help", "h"}, "show the keys"},
	{[]string{"quit", "q", "q!"}, "quit"},
}

func (a *App) commandNames() []string {
	var out []string
	for _, c := range commands {
		if c.names[0] == "create" && !a.km.Global.Create.Enabled() {
			continue
		}
		out = append(out, c.names[0])
	}
	return out
}

func (a *App) commandKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		a.cmdOpen = false
		a.cmd.Blur()
		return nil
	case "enter":
		a.cmdOpen = false
		a.cmd.Blur()
		return a.runCommand(a.cmd.Value())
	}
	var cmd tea.Cmd
	a.cmd, cmd = a.cmd.Update(msg)
	return cmd
}

// RunCommand runs a `:` command line.
func (a *App) runCommand(line string) tea.Cmd {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	name, args := f[0], f[1:]
	for _, c := range commands {
		if !slices.Contains(c.names, name) {
			continue
		}
		switch c.names[0] {
		case "overview":
			return a.switchTab(TabOverview)
		case "topics":
			return a.switchTab(TabTopics)
		case "tree":
			return a.switchTab(TabTree)
		case "events":
			return a.switchTab(TabEvents)
		case "topic":
			if len(args) != 1 {
				return a.setStatus("usage: :topic NAME", true)
			}
			return a.openTopic(args[0], -1)
		case "create":
			return a.openCreate()
		case "help":
			a.showHelp = true
			return nil
		case "quit":
			return tea.Quit
		}
	}
	return a.setStatus("unknown command :"+name+" (try :overview, :topics, :tree, :events, :topic NAME, :q)", true)
}

func (a *App) openTopic(name string, partition int) tea.Cmd {
	// Re-opening the topic on top of the stack just moves the cursor.
	if n := len(a.stack); n > 0 {
		if t, ok := a.stack[n-1].(*topic.Model); ok && t.Name() == name {
			a.stack = a.stack[:n-1]
		}
	}
	return a.push(topic.New(a.st, a.km, a.anims, name, partition))
}
