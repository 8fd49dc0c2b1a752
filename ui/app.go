// Package ui is ktopo's terminal UI shell: App is the only tea.Model. It
// owns the cluster model, receives its source's batches (the ZooKeeper
// mirror's, or the Kafka-protocol poller's on a KRaft cluster: a
// clusterwatch.Source, Config.Source) through one re-armed command,
// applies them and hands the results to the screens that own the data,
// focused or not. It routes keys (global bindings first, then the focused
// screen), lays the screens out between a header and a status bar, shows
// the full help, the `:` command line and a stack of pushed screens (the
// topic, the what-if, the creation and operation wizards). Writes go
// through the clusterops.Writer it is given (Config.Writer); the ZooKeeper
// tree is a tab only when the source has the mirror's nodes.
//
// Types to know: App (New, from a Config), Screen (what a screen is) and
// the ports in screen.go.
//
// Work that outlives its screen lives here too: when the user closes the
// creation wizard while the topic is being written or brought online, the
// wizard (a Task) moves from the screen stack to the App's background task
// list. The App keeps feeding it snapshots and the results of its commands
// (nav.TaskMsg), shows its progress in the status bar, and announces the
// outcome there when it finishes; the events screen keeps the record of
// every partition coming online, as for any change.
//
// Where things are: screen.go (what a screen is, the ports), tabs.go (the
// table of top-level screens: a new tab is a row there), keys.go (key
// routing), command.go (the `:` line), requests.go (what screens ask),
// stack.go (pushed screens and background tasks), data.go (the source's
// batches), quit.go (what quitting would leave half done), status.go and
// view.go (drawing).
package ui

import (
	"log"
	"math/rand/v2"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/screens/events"
	"github.com/ktopo/ktopo/ui/screens/migration"
	"github.com/ktopo/ktopo/ui/screens/operate"
	"github.com/ktopo/ktopo/ui/screens/overview"
	"github.com/ktopo/ktopo/ui/screens/quorum"
	"github.com/ktopo/ktopo/ui/screens/topics"
	"github.com/ktopo/ktopo/ui/screens/tree"
	"github.com/ktopo/ktopo/ui/theme"
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
	Source Source
	// Prober reads single znodes for the tree screen (nil: it shows only
	// the mirror).
	Prober  tree.Prober
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
	// Writer is what the wizards write through: the ZooKeeper session
	// (zkops.NewWriter of a ZooKeeper connection), or Kafka's
	// Admin API on a KRaft cluster (kafkaops). It enables the creation
	// wizard (`c`, `:create`) and the operations unless Mode is
	// ModeReadOnly; nil disables them.
	Writer clusterops.Writer
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
	// Notice, when set, is shown in the status bar at start, as a warning
	// (e.g. that the config file holding a password is readable by others).
	Notice string
	// CheckRoot, when set, finds out whether the connect string's root
	// holds a Kafka cluster (zksource.CheckRoot), and if not says so
	// and where one is ("" when there is one). It reads ZooKeeper: the
	// shell runs it once, in a command, and the overview shows what it
	// says while no broker is registered.
	CheckRoot func() string
	// Quorum, when set, asks the KRaft quorum of a migrating cluster
	// (ktopo --bootstrap-controller): the migration radar shows how far
	// ZooKeeper lags KRaft.
	Quorum migration.QuorumAsker
	// SavePlan, when set, keeps the plan of a reassignment that ktopo
	// leaves running when it exits (a file) and returns where, with the
	// command that verifies it and removes its throttles once done
	// (operate.PlanSaver); nil: the plan is printed.
	SavePlan operate.PlanSaver
	// KRaftQuorum, when set, reads a KRaft cluster's metadata quorum
	// for the Quorum tab: live from the poller's polls, and the feature
	// ranges and registrations while the tab is shown
	// (kafkawatch.QuorumWatch). Nil: the tab says it cannot.
	KRaftQuorum quorum.Source
	// Sizes, when set, reads the replicas' sizes and the brokers' disks
	// (DescribeLogDirs, on a calm interval; a sandbox's simulation): the
	// overview, the topics and the plans show bytes. Nil: every screen
	// says sizes are unknown and works by replica counts.
	Sizes clusterwatch.SizeSource
	// SizesOff is why there are no sizes when Sizes is nil ("" for the
	// default: "not read by this session").
	SizesOff string
}

