package cluster

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/internal/text"
)

// The quorum and registration doctor (ktopo quorum): what a KRaft
// cluster's metadata quorum, feature levels and broker registrations are
// at one moment, and what follows from them: how many voters may fail,
// what an upgrade of a feature would meet, which registrations are stale.
// The reads are kafkawatch's (ReadQuorumReport); the judgements are here,
// on the values alone.

// QuorumReport is one reading of a KRaft cluster for ktopo quorum.
type QuorumReport struct {
	// At is when it was read: the members' fetch times are aged from it.
	At time.Time
	// ClusterID is the cluster's id (DescribeCluster).
	ClusterID string
	// Quorum is DescribeQuorum's answer; QuorumErr why there is none.
	Quorum    QuorumDetail
	QuorumErr string
	// ViaControllers: DescribeQuorum was asked of the controllers
	// (--bootstrap-controller), else of the brokers, which forward it.
	ViaControllers bool
	// Finalized are the finalized feature levels (ApiVersions), by name;
	// FinalizedErr is why they are unknown.
	Finalized    []Feature
	FinalizedErr string
	// Nodes are the supported feature ranges each node answered in
	// ApiVersions (or why it did not): every registered broker, and the
	// controllers when ControllersAsked.
	Nodes            []NodeFeatures
	ControllersAsked bool
	// Brokers are the registered brokers (DescribeCluster, fenced ones
	// too from Kafka 4.0: FencedListed); BrokersErr why they are unknown.
	Brokers      []KRaftBroker
	FencedListed bool
	BrokersErr   string
	// UpgradeChecks are Kafka's controller's own answers to raising each
	// feature that every node asked supports above its finalized level
	// to the highest such level, and each feature that a node holds back
	// to the highest level any node supports (Held; UpdateFeatures with
	// validateOnly, as kafka-features upgrade --dry-run asks): the
	// controller checks every registration, a stale one too, whose
	// ranges no API lets ktopo read, and its refusal names the first
	// node in the way with its range.
	UpgradeChecks []UpgradeCheck
}

// UpgradeCheck is the controller's answer to a feature's upgrade asked
// with validateOnly.
type UpgradeCheck struct {
	Feature string
	Level   int
	// Held: the level is above what a node asked supports (the highest
	// any node supports), asked so that Kafka's refusal names what holds
	// it.
	Held bool
	// Refusal is Kafka's refusal ("" when it would accept the upgrade);
	// Err why the question got no answer (no access, no leader).
	Refusal, Err string
}

// UpgradeCheck returns the controller's answer about raising a feature
// to the highest level every node asked supports (false when it was not
// asked).
func (r *QuorumReport) UpgradeCheck(feature string) (UpgradeCheck, bool) {
	return r.upgradeCheck(feature, false)
}

// HeldCheck returns the controller's answer about raising a feature to
// the highest level a node supports, above what another supports (false
// when it was not asked).
func (r *QuorumReport) HeldCheck(feature string) (UpgradeCheck, bool) {
	return r.upgradeCheck(feature, true)
}

func (r *QuorumReport) upgradeCheck(feature string, held bool) (UpgradeCheck, bool) {
	for _, c := range r.UpgradeChecks {
		if c.Feature == feature && c.Held == held {
			return c, true
		}
	}
	return UpgradeCheck{}, false
}

// UpgradeChecksOf are the upgrades whose answers ReadQuorumReport asks
// Kafka's controller for: each feature every node asked supports above
// its finalized level, to the highest such level, and each feature a
// node holds below the highest level another supports, to that level.
func UpgradeChecksOf(fs []FeatureStatus) []UpgradeCheck {
	var out []UpgradeCheck
	for _, f := range fs {
		if f.Upgradable() {
			out = append(out, UpgradeCheck{Feature: f.Name, Level: f.Ceiling})
		}
		if f.Highest > f.Finalized && f.Highest > f.Ceiling {
			out = append(out, UpgradeCheck{Feature: f.Name, Level: f.Highest, Held: true})
		}
	}
	return out
}

