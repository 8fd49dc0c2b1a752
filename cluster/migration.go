package cluster

import (
	"strconv"
	"time"
)

// A ZooKeeper to KRaft migration (Kafka 3.4 to 3.9) as ZooKeeper shows
// it: who owns the metadata and what a write through ZooKeeper would meet
// (migration_radar.go: which phase the migration is in). Everything here
// is read off a snapshot, or off the same znodes read fresh; see
// docs/migration.md for the phases and docs/spec/kafka-zk.md §1.10 for
// what Kafka writes.
//
// What Kafka 3.9 writes (KRaftMigrationDriver, ZkMigrationClient,
// KafkaZkClient):
//   - every KRaft controller started with zookeeper.metadata.migration.enable
//     creates /migration if absent, with every field -1;
//   - once every broker named in an assignment has registered with it as
//     a migrating ZooKeeper-mode broker, the active KRaft controller claims
//     the cluster in one multi: /controller_epoch set to epoch+1 (checked
//     against its version), the ZooKeeper controller's /controller
//     deleted and re-created persistent, naming the KRaft controller with
//     its kraftControllerEpoch; then /migration names it;
//   - it copies ZooKeeper's metadata into its log and sets /migration's
//     kraft_metadata_offset to the last offset copied (> 0 from then on:
//     Kafka's initialZkMigrationComplete);
//   - in dual write, every metadata batch it commits (a no-op record at
//     least every metadata.max.idle.interval.ms, 500 ms by default) is
//     written into ZooKeeper with /migration in the same multi;
//   - once the controllers restart without the migration flag (the
//     migration finalized), nothing writes ZooKeeper any more: /controller
//     and /migration stay as they were.

// ZooKeeperWriteInstead is what to use instead of a write through
// ZooKeeper once a KRaft controller owns the metadata.
const ZooKeeperWriteInstead = "use Kafka's tools with --bootstrap-server (kafka-topics.sh, kafka-configs.sh, " +
	"kafka-reassign-partitions.sh, kafka-leader-election.sh), or ktopo with --bootstrap-server"

// OwnerFacts is what ZooKeeper shows of who owns a cluster's metadata:
// /controller, whether the broker it names is registered, and /migration.
// A write guard reads them fresh; Snapshot.OwnerFacts takes them from the
// model.
type OwnerFacts struct {
	ControllerPresent bool
	Controller        ControllerInfo
	// ControllerErr: /controller could not be decoded.
	ControllerErr error
	// ControllerPersistent: /controller belongs to no session (a ZooKeeper
	// controller's is ephemeral).
	ControllerPersistent bool
	// ControllerRegistered: /brokers/ids/<the broker id /controller names>
	// exists.
	ControllerRegistered bool
	// ControllerSince is /controller's ctime (ms).
	ControllerSince int64
	// ControllerEpoch is /controller_epoch's value (0 when absent).
	ControllerEpoch int
	Migration       MigrationNode
}

// OwnerFacts returns the snapshot's facts of who owns the metadata.
func (s *Snapshot) OwnerFacts() OwnerFacts {
	c := s.controller
	present := c.Present
	return OwnerFacts{
		ControllerPresent:    present,
		Controller:           c.Info,
		ControllerErr:        c.Err,
		ControllerPersistent: c.Persistent,
		ControllerRegistered: present && s.IsLive(c.Info.BrokerID),
		ControllerSince:      c.Since,
		ControllerEpoch:      c.Epoch,
		Migration:            s.migration,
	}
}

// owner is who owns the metadata: a KRaft controller (kraft), or not.
type owner struct {
	kraft bool
	id    int   // the KRaft controller's node id, or the ZooKeeper controller's broker id (-1: none)
	epoch int   // the KRaft controller's epoch (-1: unknown)
	since int64 // ms, 0: unknown
	// how: how ZooKeeper shows a KRaft owner.
	how string
}

