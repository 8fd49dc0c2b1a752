package cluster

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/internal/text"
)

// The migration radar: which phase a ZooKeeper to KRaft migration is in,
// the brokers by mode, how far ZooKeeper lags KRaft, and the hazards,
// read off a snapshot (migration.go has who owns the metadata).

// SyncStalledAfter is how long /migration's offset may stand still in
// dual write before the sync is reported stopped: the KRaft controller
// commits a no-op record at least every metadata.max.idle.interval.ms
// (500 ms by default) and writes every batch it commits into ZooKeeper
// with /migration's new offset.
const SyncStalledAfter = 5 * time.Second

// MigrationPhase is where a ZooKeeper to KRaft migration stands, as
// ZooKeeper shows it.
type MigrationPhase uint8

// Migration phases, in the order a migration goes through them.
const (
	// PhaseNone: no /migration, a ZooKeeper controller (or none).
	PhaseNone MigrationPhase = iota
	// PhaseWaiting: KRaft controllers with the migration enabled created
	// /migration (every field -1) and wait until every broker has
	// registered with them; a ZooKeeper controller still holds /controller.
	PhaseWaiting
	// PhaseReverted: a ZooKeeper controller holds /controller while
	// /migration shows an earlier attempt got further (a KRaft controller
	// or a metadata offset): reverted to ZooKeeper without deleting it.
	PhaseReverted
	// PhaseCopying: a KRaft controller took /controller over and copies
	// ZooKeeper's metadata into its log (/migration's offset not yet > 0).
	PhaseCopying
	// PhaseDualWrite: the metadata was copied; the KRaft controller owns
	// it and writes every change into ZooKeeper too, while brokers still
	// run in ZooKeeper mode (registered under /brokers/ids).
	PhaseDualWrite
	// PhaseKRaftBrokers: every broker runs in KRaft mode (none registered
	// in ZooKeeper); the KRaft controller still writes into ZooKeeper.
	PhaseKRaftBrokers
	// PhaseFinalized: no ZooKeeper-mode broker left and /migration no
	// longer written: the controllers left migration mode (finalized), or
	// their sync into ZooKeeper is frozen (ZooKeeper alone cannot tell).
	PhaseFinalized
)

var phaseNames = [...]struct{ code, title string }{
	PhaseNone:         {"none", "no migration"},
	PhaseWaiting:      {"waiting-for-brokers", "KRaft controllers ready, waiting for brokers"},
	PhaseReverted:     {"reverted", "reverted to ZooKeeper, /migration left"},
	PhaseCopying:      {"copying-metadata", "KRaft controller took over, copying metadata"},
	PhaseDualWrite:    {"dual-write", "metadata copied, dual write"},
	PhaseKRaftBrokers: {"brokers-on-kraft", "brokers on KRaft, dual write"},
	PhaseFinalized:    {"finalized-or-frozen", "finalized, or the sync is frozen"},
}

// String is the phase's code for JSON ("dual-write").
func (p MigrationPhase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p].code
	}
	return "unknown"
}

// Title is the phase for people ("metadata copied, dual write").
func (p MigrationPhase) Title() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p].title
	}
	return "unknown"
}

// KRaftOwned reports whether a KRaft controller owns the metadata in
// this phase.
func (p MigrationPhase) KRaftOwned() bool { return p >= PhaseCopying }

// KRaftQuorum is the KRaft metadata quorum as its leader describes it
// (DescribeQuorum through the Kafka protocol): what tells how far
// ZooKeeper lags KRaft.
type KRaftQuorum struct {
	LeaderID, LeaderEpoch int
	// HighWatermark is the quorum's high watermark: the offset after the
	// last committed record.
	HighWatermark int64
	// Voters are the controllers' node ids, ascending.
	Voters []int
	// Brokers are the brokers the cluster's metadata lists (Metadata:
	// registered with the KRaft controller and not fenced, ZooKeeper-mode
	// ones included), ascending; BrokersKnown false when not asked.
	Brokers      []int
	BrokersKnown bool
}

