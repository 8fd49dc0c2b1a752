package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
)

// Sizes come from their own source (Config.Sizes), beside the cluster's:
// a reading of every broker's log directories is slower and changes less
// than the metadata, so it never holds up the first screen or a batch.
// Each reading goes to every screen that shows bytes (SizesSetter).

// sizesMsg is a reading of the sizes source.
type sizesMsg struct{ sizes *cluster.Sizes }

// sizesClosedMsg: the sizes source closed.
type sizesClosedMsg struct{}

// waitForSizes is the one outstanding receive of the sizes source.
func waitForSizes(src clusterwatch.SizeSource) tea.Cmd {
	return func() tea.Msg {
		s, err := src.Next(context.Background())
		if err != nil {
			return sizesClosedMsg{}
		}
		return sizesMsg{s}
	}
}

// initialSizes are the sizes a session starts with: unknown, saying why.
func initialSizes(cfg Config) *cluster.Sizes {
	switch {
	case cfg.Sizes != nil:
		return cluster.UnknownSizes(time.Time{}, "not read yet")
	case cfg.SizesOff != "":
		return cluster.UnknownSizes(time.Time{}, cfg.SizesOff)
	}
	return cluster.UnknownSizes(time.Time{}, "not read by this session")
}

// applySizes hands a reading to the screens.
func (a *App) applySizes(s *cluster.Sizes) {
	if s == nil {
		return
	}
	if !s.Known() && a.sizes.Known() {
		// Keep the last known sizes, saying why they are not newer: a
		// broker restarting should not blank every column.
		s = a.sizes.Stale(s)
	}
	a.sizes = s
	for _, sc := range a.allScreens() {
		if ss, ok := sc.(SizesSetter); ok {
			ss.SetSizes(s)
		}
	}
}

// hurrySizes asks the sizes source for readings more often while a
// reassignment runs (its progress is measured by the new replicas'
// sizes), and calmly otherwise.
func (a *App) hurrySizes() {
	if a.cfg.Sizes == nil || a.snap == nil {
		return
	}
	moving := a.snap.Health().Reassigning > 0
	if moving != a.hurried {
		a.hurried = moving
		a.cfg.Sizes.Hurry(moving)
	}
}