// QuorumDetail is the metadata quorum in full, as its leader describes
// it (DescribeQuorum).
type QuorumDetail struct {
	LeaderID, LeaderEpoch int
	// HighWatermark is the offset after the last committed record.
	HighWatermark int64
	Voters        []QuorumMember
	Observers     []QuorumMember
	// Version is the DescribeQuorum version answered: from 2 (Kafka
	// 3.9) the members' directory ids and the voters' endpoints.
	Version int
}

// QuorumMember is a voter or an observer as the leader sees it.
type QuorumMember struct {
	ID int
	// DirectoryID is its metadata log directory's id (zero: a static
	// quorum's voter, or before DescribeQuorum v2).
	DirectoryID UUID
	// LogEndOffset is how far its log reaches, -1 when the leader has not
	// heard from it in this epoch.
	LogEndOffset int64
	// LastFetch and LastCaughtUp are its last fetch and the last time it
	// had caught up with the leader (zero: never in this epoch).
	LastFetch, LastCaughtUp time.Time
	// Endpoints are a voter's listeners ("CONTROLLER://host:port"), from
	// v2.
	Endpoints []string
}

// NodeFeatures is one node's answer to ApiVersions: its software's
// supported feature ranges.
type NodeFeatures struct {
	// ID is the node's id (-1 when only its address is known).
	ID         int
	Controller bool
	Addr       string
	Supported  []FeatureRange
	// Err is why it did not answer ("" when it did).
	Err string
}

// Name is "broker 3" or "controller 3000" (the address when the id is
// unknown).
func (n NodeFeatures) Name() string {
	role := "broker"
	if n.Controller {
		role = "controller"
	}
	if n.ID < 0 {
		return role + " at " + n.Addr
	}
	return role + " " + strconv.Itoa(n.ID)
}

// Supports returns the node's range of a feature (false: the node does
// not know it, which Kafka reads as supporting level 0 only).
func (n NodeFeatures) Supports(name string) (FeatureRange, bool) {
	for _, f := range n.Supported {
		if f.Name == name {
			return f, true
		}
	}
	return FeatureRange{Name: name}, false
}

// FeatureKRaftVersion names the quorum's own feature: 0 a static quorum
// (controller.quorum.voters), 1 a dynamic one (KIP-853).
const FeatureKRaftVersion = "kraft.version"

// FollowerFetchStale is how old a follower's last fetch may be before
// ktopo counts it down: a live follower fetches from the leader at least
// every 500 ms (KafkaRaftClient's fetch max wait), and the leader resigns
// after 3 s without a majority fetching (1.5 ×
// controller.quorum.fetch.timeout.ms).
const FollowerFetchStale = 5 * time.Second

// Down returns the voters the leader has not heard from within
// FollowerFetchStale of at (the leader itself is never down).
func (q QuorumDetail) Down(at time.Time) []QuorumMember {
	var out []QuorumMember
	for _, v := range q.Voters {
		if v.ID == q.LeaderID {
			continue
		}
		if v.LastFetch.IsZero() || at.Sub(v.LastFetch) > FollowerFetchStale {
			out = append(out, v)
		}
	}
	return out
}

// Lag is how many records a member is behind the leader's log end (-1:
// unknown), as kafka-metadata-quorum --replication prints it.
func (q QuorumDetail) Lag(m QuorumMember) int64 {
	if m.LogEndOffset < 0 {
		return -1
	}
	leo := q.HighWatermark
	for _, v := range q.Voters {
		if v.ID == q.LeaderID && v.LogEndOffset >= 0 {
			leo = v.LogEndOffset
		}
	}
	return max(leo-m.LogEndOffset, 0)
}

// Static reports whether the quorum is static (kraft.version 0, or not
// finalized: controller.quorum.voters); known is false when the features
// could not be read.
func (r *QuorumReport) Static() (static, known bool) {
	if r.FinalizedErr != "" {
		return false, false
	}
	for _, f := range r.Finalized {
		if f.Name == FeatureKRaftVersion {
			return f.Level == 0, true
		}
	}
	return true, true
}