// SyncWatch follows /migration across snapshots, by the caller's clock:
// when its metadata offset last moved. Feed it every snapshot (or just
// its MigrationNode) in order; the zero value is ready.
type SyncWatch struct {
	czxid   int64
	offset  int64
	epoch   int
	ctrlEp  int // /migration's kraft_controller_epoch
	movedAt time.Time
	seen    bool
	// gap is the last stall of the sync (SyncStalledAfter or longer) seen
	// to end, until a new KRaft controller epoch (a full sync) covers it.
	gap *SyncGap
}

// SyncGap is a stall of the KRaft controller's sync into ZooKeeper that
// ended: Kafka 3.9.2 then went on writing new changes, but not what
// changed during the stall (a topic created meanwhile stayed missing from
// ZooKeeper) until the controller's next full sync, when a controller
// becomes active (a restart).
type SyncGap struct {
	From, To             time.Time
	OffsetFrom, OffsetTo int64
}

// Observe records /migration as seen at now. The first sighting of a
// /migration takes its last write time (ZooKeeper's clock, no later than
// now) as when its offset last moved; later sightings, the moment the
// offset is seen to change.
func (w *SyncWatch) Observe(n MigrationNode, now time.Time) {
	if !n.Present {
		*w = SyncWatch{}
		return
	}
	st := n.State
	switch {
	case !w.seen || w.czxid != n.Czxid:
		w.movedAt = time.UnixMilli(n.Mtime)
		if n.Mtime <= 0 || w.movedAt.After(now) {
			w.movedAt = now
		}
		w.gap = nil
	case st.KRaftControllerEpoch != w.ctrlEp:
		// A new active controller fully syncs ZooKeeper first.
		w.movedAt, w.gap = now, nil
	case st.KRaftMetadataOffset != w.offset || st.KRaftMetadataEpoch != w.epoch:
		if now.Sub(w.movedAt) >= SyncStalledAfter && w.offset > 0 {
			w.gap = &SyncGap{From: w.movedAt, To: now, OffsetFrom: w.offset, OffsetTo: st.KRaftMetadataOffset}
		}
		w.movedAt = now
	}
	w.seen, w.czxid, w.offset, w.epoch, w.ctrlEp = true, n.Czxid, st.KRaftMetadataOffset, st.KRaftMetadataEpoch, st.KRaftControllerEpoch
}

// Gap returns the last stall of the sync seen to end, if no new KRaft
// controller has fully synced ZooKeeper since.
func (w *SyncWatch) Gap() (SyncGap, bool) {
	if w.gap == nil {
		return SyncGap{}, false
	}
	return *w.gap, true
}

// Age is how long the offset has stood still at now (false before any
// /migration was observed).
func (w *SyncWatch) Age(now time.Time) (time.Duration, bool) {
	if !w.seen {
		return 0, false
	}
	return max(0, now.Sub(w.movedAt)), true
}

// MigrationHazard is something an operator must know about a migration.
type MigrationHazard struct {
	// Code is stable, for JSON and tests ("sync-stopped").
	Code string
	Text string
}

// Hazard codes.
const (
	HazardUnregistered     = "unregistered-replicas"
	HazardStaleMigration   = "stale-migration"
	HazardNoTopicID        = "no-topic-id"
	HazardSyncStopped      = "sync-stopped"
	HazardAdminRequests    = "admin-requests"
	HazardNewPartitions    = "partitions-without-state"
	HazardNoController     = "no-controller"
	HazardMigrationMissing = "migration-missing"
	HazardUnreadableZnode  = "unreadable-znode"
	HazardPendingDeletions = "pending-deletions"
	HazardSyncGap          = "sync-gap"
)

