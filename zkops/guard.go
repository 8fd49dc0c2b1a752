package zkops

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// The migration guard: no write of ktopo reaches ZooKeeper once a KRaft
// controller owns the cluster's metadata (a ZooKeeper to KRaft migration),
// and none while one is being prepared unless the operator confirmed it.
//
// writeMulti judges right before its multi, on a fresh read of /controller,
// /controller_epoch, /migration (and, for a persistent /controller, the
// registration of the broker it names): cluster.JudgeZooKeeperWrite. The
// multi then carries a check of /controller_epoch's version, so that a
// takeover between that read and the multi fails the multi instead of
// racing it:
//   - /controller_epoch is set, checked against its version, in the same
//     multi as every controller's claim: a ZooKeeper broker's election,
//     a KRaft controller's takeover, a new KRaft leader's re-claim. Its
//     version therefore changes with every change of controller, and the
//     znode is never deleted or re-created (Kafka creates it once).
//   - /controller's own version would not do: a ZooKeeper controller's is
//     ephemeral, and the KRaft takeover deletes it and creates it again,
//     so it is at version 0 before and after (Kafka's own config guard in
//     setOrCreateEntityConfigs checks /controller's version and so passes
//     across a takeover).
//   - /migration's version adds nothing: it only changes once a KRaft
//     controller has claimed /controller_epoch, and its creation (the
//     start of the preparations) cannot be checked in a multi (a check of
//     a znode that does not exist fails).
// When /controller_epoch does not exist (no controller was ever elected)
// the multi carries no check: a takeover needs it (Kafka's KRaft
// controller refuses to register without a ZooKeeper controller epoch).
// A failed check is judged again on a new read: a KRaft owner refuses the
// write (nothing was written); a new ZooKeeper controller lets it go again.

// guardRetries bounds how many times writeMulti sends its multi again after
// the controller changed under it.
const guardRetries = 3

// MigrationError is a write that writeMulti refused because of a ZooKeeper to
// KRaft migration. Nothing was written.
type MigrationError struct {
	// Verdict is what the fresh read right before the write found.
	Verdict cluster.WriteVerdict
	// Unconfirmed: the verdict is a warning that was not confirmed (or
	// confirmed about another /migration than the one there now).
	Unconfirmed bool
	// Raced: the controller changed between that read and the multi,
	// which failed on its check; Verdict is the read after.
	Raced bool
}

// Error says why, and what to use instead.
func (e *MigrationError) Error() string {
	v := e.Verdict
	msg := "write through ZooKeeper refused: " + v.Reason + ": " + v.Instead
	if e.Unconfirmed {
		msg = "write through ZooKeeper not confirmed: " + v.Reason + " (" + v.Instead + "); nothing was written"
	}
	if e.Raced {
		msg = "the controller changed while writing: " + msg
	}
	return msg
}

// confirmedZK is a session whose writes may go ahead under the warning the
// operator confirmed (confirm).
type confirmedZK struct {
	ZK
	verdict cluster.WriteVerdict
}

// confirm returns z with v confirmed: writeMulti lets its writes go ahead when
// the fresh read before each finds the warning v was about (the same
// /migration); anything else is judged as usual (a KRaft owner refuses,
// another warning asks again). Pass the verdict the operator saw and said
// yes to.
func confirm(z ZK, v cluster.WriteVerdict) ZK {
	if c, ok := z.(*confirmedZK); ok {
		z = c.ZK
	}
	return &confirmedZK{ZK: z, verdict: v}
}

// base returns the session under a confirm, for the optional interfaces
// (aclReader, sessionWaiter …) a caller's session may have.
func base(z ZK) ZK {
	if c, ok := z.(*confirmedZK); ok {
		return c.ZK
	}
	return z
}

// admit decides whether a write may go on under verdict v, given what the
// operator confirmed (nil: nothing).
func admit(v cluster.WriteVerdict, confirmed *cluster.WriteVerdict) error {
	switch v.Level {
	case cluster.WriteRefused:
		return &MigrationError{Verdict: v}
	case cluster.WriteWarn:
		if confirmed != nil && confirmed.Level == cluster.WriteWarn && confirmed.MigrationCzxid == v.MigrationCzxid {
			return nil
		}
		return &MigrationError{Verdict: v, Unconfirmed: true}
	}
	return nil
}

// guardRead is the fresh read writeMulti judges on.
type guardRead struct {
	facts cluster.OwnerFacts
	// epochVersion is /controller_epoch's version (epochExists false when
	// it does not exist).
	epochVersion int32
	epochExists  bool
}

