package ui

import (
	"context"
	"github.com/ktopo/ktopo/cluster"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/ui/internal/cell"
)

// batchMsg is a batch of the source that arrived.
type batchMsg clusterwatch.Batch

// sourceClosedMsg: the source closed.
type sourceClosedMsg struct{}

// batchReadyMsg: a batch of the source waits in the App's handoff.
type batchReadyMsg struct{}

// waitForBatch is re-armed after every batch: one outstanding receive, so
// a busy UI applies back-pressure (the mirror keeps coalescing meanwhile,
// the poller waits). The batch it receives waits in handoff (room for one:
// the one outstanding receive), not in the message: a batch received as
// the TUI closes is not lost with the message, Finish applies it.
func waitForBatch(src Source, handoff chan<- clusterwatch.Batch) tea.Cmd {
	return func() tea.Msg {
		b, err := src.Next(context.Background())
		if err != nil {
			return sourceClosedMsg{}
		}
		handoff <- b
		return batchReadyMsg{}
	}
}

// mirrorStatser is a source with the ZooKeeper mirror's figures
// (*zksource.Source), which the tree shows.
type mirrorStatser interface{ MirroredNodes() int }

// rearm is the next receive of the source's batches.
func (a *App) rearm() tea.Cmd { return waitForBatch(a.cfg.Source, a.handoff) }

// applyBatch applies a source's batch to the model and hands the results
// to the screens that own them.
func (a *App) applyBatch(b clusterwatch.Batch) tea.Cmd {
	now := a.cfg.Now()
	hadBanner := a.banner() != ""
	wasCurrent := a.current()
	for _, s := range b.States {
		a.state, a.haveState = s, true
		if s == clusterwatch.StateSessionLost {
			a.resyncing = true
		}
	}
	if a.cfg.Source != nil {
		a.stats = a.cfg.Source.Stats()
		if ms, ok := a.cfg.Source.(mirrorStatser); ok {
			a.tree.SetMirrored(ms.MirroredNodes())
		}
	}
	var cmd tea.Cmd
	if b.Partial || b.Loaded || b.Reset {
		a.progress = b.Progress
	}
	if len(b.Events) > 0 || b.KRaft != nil || len(b.ELR) > 0 || b.Reset || b.Loaded || b.Partial && !a.loaded {
		// The first load (its partial batches and the one ending it)
		// describes the cluster as it is, not what happened: its changes
		// are not recorded (one per znode, nobody reads them), and while
		// it is under way the snapshots are partial.
		first := !a.loaded
		a.model.SetQuiet(first)
		if first && b.Partial {
			a.model.SetLoading(true)
		}
		changes := b.ApplyTo(a.model)
		if b.Loaded {
			a.model.SetLoading(false)
		}
		a.snap = a.model.Snapshot()
		if a.hasTree {
			a.tree.Apply(b.Events, b.Reset)
		}
		if b.Reset || b.Loaded {
			a.loaded, a.resyncing = true, false
			a.model.SetQuiet(false)
			if first {
				a.loadedIn = now.Sub(a.started)
			}
		}
		for _, s := range a.allScreens() {
			if ss, ok := s.(SnapshotSetter); ok {
				ss.SetSnapshot(a.snap)
			}
		}
		a.hurrySizes()
		// The first load describes the cluster as it is, not what
		// happened: it neither fills the timeline nor flashes.
		if !first && len(changes) > 0 {
			a.events.Append(changes, now.UnixMilli())
			a.anims.StartChanges(changes, now)
			cmd = a.anims.Kick()
		}
		cmd = tea.Batch(cmd, a.finishTasks())
	}
	switch {
	case a.current():
		a.lastData = now
	case wasCurrent || len(b.Events) > 0:
		// The data stopped being current when the server last spoke (the
		// batch that says so is cut later, and an idle cluster sends
		// none): what was read until then is in.
		if h := a.stats.LastHeard; h.After(a.lastData) && !h.After(now) {
			a.lastData = h
		}
	}
	if hadBanner != (a.banner() != "") {
		a.layout()
	}
	return cmd
}

// current reports whether the data shown is live: loaded, and the
// session's server answering.
func (a *App) current() bool {
	return a.loaded && !a.resyncing && !a.closed && a.haveState && a.state == clusterwatch.StateConnected
}

// banner is the connection warning line, "" when the data is current.
func (a *App) banner() string {
	since := ""
	if !a.lastData.IsZero() {
		since = " as of " + a.lastData.In(a.cfg.Location).Format("15:04:05")
	}
	kind := a.sourceKind().String()
	switch {
	case a.closed:
		return kind + " connection closed — the data shown is frozen" + since
	case a.resyncing:
		return "ZooKeeper session expired — resyncing; the data shown is" + since + " and may be stale"
	case !a.loaded:
		if a.haveState && a.state == clusterwatch.StateConnected {
			return a.loadingBanner()
		}
		return "Connecting to " + kind + "…"
	case a.haveState && a.state == clusterwatch.StateUnresponsive:
		return kind + " is not answering — waiting; the data shown is" + since + " and may be stale"
	case a.haveState && a.state != clusterwatch.StateConnected:
		return "Disconnected from " + kind + " — reconnecting; the data shown is" + since + " and may be stale"
	}
	return ""
}

// sourceKind is what the cluster is read through (ZooKeeper without a
// source: the tests' bare App).
func (a *App) sourceKind() cluster.Backend {
	if a.cfg.Source == nil {
		return cluster.ViaZooKeeper
	}
	return a.cfg.Source.Backend()
}

// loadingBanner says how far the first load is: znodes read of those known
// so far (the mirror finds more as it reads), and what is shown of it.
func (a *App) loadingBanner() string {
	line := "Loading the cluster from " + a.sourceKind().String() + "…"
	p := a.progress
	if p.Known == 0 {
		return line
	}
	switch {
	case a.sourceKind() == cluster.ViaKafka && p.Topics > 0:
		// A large cluster's topics come in pieces; their configs after.
		line += " read the partitions of " + cell.Thousands(p.Topics) + " of " + cell.Count(p.Known, "topic")
	case a.sourceKind() == cluster.ViaKafka:
		// The topics and partitions are in; the topics' configs follow.
		line += " read the configs of " + cell.Thousands(p.Done) + " of " + cell.Count(p.Known, "topic")
	default:
		line += " read " + cell.Thousands(p.Done) + " of the " + cell.Thousands(p.Known) + " znodes found so far"
	}
	if s := a.snap; s != nil && s.Partial() {
		line += " · showing " + cell.Count(len(s.Topics()), "topic")
		if n := s.LoadingTopics(); n > 0 {
			line += ", " + cell.Thousands(n) + " more loading"
		}
	}
	return line
}