// App is the root model.
type App struct {
	cfg   Config
	st    theme.Styles
	km    keys.Map
	anims *anim.Set
	model *cluster.Model
	snap  *cluster.Snapshot
	// sizes are the newest sizes (never nil after New: unknown, with why,
	// until the first reading).
	sizes *cluster.Sizes
	// hurried: the sizes source was asked to read often (a move runs).
	hurried bool

	// The tab screens the shell feeds itself (the events and the tree get
	// more than snapshots); tabs is the table every tab is in.
	overview *overview.Model
	topics   *topics.Model
	tree     *tree.Model
	events   *events.Model
	quorum   *quorum.Model
	tabs     []tab
	// absent are the tabs this cluster's shell leaves out (see newTabs).
	absent []tab
	active int
	stack  []Screen
	// history are the views shown before, esc's way back (see switchTab).
	history []view
	// tasks are closed screens whose work still runs (see Task).
	tasks []Task
	// owners are the screens that run commands, by the id the shell gave
	// each (nav.TaskMsg); lastID is the last id given.
	owners map[int]Screen
	lastID int
	// handoff holds the batch the outstanding receive got (see
	// waitForBatch).
	handoff chan clusterwatch.Batch

	w, h     int
	footer   footer // the status bar's right part and help, sized in Update
	showHelp bool
	helpOff  int // the help's first line shown under its title
	cmd      textinput.Model
	cmdOpen  bool
	// quitAsk is what quitting now would leave behind, while the shell
	// asks whether to quit all the same (nil: not asking).
	quitAsk []string

	status    string
	statusErr bool
	statusID  int

	// connection
	state     clusterwatch.State
	haveState bool
	loaded    bool // the first full load arrived
	resyncing bool // a session expired; waiting for the reload
	closed    bool
	lastData  time.Time
	stats     clusterwatch.Stats
	progress  clusterwatch.Progress // of the first load, as of the last batch
	// hasTree: the source has a ZooKeeper tree to browse (the tree tab
	// is shown).
	hasTree  bool
	loadedIn time.Duration
	started  time.Time

	dbg debugStats
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
		model: cluster.NewModel(cluster.ModelOptions{PackPartitions: packs(cfg.Source)}), owners: map[int]Screen{}, handoff: make(chan clusterwatch.Batch, 1)}
	a.sizes = initialSizes(cfg)
	if cfg.NoColor {
		a.st = theme.Mono()
	} else {
		a.st = theme.New(true)
	}
	a.footer.help = help.New()
	a.km.Global.QuitAnyway.SetEnabled(false)
	a.km.Global.Stay.SetEnabled(false)
	a.km.SetSandbox(cfg.Sandbox != nil && cfg.Mode == ModeSandbox)
	if a.kraftSandbox() {
		// The KRaft sandbox elects leaders as a KRaft cluster does: the
		// election wizard, over ElectLeaders, rather than at once.
		a.km.Sandbox.Elect.SetEnabled(false)
		a.km.Ops.Elect.SetEnabled(true)
	}
	// Read-only mode keeps `c`, to say that it refuses (as d, p and e do).
	a.km.Global.Create.SetEnabled(cfg.Writer != nil || cfg.Mode == ModeReadOnly)
	a.overview = overview.New(a.st, a.km, a.anims)
	a.overview.SetConnect(cfg.Connect)
	a.overview.SetClock(cfg.Now) // the sizes' age, told per reading and per batch
	a.topics = topics.New(a.st, a.km, a.anims)
	to := tree.Options{Styles: a.st, Keys: a.km, Location: cfg.Location, Task: a.newID()}
	if sub, ok := cfg.Source.(tree.Subtrees); ok {
		a.hasTree = true
		to.Subtrees = sub
		if n, ok := cfg.Source.(tree.Nodes); ok {
			to.Nodes = n // the tree keeps no copy of the mirror's data and stats (a tree.Walker too: built when first shown)
		}
	}
	to.Prober = cfg.Prober
	a.tree = tree.New(to)
	a.owners[to.Task] = a.tree
	a.events = events.New(a.st, a.km, cfg.Location)
	if cfg.EventCapacity > 0 {
		a.events.SetCapacity(cfg.EventCapacity)
	}
	a.cmd = theme.NewInput(a.st, ":")
	a.cmd.ShowSuggestions = true
	a.setTabs(a.newTabs())
	// The tabs start with the sizes unknown, saying why, until a reading.
	a.applySizes(a.sizes)
	a.restyle(a.st)
	a.started = cfg.Now()
	if cfg.Notice != "" {
		a.status, a.statusErr = cfg.Notice, true // stays until the next message
	}
	return a
}

// Init implements tea.Model.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if a.cfg.Source != nil {
		cmds = append(cmds, a.rearm())
	}
	if a.cfg.Sizes != nil {
		cmds = append(cmds, waitForSizes(a.cfg.Sizes))
	}
	if a.cfg.Debug {
		cmds = append(cmds, debugTick())
	}
	if check := a.cfg.CheckRoot; check != nil {
		cmds = append(cmds, func() tea.Msg { return rootCheckedMsg{check()} })
	}
	return tea.Batch(cmds...)
}

// Snapshot returns the current cluster snapshot (nil before the first load).
func (a *App) Snapshot() *cluster.Snapshot { return a.snap }

