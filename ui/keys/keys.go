// Package keys holds ktopo's key bindings: one Default map in groups. It is
// a leaf package; each screen receives only the groups it uses. A binding
// that does not apply (a sandbox action on a real cluster, creation before
// the wizard exists) is disabled, never hidden with an if: help skips
// disabled bindings, so the help screen never lies.
package keys

import (
	"fmt"
	"strconv"

	"charm.land/bubbles/v2/key"
)

// Global bindings work on every screen (unless a text field has focus).
// While one has, keys type into it: only FieldHelp and FieldQuit act
// there, and the screen says what esc does. The tabs' number keys are
// the shell's (see Tab).
type Global struct {
	Quit, Help, Back, Command, Create key.Binding
	FieldHelp, FieldQuit              key.Binding
	// QuitAnyway and Stay answer the question quitting asks while an
	// operation would be left between its steps or with its throttles.
	QuitAnyway, Stay key.Binding
}

// List moves a cursor through rows.
type List struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Left, Right, Open key.Binding
}

// Filter and sort bindings of list screens.
type Filter struct {
	Filter, Clear, Sort, Kind, Follow, Unhealthy key.Binding
}

// Input acts in a one-line text field (a list's `/` filter, the `:` line);
// every other key types into the field.
type Input struct {
	// Accept leaves the field keeping what was typed: a filter stays
	// applied, the `:` line runs.
	Accept key.Binding
	// Cancel leaves the field dropping what was typed.
	Cancel key.Binding
	// Leave leaves a filter for its list, where the key then moves the
	// cursor; a screen whose filter keeps these keys disables it.
	Leave key.Binding
	// Complete takes the completion shown (the `:` line's commands and
	// topic names); NextMatch and PrevMatch show the other matches. The
	// shell enables them while there is a match.
	Complete, NextMatch, PrevMatch key.Binding
}

// Tree bindings of the ZooKeeper browser.
type Tree struct {
	Expand, Collapse, Toggle, Raw key.Binding
}

// Wizard bindings of the topic-creation wizard (form, preview, confirm,
// progress). Its text fields take every other key. The wizard enables
// only the bindings of its current stage, so that its help shows what
// acts and one key (enter) can mean one thing per stage.
type Wizard struct {
	// Form. Complete shares tab with Next: on the configs field it
	// completes the key or value being typed when there is a completion,
	// and Next moves on otherwise; NextMatch and PrevMatch show the other
	// completions there. Close leaves the wizard from the form.
	Next, Prev, Complete, NextMatch, PrevMatch, Clear, Toggle, Submit, Close key.Binding
	// Preview.
	Create, Reroll, StepBack, StepForward, Written key.Binding
	// Preview and progress (Top and Bottom: the first and the last rows of
	// a preview, a progress grid, the exact writes).
	ScrollUp, ScrollDown, PageUp, PageDown, Top, Bottom, ColumnsLeft, ColumnsRight key.Binding
	// Confirmation popup.
	Confirm, Cancel, SwitchButton, Choose key.Binding
	// Progress and summary.
	Pace, OpenTopic, BackToForm key.Binding
}

// Ops are the topology operations and their previews. The what-if only
// reads the model, so it works in every mode, read-only included.
type Ops struct {
	// WhatIf shows what losing the selected broker or rack would do.
	WhatIf key.Binding
	// Worst keeps, in the what-if, only the partitions that would go
	// offline or under their min ISR.
	Worst key.Binding
	// Drain opens the operation wizard to move every replica off the
	// selected broker; Reassign, on a topic, to move its partitions or
	// change its replication factor. They write, so read-only mode
	// refuses them (the shell says so).
	Drain, Reassign key.Binding
	// AddPartitions, on a topic, opens the operation wizard adding
	// partitions to it.
	AddPartitions key.Binding
	// Elect opens the operation wizard for a preferred leader election
	// through /admin/preferred_replica_election (every topic on the
	// overview, the topic on its screen); in the sandbox Sandbox.Elect
	// runs one at once instead.
	Elect key.Binding
	// Configs, on a topic, opens the operation wizard editing its config
	// overrides.
	Configs key.Binding
}

// Operation bindings of the operation wizard (a drain): the preview, its
// exact znodes, the confirmation, the progress. It shares the creation
// wizard's scrolling, popup and pace keys (Wizard); these are its own.
type Operation struct {
	// Preview: ask for confirmation of the operation previewed (each
	// operation's own, so that the help names it), switch the strategy,
	// cycle the throttle, show what is written; for a topic, raise or
	// lower the replication factor.
	Drain, Reassign, AddPartitions, Elect, ChangeConfigs key.Binding
	Strategy, Throttle, Written                          key.Binding
	MoreReplicas, FewerReplicas                          key.Binding
	// Adding partitions: one more, one fewer; on a KRaft cluster another
	// seed of the controller's placer (the one that spreads them better,
	// when the preview names one).
	MorePartitions, FewerPartitions, Reseed key.Binding
	// LeadersFirst, in a drain's preview, turns the leadership step off
	// and on (the broker's leaders moved off it before any copy).
	LeadersFirst key.Binding
	// Confirm writes the operation from the popup.
	Confirm key.Binding
}