// readGuard reads who owns the metadata: /controller, /controller_epoch,
// /migration and, for a persistent /controller, /brokers/ids/<its id>.
func readGuard(z ZK) (guardRead, error) {
	var g guardRead
	f := &g.facts
	data, st, err := z.Get(cluster.ControllerPath)
	switch {
	case err == nil:
		f.ControllerPresent = true
		f.Controller, f.ControllerErr = cluster.DecodeController(data)
		f.ControllerPersistent = st.EphemeralOwner == 0
		f.ControllerSince = st.Ctime
	case !errors.Is(err, zk.ErrNoNode):
		return g, fmt.Errorf("read %s: %w", cluster.ControllerPath, err)
	}
	data, st, err = z.Get(cluster.ControllerEpochPath)
	switch {
	case err == nil:
		g.epochVersion, g.epochExists = st.Version, true
		f.ControllerEpoch, _ = cluster.DecodeControllerEpoch(data)
	case !errors.Is(err, zk.ErrNoNode):
		return g, fmt.Errorf("read %s: %w", cluster.ControllerEpochPath, err)
	}
	data, st, err = z.Get(cluster.MigrationPath)
	switch {
	case err == nil:
		f.Migration = cluster.MigrationNode{Present: true, Ctime: st.Ctime, Mtime: st.Mtime, Czxid: st.Czxid, Mzxid: st.Mzxid, Version: st.Version}
		f.Migration.State, f.Migration.Err = cluster.DecodeMigration(data)
	case !errors.Is(err, zk.ErrNoNode):
		return g, fmt.Errorf("read %s: %w", cluster.MigrationPath, err)
	}
	if f.ControllerPresent && f.ControllerErr == nil && f.ControllerPersistent && f.Controller.BrokerID >= 0 {
		p := cluster.BrokerIDPath(f.Controller.BrokerID)
		ok, _, err := z.Exists(p)
		if err != nil {
			return g, fmt.Errorf("read %s: %w", p, err)
		}
		f.ControllerRegistered = ok
	} else {
		f.ControllerRegistered = f.ControllerPresent
	}
	return g, nil
}

// checkWrite reads, fresh, who owns the cluster's metadata and returns
// what a write through ZooKeeper would meet now: the verdict a command
// shows (and asks about, for a warning) before it writes. writeMulti judges
// again right before its multi.
func checkWrite(z ZK) (cluster.WriteVerdict, error) {
	g, err := readGuard(base(z))
	if err != nil {
		return cluster.WriteVerdict{}, fmt.Errorf("check who owns the metadata: %w", err)
	}
	return cluster.JudgeZooKeeperWrite(g.facts), nil
}

// guardWrite sends ops as one multi after judging a fresh read, with the
// check of /controller_epoch's version appended (see the top of this
// file); the results returned are those of ops.
func guardWrite(z ZK, confirmed *cluster.WriteVerdict, ops []any) ([]zk.MultiResponse, error) {
	raced := false
	for attempt := 0; ; attempt++ {
		g, err := readGuard(z)
		if err != nil {
			return nil, &unsentError{fmt.Errorf("check who owns the metadata before writing: %w", err)}
		}
		if err := admit(cluster.JudgeZooKeeperWrite(g.facts), confirmed); err != nil {
			var me *MigrationError
			if errors.As(err, &me) {
				me.Raced = raced
			}
			return nil, err
		}
		all := ops
		if g.epochExists {
			all = append(slices.Clip(ops), &zk.CheckVersionRequest{Path: cluster.ControllerEpochPath, Version: g.epochVersion})
		}
		res, err := z.Multi(all...)
		if err != nil && len(all) > len(ops) && len(res) == len(all) && guardCheckFailed(res[len(ops)].Error) {
			if attempt+1 < guardRetries {
				raced = true
				continue
			}
			return nil, &unsentError{fmt.Errorf("the controller changed %s times while writing (%s's version kept moving): nothing was written; try again",
				strconv.Itoa(guardRetries), cluster.ControllerEpochPath)}
		}
		if len(res) > len(ops) {
			res = res[:len(ops)]
		}
		return res, err
	}
}

// guardCheckFailed reports that the multi failed on the guard's check.
func guardCheckFailed(err error) bool {
	return errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode)
}

// WithoutGuardCheck returns the ops of a multi writeMulti sent without the
// check of /controller_epoch it appended: the operation's own ops, as a
// preview showed them (for tests that record multis).
func WithoutGuardCheck(ops []any) []any {
	if n := len(ops); n > 0 {
		if c, ok := ops[n-1].(*zk.CheckVersionRequest); ok && c.Path == cluster.ControllerEpochPath {
			return ops[:n-1]
		}
	}
	return ops
}