// metadataOwner decides who owns the metadata. A KRaft controller does
// when /controller holds a kraftControllerEpoch ≥ 0, or is persistent and
// names a broker that is not registered (a KRaft controller of a version
// that wrote no epoch), or is absent while /migration names a KRaft
// controller (a revert deleted /controller and no broker was elected yet,
// or its claim is being retried).
func metadataOwner(f OwnerFacts) owner {
	c := f.Controller
	mig := f.Migration
	switch {
	case f.ControllerPresent && f.ControllerErr == nil && c.KRaftControllerEpoch >= 0:
		return owner{kraft: true, id: c.BrokerID, epoch: c.KRaftControllerEpoch, since: f.ControllerSince,
			how: "/controller names it with kraftControllerEpoch " + strconv.Itoa(c.KRaftControllerEpoch)}
	case f.ControllerPresent && f.ControllerErr == nil && f.ControllerPersistent && !f.ControllerRegistered:
		return owner{kraft: true, id: c.BrokerID, epoch: -1, since: f.ControllerSince,
			how: "/controller is persistent and names node " + strconv.Itoa(c.BrokerID) + ", which is not a registered broker"}
	case !f.ControllerPresent && mig.Present && mig.Err == nil && mig.State.KRaftControllerID >= 0:
		return owner{kraft: true, id: mig.State.KRaftControllerID, epoch: mig.State.KRaftControllerEpoch, since: mig.Mtime,
			how: "no controller holds /controller and /migration names it"}
	case f.ControllerPresent && f.ControllerErr == nil:
		return owner{id: c.BrokerID, epoch: -1}
	}
	return owner{id: -1, epoch: -1}
}

// WriteLevel is what a write through ZooKeeper meets.
type WriteLevel uint8

// Write levels.
const (
	// WriteOK: no migration in sight.
	WriteOK WriteLevel = iota
	// WriteWarn: a migration is prepared (or was tried) while a ZooKeeper
	// controller still holds /controller: the write works now, but a KRaft
	// controller may take over before it is carried out. Ask first.
	WriteWarn
	// WriteRefused: a KRaft controller owns the metadata (or who does
	// cannot be told): a write through ZooKeeper would be lost or undone.
	WriteRefused
)

// String is "ok", "warn" or "refused".
func (l WriteLevel) String() string {
	switch l {
	case WriteWarn:
		return "warn"
	case WriteRefused:
		return "refused"
	}
	return "ok"
}

// WriteVerdict is what a write through ZooKeeper would meet, and why.
type WriteVerdict struct {
	Level WriteLevel
	// Reason says why a write is refused or warned about ("" when OK).
	Reason string
	// Instead says what to use instead ("" when OK).
	Instead string
	// KRaftController and KRaftEpoch name the KRaft controller that owns
	// the metadata or is named by /migration (-1 when none or unknown);
	// Since is since when it holds /controller (ms, 0 when unknown).
	KRaftController, KRaftEpoch int
	Since                       int64
	// ZKController is the ZooKeeper controller holding /controller (-1).
	ZKController int
	// MigrationCzxid identifies the /migration a warning is about (0 when
	// none): a confirmation of the warning holds for that one only.
	MigrationCzxid int64
}

// Message is the verdict as one sentence: the reason, then what to do
// instead ("" when OK).
func (v WriteVerdict) Message() string {
	switch {
	case v.Level == WriteOK:
		return ""
	case v.Instead == "":
		return v.Reason
	}
	return v.Reason + ": " + v.Instead
}

// FormatSince renders a ZooKeeper time (ms) for messages: UTC, seconds.
func FormatSince(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05 UTC")
}