// Sandbox actions, enabled only when ktopo runs its own sandbox cluster.
type Sandbox struct {
	Kill, Elect, MoveController key.Binding
}

// Map is the whole key map.
type Map struct {
	Global    Global
	List      List
	Filter    Filter
	Input     Input
	Tree      Tree
	Wizard    Wizard
	Ops       Ops
	Operation Operation
	Sandbox   Sandbox
}

func b(keys []string, k, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
}

// Default returns a fresh map (never a shared mutable global). Sandbox
// actions and Create start disabled; the shell enables what applies.
func Default() Map {
	m := Map{
		Global: Global{
			Quit:    b([]string{"q", "ctrl+c"}, "q", "quit"),
			Help:    b([]string{"?", "f1"}, "?", "help"),
			Back:    b([]string{"esc"}, "esc", "back"),
			Command: b([]string{":"}, ":", "command"),
			// In a text field "?" and "q" are text.
			FieldHelp: b([]string{"f1"}, "f1", "help"),
			FieldQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit"),
			Create:    b([]string{"c"}, "c", "create topic"),
			// ctrl+c twice quits.
			QuitAnyway: b([]string{"y", "enter", "ctrl+c"}, "y", "quit"),
			Stay:       b([]string{"n", "esc"}, "n/esc", "stay"),
		},
		List: List{
			Up:       b([]string{"up", "k"}, "↑/k", "up"),
			Down:     b([]string{"down", "j"}, "↓/j", "down"),
			PageUp:   b([]string{"pgup", "ctrl+b", "ctrl+u"}, "pgup", "page up"),
			PageDown: b([]string{"pgdown", "ctrl+f", "ctrl+d", "space"}, "pgdn", "page down"),
			Top:      b([]string{"home", "g"}, "g", "top"),
			Bottom:   b([]string{"end", "G"}, "G", "bottom"),
			Left:     b([]string{"left", "h"}, "←/h", "left"),
			Right:    b([]string{"right", "l"}, "→/l", "right"),
			Open:     b([]string{"enter"}, "enter", "open"),
		},
		Filter: Filter{
			Filter:    b([]string{"/"}, "/", "filter (~ for regex)"),
			Clear:     b([]string{"esc"}, "esc", "clear filter"),
			Sort:      b([]string{"s"}, "s", "sort column"),
			Kind:      b([]string{"K"}, "K", "kind filter"),
			Follow:    b([]string{"f"}, "f", "follow"),
			Unhealthy: b([]string{"u"}, "u", "only unhealthy"),
		},
		Input: Input{
			Accept: b([]string{"enter"}, "enter", "done"),
			Cancel: b([]string{"esc"}, "esc", "cancel"),
			Leave:  b([]string{"up", "down", "pgup", "pgdown"}, "↑/↓", "back to the list"),
			// In the `:` line ↑/↓ go through its matches too, as in the
			// fields of bubbles' textinput.
			Complete:  b([]string{"tab"}, "tab", "complete"),
			NextMatch: b([]string{"ctrl+n", "down"}, "ctrl+n", "next match"),
			PrevMatch: b([]string{"ctrl+p", "up"}, "ctrl+p", "previous match"),
		},
		Tree: Tree{
			Expand:   b([]string{"right", "l"}, "→/l", "expand"),
			Collapse: b([]string{"left", "h"}, "←/h", "collapse"),
			Toggle:   b([]string{"enter"}, "enter", "toggle"),
			Raw:      b([]string{"r"}, "r", "raw data"),
		},
		Wizard: Wizard{
			Next:         b([]string{"tab", "down"}, "tab/↓", "next field"),
			Prev:         b([]string{"shift+tab", "up"}, "shift+tab/↑", "previous field"),
			Complete:     b([]string{"tab"}, "tab", "complete config"),
			NextMatch:    b([]string{"ctrl+n"}, "ctrl+n", "next completion"),
			PrevMatch:    b([]string{"ctrl+p"}, "ctrl+p", "previous completion"),
			Close:        b([]string{"esc"}, "esc", "close the wizard"),
			Clear:        b([]string{"ctrl+u"}, "ctrl+u", "clear field"),
			Toggle:       b([]string{"space", "left", "right", "h", "l"}, "space/←/→", "rack mode"),
			Submit:       b([]string{"enter"}, "enter", "preview"),
			Create:       b([]string{"enter"}, "enter", "create…"),
			Reroll:       b([]string{"r"}, "r", "re-roll start index"),
			StepBack:     b([]string{"left", "h"}, "←/h", "previous start index"),
			StepForward:  b([]string{"right", "l"}, "→/l", "next start index"),
			Written:      b([]string{"w"}, "w", "what is written"),
			ScrollUp:     b([]string{"up", "k"}, "↑/k", "scroll up"),
			ScrollDown:   b([]string{"down", "j"}, "↓/j", "scroll down"),
			PageUp:       b([]string{"pgup"}, "pgup", "page up"),
			PageDown:     b([]string{"pgdown", "space"}, "pgdn", "page down"),
			Top:          b([]string{"home", "g"}, "g", "top"),
			Bottom:       b([]string{"end", "G"}, "G", "bottom"),
			ColumnsLeft:  b([]string{"<", ","}, "<", "brokers left"),
			ColumnsRight: b([]string{">", "."}, ">", "brokers right"),
			Confirm:      b([]string{"y"}, "y", "create"),
			Cancel:       b([]string{"n"}, "n", "cancel"),
			SwitchButton: b([]string{"tab", "shift+tab", "left", "right", "h", "l"}, "tab", "other button"),
			Choose:       b([]string{"enter"}, "enter", "press the button"),
			Pace:         b([]string{"p"}, "p", "sandbox pace"),
			OpenTopic:    b([]string{"enter"}, "enter", "open topic"),
			BackToForm:   b([]string{"enter"}, "enter/esc", "back to the form"),
		},
		Ops: Ops{
			WhatIf:        b([]string{"f"}, "f", "what if it fails"),
			Worst:         b([]string{"u"}, "u", "only offline / under min ISR"),
			Drain:         b([]string{"d"}, "d", "drain broker…"),
			Reassign:      b([]string{"R"}, "R", "reassign / RF…"),
			AddPartitions: b([]string{"a"}, "a", "add partitions…"),
			Elect:         b([]string{"p"}, "p", "preferred election…"),
			Configs:       b([]string{"e"}, "e", "edit configs…"),
		},
		Operation: Operation{
			Drain:           b([]string{"enter"}, "enter", "drain…"),
			Reassign:        b([]string{"enter"}, "enter", "reassign…"),
			AddPartitions:   b([]string{"enter"}, "enter", "add the partitions…"),
			Elect:           b([]string{"enter"}, "enter", "elect…"),
			ChangeConfigs:   b([]string{"enter"}, "enter", "change the configs…"),
			Strategy:        b([]string{"s"}, "s", "strategy minimal/balanced/kafka"),
			Throttle:        b([]string{"t"}, "t", "throttle"),
			Written:         b([]string{"w"}, "w", "what is written"),
			LeadersFirst:    b([]string{"L"}, "L", "leaders first on/off"),
			Confirm:         b([]string{"y"}, "y", "write it"),
			MoreReplicas:    b([]string{"+", "="}, "+", "replication factor +1"),
			FewerReplicas:   b([]string{"-"}, "-", "replication factor −1"),
			MorePartitions:  b([]string{"+", "="}, "+", "one more partition"),
			FewerPartitions: b([]string{"-"}, "-", "one partition fewer"),
			Reseed:          b([]string{"r"}, "r", "other placer seed"),
		},
		Sandbox: Sandbox{
			Kill:           b([]string{"x"}, "x", "kill/restart broker"),
			Elect:          b([]string{"p"}, "p", "preferred election"),
			MoveController: b([]string{"m"}, "m", "move controller"),
		},
	}
	m.Global.Create.SetEnabled(false)
	m.SetSandbox(false)
	return m
}