// MajorityText spells out the quorum's arithmetic: how many voters make a
// majority, how many may fail, and how many still may with the voters
// that are down now, naming them.
func (r *QuorumReport) MajorityText() string {
	q := r.Quorum
	n := len(q.Voters)
	if n == 0 {
		return "no voters known"
	}
	majority := n/2 + 1
	tolerate := n - majority
	s := fmt.Sprintf("%s: a majority is %d, so %s", text.Count(n, "voter"), majority, mayFail(tolerate))
	down := q.Down(r.At)
	if len(down) == 0 {
		return s + "."
	}
	var names []string
	for _, d := range down {
		why := "never fetched from this leader"
		if !d.LastFetch.IsZero() {
			why = "last fetch " + Age(r.At.Sub(d.LastFetch)) + " ago"
		}
		names = append(names, fmt.Sprintf("%d (%s)", d.ID, why))
	}
	left := tolerate - len(down)
	with := "with " + text.Plural(len(down), "controller ", "controllers ") + strings.Join(names, ", ") + " down"
	switch {
	case left > 0:
		return fmt.Sprintf("%s; %s, %s more may.", s, with, strconv.Itoa(left))
	case left == 0:
		return fmt.Sprintf("%s; %s, none may: one more failure stops the quorum.", s, with)
	}
	return fmt.Sprintf("%s; %s, the quorum has no majority: it elects no leader and commits nothing until a majority is back.", s, with)
}

func mayFail(n int) string {
	switch n {
	case 0:
		return "none may fail"
	case 1:
		return "1 may fail"
	}
	return strconv.Itoa(n) + " may fail"
}

// Age renders a duration for the quorum's times: "350ms", "4s", "2m13s",
// "3h05m".
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// FeatureStatus is one feature across the cluster: its finalized level,
// every node's range, and how far it may be raised.
type FeatureStatus struct {
	Name string
	// Finalized is its finalized level (0 when not finalized).
	Finalized int
	// Ranges are the nodes' ranges, in the order of QuorumReport.Nodes,
	// of the nodes that answered.
	Ranges []NodeRange
	// Ceiling is the highest level every node that answered supports
	// (-1: no node answered); Highest the highest any supports.
	Ceiling, Highest int
	// Holders are the nodes whose software stops the feature below
	// Highest (their Max is Ceiling); Unknown the nodes whose range
	// Kafka's controller checks but ktopo could not ask.
	Holders []string
	Unknown []string
}

// NodeRange is one node's range of a feature.
type NodeRange struct {
	Node string
	// ID and Controller are the node's (ID -1 when only its address is
	// known).
	ID         int
	Controller bool
	FeatureRange
	// Known is false when the node does not know the feature (Kafka
	// reads it as 0-0).
	Known bool
}

// Upgradable reports whether the feature may be raised above its
// finalized level by every node's software ktopo asked.
func (f FeatureStatus) Upgradable() bool { return f.Ceiling > f.Finalized }

