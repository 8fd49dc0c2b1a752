package ui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/ui/internal/cell"
	wz "github.com/ktopo/ktopo/ui/internal/wizard"
)

// Quitting while an operation is between two of its writes (a drain's
// leaders-first step) or runs with throttles only it would remove leaves
// something behind: the shell asks first, naming it and how to finish or
// undo it. Once the TUI has closed, whatever made it close (q answered
// yes, SIGTERM, SIGHUP, the terminal gone), Finish lets each operation
// finish the step it started and start no other, without the screen; the
// command line then prints what is left.

// leavers are the screens, on the stack or in the background, whose work
// quitting can leave half done.
func (a *App) leavers() []Leaver {
	var out []Leaver
	for _, s := range a.stack {
		if l, ok := s.(Leaver); ok {
			out = append(out, l)
		}
	}
	for _, t := range a.tasks {
		if l, ok := t.(Leaver); ok {
			out = append(out, l)
		}
	}
	return out
}

// Leftovers are what quitting now leaves behind, and how to finish or
// undo it (nil: nothing); final: as printed after the TUI closed.
func (a *App) Leftovers(final bool) []string {
	var out []string
	for _, l := range a.leavers() {
		out = append(out, l.Leaving(final)...)
	}
	return out
}

// quit quits, or first asks when quitting would leave something behind.
func (a *App) quit() tea.Cmd {
	if left := a.Leftovers(false); len(left) > 0 {
		a.quitAsk = left
		a.showHelp = false
		return nil
	}
	return tea.Quit
}

// quitKey answers the question.
func (a *App) quitKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &a.km.Global
	switch {
	case key.Matches(msg, g.QuitAnyway):
		a.quitAsk = nil
		return tea.Quit
	case key.Matches(msg, g.Stay):
		a.quitAsk = nil
	}
	return nil
}

// quitPopup is the question, composited over the screen.
func (a *App) quitPopup() string {
	st := &a.st
	width := min(max(a.w-8, 30), 76)
	b := []string{st.Bold.S("Quit now?"), ""}
	for _, l := range a.quitAsk {
		for _, w := range wz.Wrap(l, width, 0) {
			b = append(b, strings.TrimRight(w, " "))
		}
		b = append(b, "")
	}
	b = append(b, wz.Buttons(st, "Quit", "Stay", 0), "", st.Muted.S("y quit · n/esc stay"))
	for i := range b {
		b[i] = cell.Clip(b[i], width)
	}
	return st.Modal.Render(strings.Join(b, "\n"))
}

// Finish is the shell without the screen once the TUI has closed: it asks
// every operation that quitting would leave half done to finish the step
// it started and start no other, and feeds them what they wait for (the
// mirror's batches, their commands' results, their ticks) until none is
// still finishing, ctx ends or grace has passed. It returns what is left
// (Leftovers(true)).
func (a *App) Finish(ctx context.Context, grace time.Duration) []string {
	msgs := make(chan tea.Msg, 64)
	var run func(tea.Cmd)
	run = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			switch m := cmd().(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range m {
					run(c)
				}
			default:
				select {
				case msgs <- m:
				case <-ctx.Done():
				}
			}
		}()
	}
	for _, l := range a.leavers() {
		run(l.Stop())
	}
	var batches chan clusterwatch.Batch
	if a.cfg.Source != nil {
		// The source's batches, until it closes or Finish returns.
		batches = make(chan clusterwatch.Batch)
		pctx, stop := context.WithCancel(ctx)
		defer stop()
		go func() {
			defer close(batches)
			for {
				b, err := a.cfg.Source.Next(pctx)
				if err != nil {
					return
				}
				select {
				case batches <- b:
				case <-pctx.Done():
					return
				}
			}
		}()
	}
	end := time.After(grace)
	for a.stopping() {
		select {
		case b := <-a.handoff: // received as the TUI closed
			run(a.applyBatch(b))
		case b, ok := <-batches:
			if !ok {
				return a.Leftovers(true)
			}
			run(a.applyBatch(b))
		case m := <-msgs:
			if _, ok := m.(tea.QuitMsg); !ok {
				run(a.update(m))
			}
		case <-end:
			return a.Leftovers(true)
		case <-ctx.Done():
			return a.Leftovers(true)
		}
	}
	return a.Leftovers(true)
}

// Finishing reports an operation that Finish would wait for: one between
// two of its writes.
func (a *App) Finishing() bool { return a.stopping() }

// stopping reports an operation still finishing its step.
func (a *App) stopping() bool {
	for _, l := range a.leavers() {
		if l.Stopping() {
			return true
		}
	}
	return false
}
