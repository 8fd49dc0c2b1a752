package ui

import (
	"log"
	"slices"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
)

// debugStats collects View durations when KTOPO_DEBUG is set.
type debugStats struct {
	views []time.Duration
}

type debugTickMsg struct{}

func debugTick() tea.Cmd {
	return tea.Tick(5*time.Second, func(time.Time) tea.Msg { return debugTickMsg{} })
}

func (d *debugStats) report(l *log.Logger) {
	if l == nil || len(d.views) == 0 {
		d.views = d.views[:0]
		return
	}
	v := slices.Clone(d.views)
	slices.Sort(v)
	l.Printf("view: %d frames in 5s, p50 %v, p99 %v, max %v", len(v), v[len(v)/2], v[len(v)*99/100], v[len(v)-1])
	d.views = d.views[:0]
}

func itoa(n int) string { return strconv.Itoa(n) }