// MigrationStatus is a migration's radar: its phase, the controllers, how
// far ZooKeeper lags KRaft, the brokers by mode, the hazards, and what a
// write through ZooKeeper would meet.
type MigrationStatus struct {
	Phase   MigrationPhase
	Verdict WriteVerdict
	// ZKController is the ZooKeeper controller holding /controller (-1).
	ZKController int
	// KRaftController and KRaftEpoch: the KRaft controller owning the
	// metadata, else the one /migration names (-1 when none).
	KRaftController, KRaftEpoch int
	// ControllerEpoch is /controller_epoch (the KRaft takeover bumps it).
	ControllerEpoch int
	// Migration is /migration.
	Migration MigrationNode
	// ZKBrokers are the brokers registered in ZooKeeper (ZooKeeper mode).
	ZKBrokers []int
	// KRaftBrokers, while a KRaft controller owns the metadata: brokers
	// not registered in ZooKeeper that the cluster's metadata lists (when
	// the quorum was asked), else that lead a partition or are in an ISR
	// as the KRaft controller last wrote them (KRaft keeps fenced brokers
	// out of both): running in KRaft mode. A broker restarted in KRaft
	// mode and not yet back in an ISR is Unregistered until then.
	KRaftBrokers []int
	// Unregistered: brokers holding replicas, neither registered in
	// ZooKeeper nor (KRaft owning) leading or in an ISR: down, or brokers
	// of unknown mode.
	Unregistered []int
	// TopicsWithoutID are the topics whose znode has no topic_id, sorted.
	TopicsWithoutID []string
	// SyncAge is how long /migration's offset has stood still (SyncKnown
	// false when not known); SyncStopped is the sync-stopped hazard.
	SyncAge     time.Duration
	SyncKnown   bool
	SyncStopped bool
	// Quorum is the KRaft quorum when one was asked (nil otherwise); Lag
	// is how many committed KRaft records ZooKeeper does not have yet
	// (LagKnown false without a quorum or before the copy).
	Quorum   *KRaftQuorum
	Lag      int64
	LagKnown bool
	// Gap is the last stall of the sync seen to end (by a SyncWatch
	// that followed it), until a new controller epoch covers it.
	Gap     *SyncGap
	Hazards []MigrationHazard
}

// Owner says who owns the metadata: "KRaft controller 3000 (epoch 5)
// since <at(ms)>", "ZooKeeper controller 2" or "none" (at renders the time
// the KRaft controller took /controller).
func (s MigrationStatus) Owner(at func(ms int64) string) string {
	switch {
	case s.Phase.KRaftOwned() || s.Verdict.Level == WriteRefused && s.KRaftController >= 0:
		c := "KRaft controller " + strconv.Itoa(s.KRaftController)
		if s.KRaftEpoch >= 0 {
			c += " (epoch " + strconv.Itoa(s.KRaftEpoch) + ")"
		}
		if s.Verdict.Since > 0 {
			c += " since " + at(s.Verdict.Since)
		}
		return c
	case s.ZKController >= 0:
		return "ZooKeeper controller " + strconv.Itoa(s.ZKController)
	}
	return "none"
}

// Hazard returns the hazard with code, if any.
func (s MigrationStatus) Hazard(code string) (MigrationHazard, bool) {
	for _, h := range s.Hazards {
		if h.Code == code {
			return h, true
		}
	}
	return MigrationHazard{}, false
}