// Active names the active tab: its first `:` command ("overview", …).
func (a *App) Active() string { return a.tabs[a.active].commands[0] }

// Focused returns the screen that has the keyboard.
func (a *App) Focused() Screen {
	if n := len(a.stack); n > 0 {
		return a.stack[n-1]
	}
	return a.tabs[a.active].screen
}

// Stack returns the pushed screens, bottom first.
func (a *App) Stack() []Screen { return a.stack }

// Tasks returns the closed screens whose work still runs.
func (a *App) Tasks() []Task { return a.tasks }

// Status returns the status line message.
func (a *App) Status() (string, bool) { return a.status, a.statusErr }

// ShowingHelp reports whether the full help is shown.
func (a *App) ShowingHelp() bool { return a.showHelp }

// Overview returns the overview screen.
func (a *App) Overview() *overview.Model { return a.overview }

// Topics returns the topics screen.
func (a *App) Topics() *topics.Model { return a.topics }

// Tree returns the tree screen.
func (a *App) Tree() *tree.Model { return a.tree }

// Events returns the events screen.
func (a *App) Events() *events.Model { return a.events }

// Quorum returns the quorum tab's screen (a tab on a KRaft cluster only).
func (a *App) Quorum() *quorum.Model { return a.quorum }

// Anims returns the animation set.
func (a *App) Anims() *anim.Set { return a.anims }

// rootCheckedMsg: Config.CheckRoot answered.
type rootCheckedMsg struct{ text string }

// Update implements tea.Model.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	return a, a.update(msg)
}

// update routes msg, then brings what View reads up to date, so that View
// only draws.
func (a *App) update(msg tea.Msg) tea.Cmd {
	cmd := a.route(msg)
	a.km.Global.QuitAnyway.SetEnabled(a.quitAsk != nil)
	a.km.Global.Stay.SetEnabled(a.quitAsk != nil)
	a.sizeFooter()
	return cmd
}

// route is the order of STYLE §2: size, background, data, ticks, command
// results, keys, then the focused screen.
func (a *App) route(msg tea.Msg) tea.Cmd {
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
	case batchMsg: // a batch handed over directly (tests)
		return tea.Batch(a.applyBatch(clusterwatch.Batch(msg)), a.rearm())
	case batchReadyMsg:
		select {
		case b := <-a.handoff:
			return tea.Batch(a.applyBatch(b), a.rearm())
		default:
			return a.rearm()
		}
	case sizesMsg:
		a.applySizes(msg.sizes)
		return waitForSizes(a.cfg.Sizes)
	case sizesClosedMsg:
		return nil
	case sourceClosedMsg:
		a.closed = true
		a.layout()
		return nil
	case rootCheckedMsg:
		a.overview.SetNoKafka(msg.text)
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
	case nav.TaskMsg:
		return a.deliver(msg)
	case sandboxDoneMsg:
		if msg.err != nil {
			return a.setStatus(msg.err.Error(), true)
		}
		return a.setStatus(msg.text, false)
	case tea.KeyPressMsg:
		return a.handleKey(msg)
	case tea.PasteMsg:
		if a.cmdOpen {
			var cmd tea.Cmd
			a.cmd, cmd = a.cmd.Update(msg)
			a.suggest()
			return cmd
		}
	case tea.MouseWheelMsg:
		if a.showHelp {
			a.helpWheel(msg)
			return nil
		}
	}
	return a.send(a.Focused(), msg)
}

// send hands msg to screen s and handles what it asks.
func (a *App) send(s Screen, msg tea.Msg) tea.Cmd {
	cmd, req := s.Update(msg)
	return tea.Batch(cmd, a.handle(s, req))
}

// layout sizes every screen for the current window.
func (a *App) layout() {
	ch := a.contentHeight()
	for _, s := range a.allScreens() {
		s.SetSize(a.w, ch)
	}
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
	for _, s := range a.allScreens() {
		s.SetStyles(st)
	}
	a.footer.help.Styles = st.Help
	theme.StyleInput(&a.cmd, st)
}

// allScreens are the tabs, the stack, the screens of the views esc goes
// back to and the background tasks.
func (a *App) allScreens() []Screen {
	out := make([]Screen, 0, len(a.tabs)+len(a.stack)+len(a.tasks))
	for _, t := range a.tabs {
		out = append(out, t.screen)
	}
	out = append(out, a.stack...)
	for _, v := range a.history {
		out = append(out, v.stack...)
	}
	for _, t := range a.tasks {
		out = append(out, t)
	}
	return out
}

// packs says whether a source's first load fills the model's blocks of
// partitions (cluster.ModelOptions.PackPartitions): the Kafka-protocol
// poller's does.
func packs(src clusterwatch.Source) bool {
	return src != nil && src.Backend() == cluster.ViaKafka
}
