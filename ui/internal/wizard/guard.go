package wizard

import (
	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// Ask opens the confirmation of a write that the ZooKeeper-to-KRaft
// migration guard judged v on the newest snapshot
// (clusterops.VerdictOf the writer: a write over the Kafka protocol is
// always let through): a refused write does not open it, and
// refused says why and what to use instead, for the wizard's note; a write
// it warns about (a migration is being prepared) shows the warning first
// in the popup, and Writer then lets that write through once confirmed.
// Write judges again, on a fresh read, right before its multi.
func (f *Frame) Ask(word string, v cluster.WriteVerdict) (cmd tea.Cmd, refused string) {
	f.guard = v
	f.Confirm.Guard = ""
	switch v.Level {
	case cluster.WriteRefused:
		return nil, "Not written: " + v.Message()
	case cluster.WriteWarn:
		f.Confirm.Guard = v.Message()
	}
	return f.Confirm.Ask(word), ""
}

// Writer is w as the confirmed popup lets it write: with the migration
// guard's warning, which the operator read in the popup, confirmed
// (Writer.Confirm: through ZooKeeper it holds for that /migration only).
func (f *Frame) Writer(w clusterops.Writer) clusterops.Writer {
	if w == nil || f.guard.Level != cluster.WriteWarn {
		return w
	}
	return clusterops.ConfirmOf(w, f.guard)
}