// AssessMigration reads a migration's status off a snapshot at now. sync,
// when not nil, has observed every snapshot so far (it is made to observe
// this one too); without it, the sync's age is /migration's last write by
// ZooKeeper's clock. quorum, when not nil, is the KRaft quorum (for the
// lag).
func AssessMigration(s *Snapshot, now time.Time, sync *SyncWatch, quorum *KRaftQuorum) MigrationStatus {
	f := s.OwnerFacts()
	o := metadataOwner(f)
	mig := s.migration
	st := MigrationStatus{
		Verdict:         JudgeZooKeeperWrite(f),
		ZKController:    -1,
		KRaftController: -1, KRaftEpoch: -1,
		ControllerEpoch: s.controller.Epoch,
		Migration:       mig,
		Quorum:          quorum,
	}
	if o.kraft {
		st.KRaftController, st.KRaftEpoch = o.id, o.epoch
	} else {
		st.ZKController = o.id
		if mig.Present && mig.Err == nil && mig.State.KRaftControllerID >= 0 {
			st.KRaftController, st.KRaftEpoch = mig.State.KRaftControllerID, mig.State.KRaftControllerEpoch
		}
	}
	if sync == nil {
		sync = &SyncWatch{}
	}
	sync.Observe(mig, now)
	st.SyncAge, st.SyncKnown = sync.Age(now)

	// Brokers by mode.
	inISR := map[int]bool{}
	for _, t := range s.topics {
		if t.ID == "" {
			st.TopicsWithoutID = append(st.TopicsWithoutID, t.Name)
		}
		if o.kraft {
			for _, p := range t.Partitions {
				if p.HasLeader() {
					inISR[p.Leader] = true
				}
				for _, r := range p.ISR {
					inISR[r] = true
				}
			}
		}
	}
	listed := quorum != nil && quorum.BrokersKnown
	for _, b := range s.brokers {
		switch {
		case b.Live:
			st.ZKBrokers = append(st.ZKBrokers, b.ID)
		case o.kraft && listed && slices.Contains(quorum.Brokers, b.ID):
			st.KRaftBrokers = append(st.KRaftBrokers, b.ID)
		case o.kraft && !listed && inISR[b.ID]:
			st.KRaftBrokers = append(st.KRaftBrokers, b.ID)
		case b.Replicas > 0:
			st.Unregistered = append(st.Unregistered, b.ID)
		}
	}
	if o.kraft && listed {
		// KRaft brokers that hold no replica are not among the snapshot's.
		for _, id := range quorum.Brokers {
			if _, ok := s.Broker(id); !ok {
				st.KRaftBrokers = append(st.KRaftBrokers, id)
			}
		}
		slices.Sort(st.KRaftBrokers)
	}

	copied := mig.Present && mig.Err == nil && mig.State.KRaftMetadataOffset > 0
	if quorum != nil && copied && quorum.HighWatermark > 0 {
		st.Lag, st.LagKnown = max(0, quorum.HighWatermark-1-mig.State.KRaftMetadataOffset), true
	}
	stalled := st.SyncKnown && st.SyncAge >= SyncStalledAfter && !(st.LagKnown && st.Lag == 0)
	// With the quorum: finalizing restarts the controllers, so a leader of
	// a later epoch than the one /migration names, which never wrote
	// ZooKeeper, left migration mode; the same leader silent is a sync
	// that stopped.
	sameLeader := quorum != nil && quorum.LeaderEpoch > 0 && mig.Present && mig.Err == nil &&
		quorum.LeaderEpoch == mig.State.KRaftControllerEpoch
	if gap, ok := sync.Gap(); ok && o.kraft {
		st.Gap = &gap
	}

	switch {
	case !o.kraft && !mig.Present:
		st.Phase = PhaseNone
	case !o.kraft && mig.Err == nil && (mig.State.KRaftControllerID >= 0 || mig.State.KRaftMetadataOffset > 0):
		st.Phase = PhaseReverted
	case !o.kraft:
		st.Phase = PhaseWaiting
	case !copied:
		st.Phase = PhaseCopying
	case len(st.ZKBrokers) > 0:
		st.Phase = PhaseDualWrite
		st.SyncStopped = stalled
	case stalled && sameLeader:
		st.Phase = PhaseKRaftBrokers
		st.SyncStopped = true
	case stalled:
		st.Phase = PhaseFinalized
	default:
		st.Phase = PhaseKRaftBrokers
	}
	st.Hazards = migrationHazards(s, &st, f, o)
	return st
}

