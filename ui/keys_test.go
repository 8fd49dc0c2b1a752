package ui

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/zkops"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/zkwatch"
)

// keyState is the App in one screen and stage, built afresh for every key
// the honesty test presses.
type keyState struct {
	name  string
	build func(t *testing.T) *App
}

// failingWriter refuses every multi: the wizard's failed stage.
type failingWriter struct{ fakeWriter }

func (*failingWriter) Multi(...any) ([]zk.MultiResponse, error) {
	return nil, errors.New("zk: not authenticated")
}

// fullApp runs in the sandbox with a writer, so that every binding that
// can be enabled is.
func fullApp(w zkops.ZK, spec fixture.Spec) *App {
	sb := &fakeSandbox{running: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
	a := New(Config{Source: newSource(), Prober: zksource.Prober{Browser: &fakeBrowser{}}, Writer: zkops.NewWriter(w), Sandbox: sb, Mode: ModeSandbox, Connect: "zk1:2181/kafka",
		Now: func() time.Time { return t0 }, Location: time.UTC, Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for _, b := range spec.Batches() {
		a.update(mirrorBatch(b)) // its commands (the re-armed receive, ticks) not run
	}
	return a
}

// at is the App after keys, their commands not run (what the honesty
// test looks at is what the keys did to the state).
func at(spec func() fixture.Spec, ks ...string) func(t *testing.T) *App {
	return func(*testing.T) *App {
		a := fullApp(&fakeWriter{}, spec())
		for _, k := range ks {
			a.update(fixture.Key(k))
		}
		return a
	}
}

// liveAt is the App on a real cluster (not the sandbox: p opens the
// election wizard) after keys, their commands run.
func liveAt(ks ...string) func(t *testing.T) *App {
	return func(*testing.T) *App {
		sp := wizardSpec()
		sp.Topics[0].Drift = []int{1, 2}
		a := New(Config{Source: newSource(), Prober: zksource.Prober{Browser: &fakeBrowser{}}, Writer: zkops.NewWriter(&fakeWriter{}), Mode: ModeLive, Connect: "zk1:2181/kafka",
			Now: func() time.Time { return t0 }, Location: time.UTC, Rand: rand.New(rand.NewPCG(1, 2))})
		a.update(tea.WindowSizeMsg{Width: 120, Height: 40})
		for _, b := range sp.Batches() {
			a.update(mirrorBatch(b))
		}
		press(a, ks...)
		return a
	}
}

// written is the App after keys that end with the wizard's write, their
// commands run (the write's result moves the wizard on).
func written(w zkops.ZK, ks ...string) func(t *testing.T) *App {
	return func(*testing.T) *App {
		a := fullApp(w, wizardSpec())
		press(a, ks...)
		return a
	}
}

// onlineBatch is the controller bringing every partition of plan online.
func onlineBatch(plan *clusterops.TopicPlan) batchMsg {
	zxid := int64(90_000)
	ev := func(path string, data []byte) zkwatch.Event {
		zxid++
		return zkwatch.Event{Type: zkwatch.Created, Path: path, Data: data,
			Stat: &zk.Stat{Czxid: zxid, Mzxid: zxid, Ctime: 1, Mtime: 1, DataLength: int32(len(data))}}
	}
	evs := []zkwatch.Event{ev(plan.ConfigPath, plan.ConfigJSON), ev(plan.TopicPath, plan.TopicJSON)}
	for p, reps := range plan.Assignment() {
		st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: reps[0], Version: 1, ISR: reps})
		evs = append(evs, ev(cluster.PartitionStatePath(plan.Name, p), st))
	}
	return mirrorBatch(zkwatch.Batch{Events: evs})
}

var wizardKeys = []string{"c", "p", "a", "y", "enter"}

func keyStates() []keyState {
	small := fixture.Small
	return []keyState{
		{"overview", at(small, "down")},
		{"overview rack heading", at(small, "up")},
		{"what-if broker", at(small, "f")},
		{"what-if rack", at(small, "right", "up", "f", "j")},
		{"what-if worst", at(small, "f", "u")},
		{"broker", at(small, "enter", "j")},
		{"topics", at(small, "2", "j", "j")},
		{"topics filter", at(small, "2", "/")},
		{"topic", at(small, "2", "j", "j", "j", "j", "enter", "j")},
		{"tree", at(small, "3", "j")},
		{"events", at(small, "4")},
		{"events filter", at(small, "4", "/")},
		{"command line", at(small, ":")},
		{"command line with matches", at(small, ":", "t", "o")},
		{"command line, a topic", at(small, ":", "t", "o", "p", "i", "c", "space")},
		{"wizard form", at(wizardSpec, "c")},
		{"wizard configs field", at(wizardSpec, "c", "tab", "tab", "tab", "tab")},
		{"wizard configs field completing", at(wizardSpec, "c", "tab", "tab", "tab", "tab", "r", "e", "t")},
		{"wizard rack field", at(wizardSpec, "c", "tab", "tab", "tab")},
		{"wizard preview", at(wizardSpec, wizardKeys...)},
		{"wizard confirm", at(wizardSpec, append(wizardKeys, "enter")...)},
		{"wizard progress", written(&fakeWriter{}, append(wizardKeys, "enter", "y")...)},
		{"wizard done", func(t *testing.T) *App {
			a := written(&fakeWriter{}, append(wizardKeys, "enter", "y")...)(t)
			run(a, onlineBatch(wizard(a).Plan()))
			if wizard(a).Stage() != "done" {
				t.Fatalf("stage %s", wizard(a).Stage())
			}
			return a
		}},
		{"drain preview", at(wizardSpec, "d")},
		{"drain written", at(wizardSpec, "d", "w")},
		{"drain confirm", at(wizardSpec, "d", "enter")},
		{"drain progress", written(&fakeWriter{}, "d", "enter", "y")},
		{"drain failed", written(&failingWriter{}, "d", "enter", "y")},
		{"reassign topic preview", at(wizardSpec, "2", "enter", "R")},
		{"reassign topic rf+1", at(wizardSpec, "2", "enter", "R", "+")},
		{"add partitions preview", at(wizardSpec, "2", "enter", "a")},
		{"add partitions confirm", at(wizardSpec, "2", "enter", "a", "enter")},
		{"add partitions progress", written(&fakeWriter{}, "2", "enter", "a", "enter", "y")},
		{"election preview (live)", liveAt("p")},
		{"election confirm (live)", liveAt("p", "enter")},
		{"topic election (live)", liveAt("2", "enter", "p")},
		{"configs editor", at(wizardSpec, "2", "enter", "e")},
		{"configs preview", written(&fakeWriter{}, "2", "enter", "e", "enter")},
		{"configs written", written(&fakeWriter{}, "2", "enter", "e", "enter", "enter", "y")},
		{"configs failed", written(&failingWriter{}, "2", "enter", "e", "enter", "enter", "y")},
		{"reassign topic progress", written(&fakeWriter{}, "2", "enter", "R", "+", "enter", "y")},
		{"election progress (live)", liveAt("p", "enter", "y")},
		{"drain production mistyped", func(t *testing.T) *App {
			a := fullApp(&fakeWriter{}, wizardSpec())
			a.cfg.Production = true
			press(a, "d", "enter", "4", "enter")
			return a
		}},
		{"configs editor (configs field)", at(wizardSpec, "2", "enter", "e", "r", "e", "t")},
		{"drain production confirm", func(t *testing.T) *App {
			a := fullApp(&fakeWriter{}, wizardSpec())
			a.cfg.Production = true
			press(a, "d", "enter")
			return a
		}},
		{"wizard failed", func(t *testing.T) *App {
			a := written(&failingWriter{}, append(wizardKeys, "enter", "y")...)(t)
			if wizard(a).Stage() != "failed" {
				t.Fatalf("stage %s", wizard(a).Stage())
			}
			return a
		}},
	}
}

// inForce are the bindings the help page shows in a's state (? or f1;
// the `:` line, which has none, tells its keys in the help's legend).
// The footer shows some of them (TestFooterIsInTheHelp).
func inForce(a *App) []key.Binding {
	if a.cmdOpen {
		in := a.km.Input
		return enabled([]key.Binding{in.Accept, in.Cancel, in.Complete, in.NextMatch, in.PrevMatch, a.km.Global.FieldQuit})
	}
	var bs []key.Binding
	for _, g := range a.helpGroups() {
		bs = append(bs, g...)
	}
	return enabled(bs)
}

// bindingsOf lists every binding of a keymap group struct (by reflection,
// so that a binding added to keys cannot be missed).
func bindingsOf(group any) []key.Binding {
	v := reflect.ValueOf(group)
	var out []key.Binding
	for i := range v.NumField() {
		if b, ok := v.Field(i).Interface().(key.Binding); ok {
			out = append(out, b)
		}
	}
	return out
}

// keyUniverse is every key the test presses: every key of the keymap,
// the named keys and the printable characters.
func keyUniverse() []string {
	seen := map[string]bool{}
	var out []string
	add := func(ks ...string) {
		for _, k := range ks {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	km := keys.Default()
	v := reflect.ValueOf(km)
	for i := range v.NumField() {
		for _, b := range bindingsOf(v.Field(i).Interface()) {
			add(b.Keys()...)
		}
	}
	for i := range 9 {
		add(keys.Tab(i, "").Keys()...)
	}
	add("enter", "esc", "tab", "shift+tab", "space", "up", "down", "left", "right", "pgup", "pgdown", "home", "end", "backspace", "f1", "f2")
	for c := '!'; c <= '~'; c++ {
		add(string(c))
	}
	return out
}

// textKeys are the keys a focused text field takes for itself: what it
// types, and its own editing keys. Not its completion keys: what they do
// (take a completion, show the next) the help must tell.
func textKeys() map[string]bool {
	out := map[string]bool{"space": true}
	for c := '!'; c <= '~'; c++ {
		out[string(c)] = true
	}
	km := textinput.DefaultKeyMap()
	km.AcceptSuggestion, km.NextSuggestion, km.PrevSuggestion = key.Binding{}, key.Binding{}, key.Binding{}
	for _, b := range bindingsOf(km) {
		for _, k := range b.Keys() {
			out[k] = true
		}
	}
	return out
}

// state is what a key press can change that a user sees.
func state(a *App) string {
	s, isErr := a.Status()
	return fmt.Sprint(screen(a), a.Active(), len(a.Stack()), a.ShowingHelp(), a.cmdOpen, s, isErr)
}

// TestKeysHelpTellsTheTruth: in every screen and stage, every key that
// does something is in a binding the help page (? or f1) shows there, the
// text fields' completion keys included.
func TestKeysHelpTellsTheTruth(t *testing.T) {
	text := textKeys()
	for _, ks := range keyStates() {
		t.Run(ks.name, func(t *testing.T) {
			probe := ks.build(t)
			typing := probe.cmdOpen || probe.capturing()
			bound := map[string]bool{}
			for _, b := range inForce(probe) {
				for _, k := range b.Keys() {
					bound[k] = true
				}
			}
			// A key that did nothing leaves the App as it was: the next key
			// is pressed on it; after one that acted, the state is rebuilt.
			a, acted := probe, 0
			var unshown []string
			for _, k := range keyUniverse() {
				if typing && text[k] && !bound[k] {
					continue // the text field's own
				}
				if a == nil {
					a = ks.build(t)
				}
				before := state(a)
				if cmd := a.update(fixture.Key(k)); cmd == nil && state(a) == before {
					continue
				}
				acted++
				a = nil
				if !bound[k] {
					unshown = append(unshown, k)
				}
			}
			if acted == 0 {
				t.Fatal("no key acts: the probe sees nothing")
			}
			if len(unshown) > 0 {
				t.Errorf("keys that act but the help does not show: %q", unshown)
			}
		})
	}
}

// TestKeysDoNotCollide: in every screen and stage, no key belongs to two
// bindings in force, except where one layers over the other on purpose.
func TestKeysDoNotCollide(t *testing.T) {
	km := keys.Default()
	// layered are pairs where the first acts when it applies and the second
	// otherwise: a screen's esc (a Backer's) before the shell's back, the
	// configs field's completion before moving on.
	layered := [][2]key.Binding{
		{km.Filter.Clear, km.Global.Back},
		{km.Wizard.Complete, km.Wizard.Next},
	}
	same := func(x, y key.Binding) bool {
		return slices.Equal(x.Keys(), y.Keys()) && x.Help() == y.Help()
	}
	allowed := func(x, y key.Binding) bool {
		for _, l := range layered {
			if (same(x, l[0]) && same(y, l[1])) || (same(x, l[1]) && same(y, l[0])) {
				return true
			}
		}
		return false
	}
	for _, ks := range keyStates() {
		t.Run(ks.name, func(t *testing.T) {
			a := ks.build(t)
			var bs []key.Binding
			for _, b := range inForce(a) {
				if !slices.ContainsFunc(bs, func(c key.Binding) bool { return same(b, c) }) {
					bs = append(bs, b)
				}
			}
			owner := map[string]key.Binding{}
			for _, b := range bs {
				for _, k := range b.Keys() {
					if o, ok := owner[k]; ok && !allowed(o, b) {
						t.Errorf("%q is %q (%s) and %q (%s)", k, o.Help().Key, o.Help().Desc, b.Help().Key, b.Help().Desc)
					}
					owner[k] = b
				}
			}
		})
	}
}

// helpPages opens the help in a's state at w×h and returns every line it
// shows, scrolling through it (down until it stops moving).
func helpPages(t *testing.T, a *App, w, h int) []string {
	t.Helper()
	a.update(tea.WindowSizeMsg{Width: w, Height: h})
	a.update(fixture.Key("f1"))
	if !a.ShowingHelp() {
		t.Fatal("f1 does not open the help")
	}
	var out []string
	for range 500 {
		lines := strings.Split(screen(a), "\n")
		out = append(out, lines...)
		for _, l := range lines {
			if cell.Width(l) > w {
				t.Errorf("%d columns in a %d-column window: %q", cell.Width(l), w, l)
			}
		}
		if !a.helpScrolls() {
			return out
		}
		before := a.helpOff
		a.update(fixture.Key("down"))
		if !a.ShowingHelp() {
			t.Fatal("down closed a help that scrolls")
		}
		if a.helpOff == before {
			return out
		}
	}
	t.Fatal("the help never reached its end")
	return nil
}

// TestHelpShowsEveryKeyWhole: in every screen and stage, at 80×24 and
// down to 30×8, the help shows every binding in force with its key and
// its whole description (the last columns were cut to "…" at 80×24),
// scrolling where it is taller than the window; its title says how.
func TestHelpShowsEveryKeyWhole(t *testing.T) {
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, ks := range keyStates() {
		for _, sz := range [][2]int{{80, 24}, {50, 16}, {30, 8}} {
			t.Run(fmt.Sprintf("%s/%dx%d", ks.name, sz[0], sz[1]), func(t *testing.T) {
				a := ks.build(t)
				if a.cmdOpen {
					t.Skip("the : line has no help page (its keys are in the status bar)")
				}
				shown := words(strings.Join(helpPages(t, a, sz[0], sz[1]), "\n"))
				for _, g := range a.helpGroups() {
					for _, b := range g {
						if !b.Enabled() {
							continue
						}
						if h := b.Help(); !strings.Contains(shown, words(h.Key+" "+h.Desc)) {
							t.Errorf("%q %q is not shown whole", h.Key, h.Desc)
						}
					}
				}
				if a.helpScrolls() && !strings.Contains(shown, "↑/↓ pgdn scroll") {
					t.Error("the help scrolls and does not say so")
				}
			})
		}
	}
}

// TestKeysScrollLikeLists: wherever a page scrolls (pgdn is in force
// and no text field has the keys, where g and G are text), g and G go to
// its top and its bottom, as in every list (the drain's preview ignored
// them).
func TestKeysScrollLikeLists(t *testing.T) {
	for _, ks := range keyStates() {
		t.Run(ks.name, func(t *testing.T) {
			a := ks.build(t)
			bound := map[string]bool{}
			for _, b := range inForce(a) {
				for _, k := range b.Keys() {
					bound[k] = true
				}
			}
			gap := bound["pgdown"] && (!bound["g"] || !bound["G"]) && !a.cmdOpen && !a.capturing()
			if gap {
				t.Errorf("pgdn in force, but g %v, G %v", bound["g"], bound["G"])
			}
		})
	}
}

// TestFooterIsInTheHelp: every key the status bar offers is on the help
// page too, where the test above holds the help to the truth (the
// creation form's esc was only in the status bar).
func TestFooterIsInTheHelp(t *testing.T) {
	for _, ks := range keyStates() {
		t.Run(ks.name, func(t *testing.T) {
			a := ks.build(t)
			if a.cmdOpen {
				return // the line itself is the status bar
			}
			in := inForce(a)
			for _, b := range enabled(a.Focused().ShortHelp()) {
				if !slices.ContainsFunc(in, func(c key.Binding) bool { return slices.Equal(b.Keys(), c.Keys()) && b.Help() == c.Help() }) {
					t.Errorf("%q (%s) is in the status bar, not in the help", b.Help().Key, b.Help().Desc)
				}
			}
		})
	}
}