// Features judges every feature the nodes know or the cluster finalized:
// metadata.version, then kraft.version, then the others by name.
func (r *QuorumReport) Features() []FeatureStatus {
	names := map[string]bool{}
	for _, f := range r.Finalized {
		names[f.Name] = true
	}
	for _, n := range r.Nodes {
		for _, f := range n.Supported {
			names[f.Name] = true
		}
	}
	var order []string
	for n := range names {
		order = append(order, n)
	}
	rank := func(n string) int {
		switch n {
		case FeatureMetadataVersion:
			return 0
		case FeatureKRaftVersion:
			return 1
		}
		return 2
	}
	slices.SortFunc(order, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	unknown := r.unaskedNodes()
	var out []FeatureStatus
	for _, name := range order {
		fs := FeatureStatus{Name: name, Ceiling: -1, Highest: -1, Unknown: unknown}
		for _, f := range r.Finalized {
			if f.Name == name {
				fs.Finalized = f.Level
			}
		}
		for _, n := range r.Nodes {
			if n.Err != "" {
				continue
			}
			fr, ok := n.Supports(name)
			fs.Ranges = append(fs.Ranges, NodeRange{Node: n.Name(), ID: n.ID, Controller: n.Controller, FeatureRange: fr, Known: ok})
			if fs.Ceiling < 0 || fr.MaxVersion < fs.Ceiling {
				fs.Ceiling = fr.MaxVersion
			}
			fs.Highest = max(fs.Highest, fr.MaxVersion)
		}
		if fs.Ceiling < fs.Highest {
			for _, nr := range fs.Ranges {
				if nr.MaxVersion == fs.Ceiling {
					fs.Holders = append(fs.Holders, nr.Node)
				}
			}
		}
		out = append(out, fs)
	}
	return out
}

// unaskedNodes names the nodes whose supported ranges Kafka's controller
// checks before raising a level (every registered broker, fenced ones
// too, and every controller: FeatureControlManager.reasonNotSupported)
// and that ktopo could not ask.
func (r *QuorumReport) unaskedNodes() []string {
	var out []string
	for _, n := range r.Nodes {
		if n.Err == "" {
			continue
		}
		what := n.Name() + " (did not answer"
		if b, ok := r.broker(n.ID); ok && !n.Controller && b.Fenced {
			what = n.Name() + " (fenced, did not answer"
		}
		out = append(out, what+": its registration's range still counts)")
	}
	if !r.ControllersAsked {
		out = append(out, "the controllers (not asked: give --bootstrap-controller)")
	}
	return out
}

func (r *QuorumReport) broker(id int) (KRaftBroker, bool) {
	for _, b := range r.Brokers {
		if b.ID == id {
			return b, true
		}
	}
	return KRaftBroker{}, false
}

// Registration is a registered broker as the doctor judges it.
type Registration struct {
	KRaftBroker
	// Answered: it answered ApiVersions at its registered endpoint now
	// (it runs); AnswerErr is why not.
	Answered  bool
	AnswerErr string
	// Observer: the quorum's leader lists it among its observers (it
	// fetched the metadata log in the last five minutes); LastFetch is
	// then when.
	Observer  bool
	LastFetch time.Time
	// Voter: its id is a voter's too (a combined node).
	Voter bool
}

// Stale reports whether a registration looks left behind by a broker
// that is gone: fenced, not answering at its endpoint, and no longer
// among the quorum's observers (it has not fetched the metadata log for
// five minutes, LeaderState's observer session timeout).
func (g Registration) Stale() bool {
	return g.Fenced && !g.Answered && !g.Observer
}

// Registrations are the registered brokers with what the doctor knows
// of each, by id.
func (r *QuorumReport) Registrations() []Registration {
	var out []Registration
	for _, b := range r.Brokers {
		g := Registration{KRaftBroker: b, Voter: r.Quorum.isVoter(b.ID)}
		for _, n := range r.Nodes {
			if !n.Controller && n.ID == b.ID {
				g.Answered, g.AnswerErr = n.Err == "", n.Err
			}
		}
		for _, o := range r.Quorum.Observers {
			if o.ID == b.ID {
				g.Observer, g.LastFetch = true, o.LastFetch
			}
		}
		out = append(out, g)
	}
	return out
}

func (q QuorumDetail) isVoter(id int) bool {
	return slices.ContainsFunc(q.Voters, func(m QuorumMember) bool { return m.ID == id })
}

// FencedText says what a fenced registration is: how long since it last
// fetched the metadata log, whether it answers, whether it looks stale.
func (g Registration) FencedText(at time.Time) string {
	unregister := "ktopo brokers unregister " + strconv.Itoa(g.ID) + ", or kafka-cluster unregister --id " + strconv.Itoa(g.ID)
	switch {
	case g.Answered:
		s := "answers at " + g.endpoint() + ": running (starting, catching up or shutting down)"
		if g.Observer && !g.LastFetch.IsZero() {
			s += "; last fetched the metadata log " + Age(at.Sub(g.LastFetch)) + " ago"
		}
		return s
	case g.Stale():
		return "stale: does not answer at " + g.endpoint() + " and has not fetched the metadata log for over 5 minutes (not among the quorum's observers); " +
			"a registration left behind by a broker that is gone still counts when a feature level is raised, until it is unregistered (" + unregister + ")"
	}
	s := "down: does not answer at " + g.endpoint()
	if !g.LastFetch.IsZero() {
		s += ", last fetched the metadata log " + Age(at.Sub(g.LastFetch)) + " ago"
	}
	return s + "; if it is gone for good, its registration still counts when a feature level is raised until it is unregistered (" + unregister + ")"
}

func (g Registration) endpoint() string {
	if g.Host == "" {
		return "its endpoint (unknown)"
	}
	return g.Host + ":" + strconv.Itoa(g.Port)
}

// MetadataVersionName is the release name of a metadata.version feature
// level as Kafka names it (MetadataVersion), "" when unknown.
func MetadataVersionName(level int) string {
	if level >= 1 && level-1 < len(metadataVersionNames) {
		return metadataVersionNames[level-1]
	}
	return ""
}

// metadataVersionNames are MetadataVersion's feature levels from 1
// (3.0-IV1; 3.9.2 supports from there) to 34 (4.5-IV0, not yet
// production in 4.4.0; 4.4.0 supports from 7, 3.3-IV3), read from the
// 3.9.2 and 4.4.0 jars.
var metadataVersionNames = []string{
	"3.0-IV1", "3.1-IV0", "3.2-IV0", "3.3-IV0", "3.3-IV1", "3.3-IV2",
	"3.3-IV3", "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1", "3.6-IV2",
	"3.7-IV0", "3.7-IV1", "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0", "3.9-IV0",
	"4.0-IV0", "4.0-IV1", "4.0-IV2", "4.0-IV3", "4.1-IV0", "4.1-IV1", "4.2-IV0", "4.2-IV1",
	"4.3-IV0", "4.4-IV0", "4.4-IV1", "4.4-IV2", "4.5-IV0",
}

// FeatureLevelText is a level as kafka-features prints it: a
// metadata.version by its release name, others by number.
func FeatureLevelText(name string, level int) string {
	if name == FeatureMetadataVersion {
		if n := MetadataVersionName(level); n != "" {
			return n
		}
	}
	return strconv.Itoa(level)
}

// JudgeUnregister says why broker id's registration should not be
// removed ("" when it may be): Kafka's controller removes any
// registration it is asked to (ReplicationControlManager.unregisterBroker),
// so ktopo refuses a broker that is not registered (in Kafka's words), a
// voter of the metadata quorum (a combined node: its controller keeps
// running), an unfenced broker and a fenced one that still answers (a
// running broker left without a registration leads nothing until it
// restarts).
func (r *QuorumReport) JudgeUnregister(id int) string {
	if r.BrokersErr != "" {
		return "the registrations could not be read: " + r.BrokersErr
	}
	var g *Registration
	regs := r.Registrations()
	for i := range regs {
		if regs[i].ID == id {
			g = &regs[i]
		}
	}
	switch {
	case r.Quorum.isVoter(id):
		return "broker " + strconv.Itoa(id) + " is a voter of the metadata quorum (a combined broker and controller): remove it from the quorum first"
	case g == nil:
		return "Broker ID " + strconv.Itoa(id) + " is not currently registered"
	case !g.Fenced:
		return "broker " + strconv.Itoa(id) + " is alive (registered and unfenced): unregistering it would leave a running broker without a registration; stop it for good first, and wait until the controller fences it"
	case g.Answered:
		return "broker " + strconv.Itoa(id) + " is fenced but answers at " + g.endpoint() + ": it runs (starting, catching up or shutting down); stop it for good first"
	}
	return ""
}

// Registration returns broker id's registration (false: not registered).
func (r *QuorumReport) Registration(id int) (Registration, bool) {
	for _, g := range r.Registrations() {
		if g.ID == id {
			return g, true
		}
	}
	return Registration{}, false
}
