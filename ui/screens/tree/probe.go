package tree

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/nav"
)

// results of the screen's commands, delivered wrapped in nav.TaskMsg.
type (
	// probedMsg: a probe's answer.
	probedMsg struct {
		path  string
		probe Probe
		err   error
	}
	// probeFiredMsg: a probed node's children changed (or the watch ended).
	probeFiredMsg struct{ path string }
	// subtreeFailedMsg: opening or closing a subtree failed.
	subtreeFailedMsg struct{ err error }
)

// isProbing reports whether the screen still wants path probed.
func (m *Model) isProbing(path string) bool { return m.visible && m.probing[path] }

// how says how the children of path are known.
func how(path string) source {
	info := cluster.ParsePath(path)
	switch info.Kind {
	case cluster.KindRoot, cluster.KindBrokers, cluster.KindTopic, cluster.KindTopicPartitions, cluster.KindPartition,
		cluster.KindConfig, cluster.KindAdmin, cluster.KindCluster:
		return srcProbe
	case cluster.KindBrokerIDs, cluster.KindBrokerTopics, cluster.KindDeleteTopics,
		cluster.KindIsrChangeNotifications, cluster.KindLogDirEventNotifications:
		return srcMirror
	case cluster.KindConfigEntityType:
		if info.EntityType == "topics" {
			return srcMirror
		}
	case cluster.KindBroker, cluster.KindPartitionState, cluster.KindController, cluster.KindControllerEpoch,
		cluster.KindClusterID, cluster.KindTopicConfig, cluster.KindDeleteTopic, cluster.KindReassignPartitions,
		cluster.KindPreferredReplicaElection, cluster.KindIsrChange, cluster.KindLogDirEvent:
		return srcMirror // Kafka's own leaves: the mirror has them
	}
	return srcOpen
}

// inOpened reports whether path lies inside an opened subtree.
func (m *Model) inOpened(path string) bool {
	for p := range m.opened {
		if p == path || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// probed takes a probe's answer.
func (m *Model) probed(msg probedMsg) {
	delete(m.waiting, msg.path)
	if !m.probing[msg.path] {
		return
	}
	n := m.ensure(msg.path)
	if msg.err != nil {
		// The node is gone (or unreadable): forget what its probe listed.
		for _, c := range slices.Clone(n.kids) { // prune removes kids
			c.listed = false
			m.prune(c)
		}
		n.probed = false
		return
	}
	if !n.inMirror {
		n.probed, n.denied, n.ver = true, msg.probe.Denied, n.ver+1
		m.held[n] = held{data: msg.probe.Data, stat: msg.probe.Stat}
		st := msg.probe.Stat
		n.hasKids, n.eph = st != nil && st.NumChildren > 0, st != nil && st.EphemeralOwner != 0
	}
	now := make(map[string]bool, len(msg.probe.Children))
	for _, name := range msg.probe.Children {
		now[name] = true
		c, created := m.child(n, name, "")
		if created {
			m.count++
		}
		if !c.listed {
			c.listed = true
			m.flatOK = false
		}
	}
	for _, c := range slices.Clone(n.kids) { // prune removes kids
		if !now[c.name()] && c.listed {
			c.listed = false
			m.prune(c)
		}
	}
}

// Shown implements ui.Shower: the shell tells the screen whether it is
// shown. Leaving stops every probe and closes every subtree; coming back
// asks for them again.
func (m *Model) Shown(v bool) tea.Cmd {
	if v == m.visible {
		return nil
	}
	m.visible = v
	if v && !m.built {
		m.build()
	}
	var cmds []tea.Cmd
	if !v {
		for p := range m.opened {
			cmds = append(cmds, m.subtree(p, false))
		}
		clear(m.opened)
		clear(m.probing)
		clear(m.waiting)
		return tea.Batch(cmds...)
	}
	// Re-ask for every expanded node that is still reachable.
	paths := make([]string, 0, len(m.expanded))
	for p := range m.expanded {
		paths = append(paths, p)
	}
	slices.Sort(paths) // parents first
	for _, p := range paths {
		cmds = append(cmds, m.want(p))
	}
	return tea.Batch(cmds...)
}

// want asks for what an expanded node needs.
func (m *Model) want(path string) tea.Cmd {
	if !m.visible || m.inOpened(path) {
		return nil
	}
	switch how(path) {
	case srcProbe:
		if !m.probing[path] {
			m.probing[path] = true
			m.waiting[path] = true
			return m.probe(path)
		}
	case srcOpen:
		if !m.opened[path] {
			m.opened[path] = true
			m.waiting[path] = true
			return m.subtree(path, true)
		}
	}
	return nil
}

// probe lists path's children (with a watch) and reads its data.
func (m *Model) probe(path string) tea.Cmd {
	pr, task := m.prober, m.task
	if pr == nil {
		return nil
	}
	return func() tea.Msg {
		p, err := pr.Probe(path)
		return nav.TaskMsg{Task: task, Msg: probedMsg{path: path, probe: p, err: err}}
	}
}

// rearm waits for a probed node's children to change.
func (m *Model) rearm(path string, changed func()) tea.Cmd {
	task := m.task
	return func() tea.Msg {
		changed()
		return nav.TaskMsg{Task: task, Msg: probeFiredMsg{path}}
	}
}

// subtree opens or closes a subtree of the mirror.
func (m *Model) subtree(path string, open bool) tea.Cmd {
	subs, task := m.subs, m.task
	if subs == nil {
		return nil
	}
	return func() tea.Msg {
		var err error
		if open {
			err = subs.OpenSubtree(path)
		} else {
			err = subs.CloseSubtree(path)
		}
		if err != nil {
			return nav.TaskMsg{Task: task, Msg: subtreeFailedMsg{err}}
		}
		return nil
	}
}

// unwant releases what a collapsed node held.
func (m *Model) unwant(path string) tea.Cmd {
	delete(m.probing, path)
	delete(m.waiting, path)
	if m.opened[path] {
		delete(m.opened, path)
		return m.subtree(path, false)
	}
	return nil
}