// Tab is the key of the shell's tab i (from 0): its number, 1 to 9, so
// that the header shows it; desc is what the help says it shows.
func Tab(i int, desc string) key.Binding {
	n := strconv.Itoa(i + 1)
	return b([]string{n}, n, desc)
}

// SetSandbox enables or disables the sandbox actions.
func (m *Map) SetSandbox(on bool) {
	m.Sandbox.Kill.SetEnabled(on)
	m.Sandbox.Elect.SetEnabled(on)
	m.Sandbox.MoveController.SetEnabled(on)
	m.Ops.Elect.SetEnabled(!on)
}

// Scroll moves a page's first line shown, *top, by the list keys: a
// line, a page of page lines, the top, the bottom (past the end, for the
// view to bring back); false when msg is none of them.
func (l List) Scroll(msg fmt.Stringer, top *int, page int) bool {
	switch {
	case key.Matches(msg, l.Up):
		*top--
	case key.Matches(msg, l.Down):
		*top++
	case key.Matches(msg, l.PageUp):
		*top -= page
	case key.Matches(msg, l.PageDown):
		*top += page
	case key.Matches(msg, l.Top):
		*top = 0
	case key.Matches(msg, l.Bottom):
		*top = 1 << 30
	default:
		return false
	}
	return true
}
