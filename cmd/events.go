package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ktopo/ktopo/cluster"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/clusterwatch"
)

func newEventsCmd(cf *connFlags) *cobra.Command {
	var fromStart bool
	var output string
	c := &cobra.Command{
		Use:         "events",
		Annotations: modes(modesBoth),
		Short:       "Stream the cluster's changes as they happen: leaders, ISRs, brokers, controller, topics",
		Long: `events follows the cluster live and prints one line per change until
interrupted: controller elections, brokers joining and leaving, topics created
and deleted, leader moves, ISR shrinks and expansions, config changes,
reassignments, and connection changes.
  - ZooKeeper mode (--zookeeper): the cluster's ZooKeeper tree, through watches
    (no polling); each line names the znode and the zxid of its write.
  - KRaft (--bootstrap-server): the cluster is polled every --poll-interval:
    the same changes, found by comparing each poll with the last (a broker
    fenced is broker_gone, a new quorum leader controller_moved), without znode
    paths and zxids; changes between two polls show as their sum.

--from-start first prints the current state as events. --output json prints one
JSON object per line (and nothing else on standard output), flushed per event:
"time" is when ktopo saw the change, "zxid" and "mtime" those of the ZooKeeper
write (ZooKeeper mode only).

Kinds: broker_registered, broker_updated, broker_gone, controller_moved,
topic_created, topic_marked_for_deletion, topic_deleted, partitions_added,
partition_appeared, leader_moved, isr_shrank, isr_expanded, config_changed,
reassignment_started, reassignment_finished, znode_invalid, connection. One
state write that moves the leader and shrinks the ISR gives both a leader_moved
and an isr_shrank. Connection changes are one line each (connected,
disconnected, …), not one per attempt.`,
		Example: `  ktopo events --zookeeper zk1:2181/kafka
  ktopo events --output json | jq 'select(.kind == "leader_moved")'
  ktopo events --bootstrap-server kafka1:9092 --poll-interval 500ms`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return streamEvents(ctx, cf, c.OutOrStdout(), fromStart, output == "json")
		},
	}
	c.Flags().BoolVar(&fromStart, "from-start", false, "first print the current state as events")
	c.Flags().StringVar(&output, "output", "text", "output format: text or json (one object per line)")
	return c
}

func streamEvents(ctx context.Context, cf *connFlags, out io.Writer, fromStart, asJSON bool) error {
	ses, err := cf.follow(ctx)
	if err != nil {
		return err
	}
	defer ses.close()
	w := ses.watch
	// A KRaft cluster's changes come from polls: the znode paths, zxids
	// and broker epochs they would have in ZooKeeper are ktopo's own
	// bookkeeping (kafkawatch), not the cluster's, and are left out.
	kraft := w.Source.Backend() == cluster.ViaKafka
	bw := bufio.NewWriter(out)
	defer bw.Flush()
	loaded := false
	var printed clusterwatch.State // the last connection state printed
	anyPrinted := false
	for {
		b, changes, err := w.Next(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil // interrupted: a normal end
			}
			return err
		}
		now := time.Now()
		for _, st := range b.States {
			if anyPrinted && !newConnectionState(printed, st) {
				continue
			}
			printed, anyPrinted = st, true
			writeEvent(bw, now, asJSON, connectionEvent{st})
		}
		// The first load describes the state, not changes: shown only on request.
		if b.Reset && !loaded {
			loaded = true
			if !fromStart {
				changes = nil
			}
		}
		for _, ch := range changes {
			if kraft {
				ch.Path, ch.Zxid, ch.BrokerEpoch = "", 0, 0
			}
			writeEvent(bw, now, asJSON, ch)
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// newConnectionState reports whether st is worth a line after prev: while
// go-zookeeper tries server after server, its states alternate between
// connecting and disconnected once per attempt (dozens of lines in a
// failover); one line says the connection is lost (or the session
// expired) until it is back.
func newConnectionState(prev, st clusterwatch.State) bool {
	lost := func(s clusterwatch.State) bool {
		return s == clusterwatch.StateDisconnected || s == clusterwatch.StateConnecting
	}
	wasLost := lost(prev) || prev == clusterwatch.StateSessionLost
	return st != prev && (!lost(st) || !wasLost)
}

// connectionEvent is a connection state change, printed as kind "connection".
type connectionEvent struct{ state clusterwatch.State }

func (e connectionEvent) String() string { return "connection " + e.state.String() }

func (e connectionEvent) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"kind":"connection","state":%q}`, e.state.String()), nil
}

type event interface {
	fmt.Stringer
	MarshalJSON() ([]byte, error)
}

// writeEvent prints one event: "<RFC 3339 time>  <text>" or
// {"time":"<RFC 3339, ns>","kind":…}.
func writeEvent(w *bufio.Writer, at time.Time, asJSON bool, e event) {
	ts := at.UTC().Format(time.RFC3339Nano)
	defer w.Flush() // one event at a time reaches the reader
	if !asJSON {
		fmt.Fprintf(w, "%s  %s\n", at.UTC().Format("2006-01-02T15:04:05.000Z"), e.String())
		return
	}
	body, err := e.MarshalJSON()
	if err != nil || len(body) < 2 {
		return
	}
	fmt.Fprintf(w, `{"time":%q,%s`+"\n", ts, body[1:])
}
