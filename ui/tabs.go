package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/screens/migration"
	"github.com/ktopo/ktopo/ui/screens/quorum"
)

// tab is one of the shell's top-level screens.
type tab struct {
	screen Screen
	// label names the tab in the header; keyHelp is what the help says
	// its number key does.
	label, keyHelp string
	// commands are the `:` names that switch to the tab, the first one
	// completed and listed; about says what the tab shows.
	commands []string
	about    string
	// zookeeper: the tab shows what only a ZooKeeper cluster has, so a
	// KRaft cluster's shell leaves it out; kraft: what only a KRaft
	// cluster has, left out of a ZooKeeper cluster's shell.
	zookeeper, kraft bool
	// num is the tab's number key: its place in the whole table, kept
	// when a tab before it is left out (Events is 4 on a KRaft cluster
	// too, whose shell has no tree for 3), so that an operator switching
	// between clusters presses the same key for the same tab. 0: the
	// number after the previous tab's.
	num int
	// key is the tab's number key (num).
	key key.Binding
}

// newTabs is the table of the shell's top-level screens, in header order.
//
// Adding a screen is one row here. Write the screen in its own package
// under ui/screens (a Model implementing Screen, plus SnapshotSetter to
// receive every snapshot, Shower to know when it is shown, Capturer and
// Backer for a text field; what it asks of the shell it returns from
// Update as a nav.Request), then give it a row: the screen, its header
// label, what its number key does, its `:` names and a line about it.
// The header, the number keys, the `:` commands and their completion, the
// "unknown command" hint, the help page's groups and its legend, and the
// generated key reference (docs/keys.md) all read this table.
//
// A screen that only makes sense for one source is left out for the
// other: the ZooKeeper tree and the migration radar (which reads
// ZooKeeper) are not tabs of a KRaft cluster, the metadata quorum not one
// of a ZooKeeper cluster (hidden, not shown empty: their `:` names say
// which clusters have them, see absentTab). The others keep
// their number keys (see tab.num).
func (a *App) newTabs() []tab {
	radar := migration.New(a.st, a.km, a.cfg.Now, a.cfg.Location)
	if a.cfg.Quorum != nil {
		radar.SetQuorumAsker(a.cfg.Quorum)
	}
	a.quorum = quorum.New(a.st, a.km, a.cfg.Now, a.cfg.Location)
	if a.cfg.KRaftQuorum != nil {
		a.quorum.SetSource(a.cfg.KRaftQuorum)
	}
	tabs := []tab{
		{screen: a.overview, label: "Overview", keyHelp: "overview", commands: []string{"overview", "o", "brokers"}, about: "brokers by rack"},
		{screen: a.topics, label: "Topics", keyHelp: "topics", commands: []string{"topics", "t"}, about: "the topic list"},
		{screen: a.tree, label: "Tree", keyHelp: "zk tree", commands: []string{"tree", "zk"}, about: "the ZooKeeper browser", zookeeper: true},
		{screen: a.events, label: "Events", keyHelp: "events", commands: []string{"events", "e"}, about: "the change timeline"},
		{screen: radar, label: "Migration", keyHelp: "migration",
			commands: []string{"migration", "m", "kraft"}, about: "a ZooKeeper to KRaft migration", zookeeper: true},
		{screen: a.quorum, label: "Quorum", keyHelp: "quorum", commands: []string{"quorum", "controllers"},
			about: "the metadata quorum, features and registrations", kraft: true},
	}
	for i := range tabs {
		tabs[i].num = i + 1
	}
	if a.cfg.Source == nil {
		return tabs
	}
	a.absent = slices.Clone(tabs)
	left := func(t tab) bool { return t.zookeeper && !a.hasTree || t.kraft && a.hasTree }
	a.absent = slices.DeleteFunc(a.absent, func(t tab) bool { return !left(t) })
	return slices.DeleteFunc(tabs, left)
}

// absentTab says, for the `:` name of a tab this cluster's shell leaves
// out, which clusters have it ("" when name is no such tab's). Its number
// key does nothing, as a number with no tab does.
func (a *App) absentTab(name string) string {
	for _, t := range a.absent {
		if slices.Contains(t.commands, name) {
			if t.kraft {
				return "The " + t.label + " tab is a KRaft cluster's: this cluster runs in ZooKeeper mode (a migration's KRaft quorum is on the Migration tab)."
			}
			return "The " + t.label + " tab is a ZooKeeper cluster's: this cluster runs in KRaft mode (its metadata quorum is on the Quorum tab)."
		}
	}
	return ""
}

// setTabs installs the tab table: each tab gets its number key (the `:`
// line completes the commands the table adds: see completions).
func (a *App) setTabs(tabs []tab) {
	last := 0
	for i := range tabs {
		if tabs[i].num == 0 {
			tabs[i].num = last + 1
		}
		last = tabs[i].num
		tabs[i].key = keys.Tab(last-1, tabs[i].keyHelp)
	}
	a.tabs = tabs
}

// tabKeys are the tabs' number keys, in order.
func (a *App) tabKeys() []key.Binding {
	out := make([]key.Binding, len(a.tabs))
	for i, t := range a.tabs {
		out[i] = t.key
	}
	return out
}