// migrationHazards lists what an operator must know in st's phase.
func migrationHazards(s *Snapshot, st *MigrationStatus, f OwnerFacts, o owner) []MigrationHazard {
	var hs []MigrationHazard
	add := func(code, format string, args ...any) {
		hs = append(hs, MigrationHazard{Code: code, Text: fmt.Sprintf(format, args...)})
	}
	mig := st.Migration
	if f.ControllerPresent && f.ControllerErr != nil {
		add(HazardUnreadableZnode, "/controller cannot be read: %v", f.ControllerErr)
	}
	if mig.Present && mig.Err != nil {
		add(HazardUnreadableZnode, "/migration cannot be read: %v", mig.Err)
	}
	if st.SyncStopped {
		add(HazardSyncStopped, "the KRaft controller's sync into ZooKeeper stopped: /migration's offset %d has not moved for %s "+
			"(in dual write it moves at least every metadata.max.idle.interval.ms, 500 ms by default)%s; "+
			"ZooKeeper no longer shows the cluster as it is, and a revert to ZooKeeper would lose what it misses; "+
			"check the active controller's connection to ZooKeeper and its log: Kafka 3.9.2 may stay stuck once it is back "+
			"(a BadVersion for /migration at every change), and restarting the active KRaft controller makes the next one "+
			"reconcile ZooKeeper with the whole KRaft image",
			mig.State.KRaftMetadataOffset, roundAge(st.SyncAge), lagText(st))
	}
	if g := st.Gap; g != nil && !st.SyncStopped {
		add(HazardSyncGap, "the sync stopped for %s (offsets %d to %d, from %s) and resumed: Kafka 3.9.2 then writes new changes only, so what changed meanwhile (a topic created, an ISR shrunk) may be missing from ZooKeeper until the controller's next full sync, when a KRaft controller becomes active (restart the active controller)",
			roundAge(g.To.Sub(g.From)), g.OffsetFrom, g.OffsetTo, g.From.UTC().Format("15:04:05 UTC"))
	}
	if !st.Phase.KRaftOwned() && len(st.Unregistered) > 0 {
		n := len(st.Unregistered)
		add(HazardUnregistered, "%s %s %s replicas but %s not registered: the KRaft controller starts the migration only once every broker named in an assignment has registered with it, so it would wait for ever (reassign their replicas away, or start them)",
			text.Plural(n, "broker", "brokers"), text.Join(st.Unregistered, ", "), text.Plural(n, "holds", "hold"), text.Plural(n, "is", "are"))
	}
	if st.Phase == PhaseReverted {
		add(HazardStaleMigration, "/migration is left from an earlier attempt (KRaft controller %d, metadata offset %d, last written %s): a new migration would take the metadata as already copied and skip copying it; Kafka's revert steps read it (get /migration) and then delete it",
			mig.State.KRaftControllerID, mig.State.KRaftMetadataOffset, FormatSince(mig.Mtime))
	}
	if n := len(st.TopicsWithoutID); n > 0 {
		names := strings.Join(firstN(st.TopicsWithoutID, 5), ", ")
		if n > 5 {
			names += fmt.Sprintf(" and %d more", n-5)
		}
		if st.Phase.KRaftOwned() {
			add(HazardNoTopicID, "%s without topic_id (%s): created through ZooKeeper behind the KRaft controller's back, %s never served, and the controller's next full sync into ZooKeeper fails on %s and retries for ever",
				text.Count(n, "topic"), names, text.Plural(n, "it is", "they are"), text.Plural(n, "it", "them"))
		} else {
			add(HazardNoTopicID, "%s without topic_id (%s): the migration's copy of the metadata fails on %s (Kafka aborts it); a ZooKeeper controller of IBP 2.8 or later gives %s one",
				text.Count(n, "topic"), names, text.Plural(n, "it", "them"), text.Plural(n, "it", "them"))
		}
	}
	if o.kraft && !mig.Present {
		add(HazardMigrationMissing, "/migration is missing while KRaft controller %d holds /controller: its writes into ZooKeeper check /migration and fail", o.id)
	}
	if !f.ControllerPresent && o.kraft {
		add(HazardNoController, "no controller holds /controller while /migration names KRaft controller %d: a revert to ZooKeeper under way? (Kafka's revert deletes /controller so that a broker is elected)", o.id)
	}
	if st.Phase.KRaftOwned() {
		var left []string
		if s.reassign != nil {
			left = append(left, ReassignPartitionsPath)
		}
		if s.preferred != nil {
			left = append(left, PreferredReplicaElectionPath)
		}
		if len(left) > 0 {
			add(HazardAdminRequests, "%s left behind: the KRaft controller ignores ZooKeeper's admin requests, and a ZooKeeper controller revived by a revert would carry %s out",
				strings.Join(left, " and "), text.Plural(len(left), "it", "them"))
		}
		if n := len(s.markers); n > 0 {
			add(HazardPendingDeletions, "%s marked for deletion under /admin/delete_topics (%s): the KRaft controller does not act on them",
				text.Count(n, "topic"), strings.Join(firstN(s.markers, 5), ", "))
		}
		var added []string
		for _, t := range s.topics {
			for _, p := range t.Partitions {
				if p.InAssignment && !p.HasState && t.ID != "" {
					added = append(added, t.Name+"-"+strconv.Itoa(p.ID))
				}
			}
		}
		if n := len(added); n > 0 {
			add(HazardNewPartitions, "%s in an assignment without a state (%s): added through ZooKeeper, the KRaft controller never creates them and its next full sync removes them",
				text.Count(n, "partition"), strings.Join(firstN(added, 5), ", "))
		}
	}
	return hs
}