// JudgeZooKeeperWrite decides what a write through ZooKeeper would meet,
// given who owns the metadata. Refused: a KRaft controller owns it (see
// metadataOwner), or /controller cannot be read as JSON while /migration
// exists. Warn: /migration exists while a ZooKeeper controller holds
// /controller (or none does). OK otherwise.
func JudgeZooKeeperWrite(f OwnerFacts) WriteVerdict {
	o := metadataOwner(f)
	mig := f.Migration
	v := WriteVerdict{KRaftController: -1, KRaftEpoch: -1, ZKController: -1}
	if o.kraft {
		v.Level, v.KRaftController, v.KRaftEpoch, v.Since = WriteRefused, o.id, o.epoch, o.since
		who := "KRaft controller " + strconv.Itoa(o.id)
		if o.epoch >= 0 {
			who += " (epoch " + strconv.Itoa(o.epoch) + ")"
		}
		v.Reason = who + " owns this cluster's metadata"
		if o.since > 0 {
			v.Reason += " since " + FormatSince(o.since)
		}
		v.Reason += " (" + o.how + "): a write through ZooKeeper would be lost or undone"
		v.Instead = ZooKeeperWriteInstead
		return v
	}
	if f.ControllerPresent && f.ControllerErr == nil {
		v.ZKController = o.id
	}
	if mig.Present {
		v.MigrationCzxid = mig.Czxid
		if mig.Err == nil && mig.State.KRaftControllerID >= 0 {
			v.KRaftController, v.KRaftEpoch = mig.State.KRaftControllerID, mig.State.KRaftControllerEpoch
		}
	}
	switch {
	case f.ControllerPresent && f.ControllerErr != nil && mig.Present:
		v.Level = WriteRefused
		v.Reason = "a ZooKeeper to KRaft migration is under way (/migration exists) and /controller cannot be read (" +
			f.ControllerErr.Error() + "): who owns the metadata cannot be told"
		v.Instead = ZooKeeperWriteInstead
	case !mig.Present:
		// No migration: a ZooKeeper controller (or, between two, none) owns.
	case mig.Err != nil:
		v.Level = WriteWarn
		v.Reason = "/migration exists (" + mig.Err.Error() + ") while " + zkHolder(v.ZKController) +
			": a KRaft controller with the migration enabled may take the cluster over before this write is carried out, and it would be lost"
		v.Instead = "confirm only if no KRaft controller runs with zookeeper.metadata.migration.enable=true"
	case mig.State.KRaftControllerID < 0 && mig.State.KRaftMetadataOffset <= 0:
		v.Level = WriteWarn
		v.Reason = "a ZooKeeper to KRaft migration is being prepared: KRaft controllers created /migration" +
			sinceText(mig.Ctime) + " and wait for the brokers, while " + zkHolder(v.ZKController) +
			"; once every broker has restarted with the migration enabled, the KRaft controller takes over, and a write not carried out by then is lost"
		v.Instead = "finish the write before the last broker restarts, or wait and use --bootstrap-server"
	default:
		v.Level = WriteWarn
		v.Reason = "/migration is left from an earlier migration attempt (KRaft controller " +
			strconv.Itoa(mig.State.KRaftControllerID) + ", metadata offset " + strconv.FormatInt(mig.State.KRaftMetadataOffset, 10) +
			", last written " + FormatSince(mig.Mtime) + ") while " + zkHolder(v.ZKController) +
			": if KRaft controllers with the migration enabled run, they may take the cluster over at any time"
		v.Instead = "confirm only if the migration was reverted and its KRaft controllers are gone"
	}
	return v
}

func sinceText(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return " at " + FormatSince(ms)
}

func zkHolder(id int) string {
	if id < 0 {
		return "no controller holds /controller"
	}
	return "ZooKeeper controller " + strconv.Itoa(id) + " still holds /controller"
}

// KRaftController returns the KRaft controller that owns the metadata as
// the snapshot shows it (ok false when none does): its node id and epoch
// (-1 when /controller does not say).
func (s *Snapshot) KRaftController() (id, epoch int, ok bool) {
	o := metadataOwner(s.OwnerFacts())
	return o.id, o.epoch, o.kraft
}
