package cmd

// --verify and --cancel of ktopo reassign: the reassignments' end, their
// throttles' removal, and their cancellation.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/text"
)

func runVerify(c *cobra.Command, cf *connFlags, f *reassignFlags) error {
	rs, err := readReassignmentFile(f.reassignmentFile)
	if err != nil {
		return err
	}
	return withCluster(c, cf, func(ctx context.Context, ses *session) error {
		s, out := ses.snap, c.OutOrStdout()
		states, _ := clusterops.VerifyReassignment(s, rs)
		var b strings.Builder
		b.WriteString("Status of partition reassignment:\n")
		for _, st := range states {
			b.WriteString(st.String() + "\n")
		}
		for _, r := range rs {
			if r.MovesLogDirs() {
				b.WriteString("Note: log directory moves (log_dirs) are not verified: ZooKeeper does not show them.\n")
				break
			}
		}
		fmt.Fprint(out, b.String())
		// ktopo's addition, on standard error so that standard output
		// stays Kafka's: the copies' progress by bytes, and the time left,
		// measured before the throttles (whose lists tell the finished
		// partitions' copies) go.
		var progress strings.Builder
		if moves, pending := runningMoves(s, rs); len(moves)+len(pending) > 0 {
			if err := writeProgress(&progress, s, ses.readSizes(ctx), moves, pending); err != nil {
				return err
			}
		}
		defer fmt.Fprint(c.ErrOrStderr(), progress.String())
		if f.preserveThrottles {
			return nil
		}
		w, err := ses.Writer()
		if err != nil {
			return err
		}
		return removeThrottles(c, out, cf, s, w, rs)
	})
}

// removeThrottles is what --verify does with the throttles, and --execute
// once it has followed the reassignment to its end: while a reassignment
// runs in the cluster it names those left; else it clears them (Kafka's
// clearAllThrottles), in one multi (Kafka: one IncrementalAlterConfigs).
func removeThrottles(c *cobra.Command, out io.Writer, cf *connFlags, s *cluster.Snapshot, w clusterops.Writer, rs []cluster.Reassignment) error {
	ctx := c.Context()
	clear, left, writes, err := w.RemoveThrottles(ctx, s, rs, clusterops.Describe)
	if err != nil {
		return err
	}
	if clear == nil {
		if len(left) > 0 {
			fmt.Fprintf(out, "Throttles remain on %s: --verify removes them once no reassignment runs in the cluster.\n", strings.Join(left, ", "))
		}
		return nil
	}
	if w.Backend() == cluster.ViaKafka {
		// Kafka's --bootstrap-server --verify: a blank line, then its two.
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, clear.BrokersMessage())
	fmt.Fprintln(out, clear.TopicsMessage())
	if len(writes.Steps) == 0 {
		return nil // nothing had a throttle
	}
	if len(clear.Changes) == 0 {
		// Through ZooKeeper nothing is written then. Kafka's tool deletes
		// the throttle configs whether set or not (a poll may not show a
		// throttle just set: clear.Blind), unless the session may not
		// write.
		if t, err := cf.target(); !clear.Blind || err != nil || t.readOnly {
			return nil
		}
	}
	if err := cf.writable("remove the throttles", "--preserve-throttles verifies without removing them"); err != nil {
		return err
	}
	cw, err := cf.confirmWrite(c, w, "remove the throttles")
	if err != nil {
		return err
	}
	_, _, _, err = cw.RemoveThrottles(ctx, s, rs, clusterops.Apply)
	return err
}

// runCancel is --cancel on a KRaft cluster, as Kafka's tool does it: the
// file's partitions being reassigned go back to the replicas they had
// (AlterPartitionReassignments with none), ktopo follows them until the
// brokers show it, then (unless --preserve-throttles) the throttles are
// removed as --verify removes them.
func runCancel(c *cobra.Command, cf *connFlags, f *reassignFlags) error {
	out := c.OutOrStdout()
	// As Kafka's tool checks its options: --cancel with --zookeeper is
	// refused before anything is read (the writer, not a Canceller, would
	// refuse it too).
	if t, _ := cf.target(); !t.kraft {
		return clusterops.ErrCancelNeedsKafka
	}
	if !f.dryRun {
		if err := cf.writable("cancel a reassignment", "--dry-run checks it and shows what would be sent"); err != nil {
			return err
		}
	}
	rs, err := readReassignmentFile(f.reassignmentFile)
	if err != nil {
		return err
	}
	ctx := c.Context()
	ws, err := cf.openLive(c)
	if err != nil {
		return err
	}
	defer ws.close()
	canceller, ok := ws.writer.(clusterops.Canceller)
	if !ok {
		return clusterops.ErrCancelNeedsKafka
	}
	var parts []cluster.TopicPartition
	var back strings.Builder
	for _, l := range clusterops.ListReassignments(ws.snap) {
		if slices.ContainsFunc(rs, func(r cluster.Reassignment) bool { return r.TopicPartition == l.TopicPartition }) {
			parts = append(parts, l.TopicPartition)
			fmt.Fprintf(&back, "  %s: back to %s (it was moving to %s)\n", l.TopicPartition, text.Ints(l.RevertsTo()), text.Ints(l.Target()))
		}
	}
	if len(parts) == 0 {
		fmt.Fprintln(out, "None of the file's partitions is being reassigned: nothing to cancel.")
	} else {
		// What the controller will leave: the replicas less those being
		// added, in their current order (after --additional replaced a
		// reassignment, not always the order, nor the preferred leader,
		// the partition had before).
		fmt.Fprintf(out, "Cancelling %s:\n%s", text.Count(len(parts), "reassignment"), back.String())
		mode := clusterops.Apply
		if f.dryRun {
			mode = clusterops.Describe
		}
		writes, err := canceller.CancelReassignment(ctx, parts, mode)
		if err != nil {
			return err
		}
		if f.dryRun {
			fmt.Fprintf(out, "Dry run: would send, %s:\n", clusterops.WordsFor(writes).HowSent(len(writes.Steps)))
			for _, line := range writes.Lines() {
				fmt.Fprintln(out, "  "+line)
			}
			return nil
		}
		fmt.Fprintf(out, "Successfully cancelled partition reassignment%s for: %s\n", text.Plural(len(parts), "", "s"), cluster.JoinPartitions(parts, ","))
		ictx, stop := interruptible(ctx)
		err = waitCancelled(ictx, ws.watch, parts, f.timeout)
		stop()
		if err != nil {
			return interrupted(err, c.ErrOrStderr(), "the reassignments are cancelled; the brokers show it within a poll (ktopo reassign --list shows what runs).")
		}
	}
	if f.preserveThrottles || f.dryRun {
		return nil
	}
	return removeThrottles(c, out, cf, ws.watch.Model.Snapshot(), ws.writer, rs)
}

// waitCancelled follows the live model until no partition of parts is
// being reassigned (timeout 0: as long as it takes).
func waitCancelled(ctx context.Context, w *clusterwatch.Watch, parts []cluster.TopicPartition, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	err := followModel(ctx, w, io.Discard, func(s *cluster.Snapshot, _ bool) bool {
		for _, tp := range parts {
			if p := partitionOf(s, tp); p != nil && p.Reassigning() {
				return false
			}
		}
		return true
	}, func() string { return "" })
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the brokers still show a reassignment of the cancelled partitions after %s (ktopo reassign --list)", timeout)
	}
	return err
}