// LagLine says how far ZooKeeper lags KRaft, for the radar's lag line:
// asked tells whether the quorum was asked, quorumErr what asking it
// failed with ("" for nothing), howToAsk what asks it when it was not.
func (st MigrationStatus) LagLine(asked bool, quorumErr, howToAsk string) string {
	switch {
	case st.LagKnown:
		q := st.Quorum
		return fmt.Sprintf("%s behind KRaft (high watermark %d; quorum leader %d, epoch %d, voters %s)",
			text.Count(int(st.Lag), "record"), q.HighWatermark, q.LeaderID, q.LeaderEpoch, text.Ints(q.Voters))
	case quorumErr != "":
		return "unknown: " + quorumErr
	case st.Quorum != nil:
		q := st.Quorum
		return fmt.Sprintf("none yet: nothing copied (quorum leader %d, epoch %d, high watermark %d)", q.LeaderID, q.LeaderEpoch, q.HighWatermark)
	case !asked && st.Migration.Present:
		return "unknown (" + howToAsk + " asks the KRaft quorum)"
	}
	return "n/a"
}

func lagText(st *MigrationStatus) string {
	if !st.LagKnown {
		return ""
	}
	return fmt.Sprintf(", %s behind KRaft's high watermark", text.Count(int(st.Lag), "record"))
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// roundAge renders an age to the second ("12s", "3m4s").
func roundAge(d time.Duration) string { return d.Round(time.Second).String() }

// Brokers returns every broker the status names, by mode, for a summary:
// "ZooKeeper 1,2 · KRaft 3 · unregistered 7".
func (s MigrationStatus) Brokers() string {
	var parts []string
	if len(s.ZKBrokers) > 0 {
		parts = append(parts, "ZooKeeper mode "+text.Ints(s.ZKBrokers))
	}
	if len(s.KRaftBrokers) > 0 {
		parts = append(parts, "KRaft "+text.Ints(s.KRaftBrokers))
	}
	if len(s.Unregistered) > 0 {
		parts = append(parts, "unregistered "+text.Ints(s.Unregistered))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " · ")
}
