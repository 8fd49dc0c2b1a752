package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

// WriteQuorum prints ktopo quorum's report: the metadata quorum (leader,
// epoch, high watermark, kraft.version, the majority's arithmetic, every
// voter and observer), the feature levels with every node's range and
// what holds an upgrade, and the registrations that are fenced.
func WriteQuorum(w io.Writer, r cluster.QuorumReport) error {
	var b strings.Builder
	at := r.At
	row := func(k, v string) { fmt.Fprintf(&b, "  %-15s %s\n", k, v) }
	b.WriteString("Metadata quorum")
	if r.ClusterID != "" {
		b.WriteString(" of cluster " + r.ClusterID)
	}
	b.WriteString(":\n")
	q := r.Quorum
	if r.QuorumErr != "" {
		row("unknown", r.QuorumErr)
	} else {
		leader := "none"
		if q.LeaderID >= 0 {
			leader = strconv.Itoa(q.LeaderID)
		}
		row("leader", fmt.Sprintf("%s (epoch %d)", leader, q.LeaderEpoch))
		row("high watermark", strconv.FormatInt(q.HighWatermark, 10))
	}
	row("kraft.version", KRaftVersionText(r))
	if r.QuorumErr == "" {
		row("majority", r.MajorityText())
		writeMembers(&b, "Voters", q, q.Voters, at, true)
		writeMembers(&b, "Observers", q, q.Observers, at, false)
	}
	writeFeatures(&b, r)
	writeRegistrations(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// KRaftVersionText says whether the quorum is static or dynamic.
func KRaftVersionText(r cluster.QuorumReport) string {
	static, known := r.Static()
	switch {
	case !known:
		return "unknown: " + r.FinalizedErr
	case static:
		return "0: a static quorum (controller.quorum.voters): its voters change only by restarting every node with a new list"
	}
	return "1: a dynamic quorum (KIP-853): voters are added and removed with ktopo quorum add-controller and remove-controller (kafka-metadata-quorum's add-controller and remove-controller)"
}

func writeMembers(b *strings.Builder, title string, q cluster.QuorumDetail, ms []cluster.QuorumMember, at time.Time, voters bool) {
	fmt.Fprintf(b, "%s (%d):\n", title, len(ms))
	if len(ms) == 0 {
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	head := "  ID\tDIRECTORY ID\tLOG END\tLAG\tLAST FETCH\tLAST CAUGHT UP\tSTATUS"
	if voters {
		head += "\tENDPOINTS"
	}
	fmt.Fprintln(tw, head)
	down := map[int]bool{}
	for _, d := range q.Down(at) {
		down[d.ID] = true
	}
	for _, m := range ms {
		dir := "-"
		if q.Version >= 2 {
			dir = m.DirectoryID.String()
		}
		status := "observer"
		switch {
		case voters && m.ID == q.LeaderID:
			status = "leader"
		case voters && down[m.ID]:
			status = "follower, down"
		case voters:
			status = "follower"
		}
		lag := "unknown"
		if l := q.Lag(m); l >= 0 {
			lag = strconv.FormatInt(l, 10)
		}
		leo := strconv.FormatInt(m.LogEndOffset, 10)
		line := fmt.Sprintf("  %d\t%s\t%s\t%s\t%s\t%s\t%s", m.ID, dir, leo, lag, ago(at, m.LastFetch), ago(at, m.LastCaughtUp), status)
		if voters {
			eps := strings.Join(m.Endpoints, ",")
			if eps == "" {
				eps = "-"
			}
			line += "\t" + eps
		}
		fmt.Fprintln(tw, line)
	}
	_ = tw.Flush()
}

func ago(at, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return cluster.Age(at.Sub(t)) + " ago"
}

func writeFeatures(b *strings.Builder, r cluster.QuorumReport) {
	b.WriteString("Features:\n")
	if r.FinalizedErr != "" {
		fmt.Fprintf(b, "  finalized levels unknown: %s\n", r.FinalizedErr)
	}
	fs := r.Features()
	if len(fs) == 0 {
		b.WriteString("  none known\n")
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  FEATURE\tFINALIZED\tSUPPORTED\tUPGRADE")
	for _, f := range fs {
		up := UpgradeText(f)
		if c, ok := r.UpgradeCheck(f.Name); ok {
			up += "; " + UpgradeCheckText(c)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Name, levelText(f.Name, f.Finalized), SupportedText(f), up)
	}
	_ = tw.Flush()
	if len(fs) > 0 && len(fs[0].Unknown) > 0 {
		fmt.Fprintf(b, "  Ranges unknown, which Kafka's controller checks too before raising a level: %s.\n", strings.Join(fs[0].Unknown, "; "))
	}
}

func levelText(name string, level int) string {
	if name == cluster.FeatureMetadataVersion && cluster.MetadataVersionName(level) != "" {
		return cluster.MetadataVersionName(level) + " (" + strconv.Itoa(level) + ")"
	}
	return strconv.Itoa(level)
}

func rangeText(name string, lo, hi int) string {
	if name == cluster.FeatureMetadataVersion {
		return cluster.FeatureLevelText(name, lo) + " to " + cluster.FeatureLevelText(name, hi)
	}
	return strconv.Itoa(lo) + "-" + strconv.Itoa(hi)
}

// SupportedText is every node's range of a feature: one range for all
// when they agree, else each node's.
func SupportedText(f cluster.FeatureStatus) string {
	if len(f.Ranges) == 0 {
		return "unknown"
	}
	same := true
	for _, nr := range f.Ranges {
		if nr.MinVersion != f.Ranges[0].MinVersion || nr.MaxVersion != f.Ranges[0].MaxVersion || nr.Known != f.Ranges[0].Known {
			same = false
		}
	}
	one := func(nr cluster.NodeRange) string {
		if !nr.Known {
			return "unknown to it (0 only)"
		}
		return rangeText(f.Name, nr.MinVersion, nr.MaxVersion)
	}
	if same {
		return one(f.Ranges[0]) + " on all " + strconv.Itoa(len(f.Ranges)) + " nodes asked"
	}
	var parts []string
	for _, nr := range f.Ranges {
		parts = append(parts, nr.Node+" "+one(nr))
	}
	return strings.Join(parts, ", ")
}

// UpgradeText says how far a feature may be raised and what holds it.
func UpgradeText(f cluster.FeatureStatus) string {
	if f.Ceiling < 0 {
		return "unknown: no node answered"
	}
	lvl := func(l int) string { return cluster.FeatureLevelText(f.Name, l) }
	var s string
	switch {
	case f.Ceiling > f.Finalized:
		s = "may be raised to " + lvl(f.Ceiling) + " (every node asked supports it)"
	case f.Ceiling < f.Finalized:
		s = "finalized above what a node asked supports (" + lvl(f.Ceiling) + ")"
	default:
		s = "at the highest level every node asked supports"
	}
	if len(f.Holders) > 0 {
		s += "; " + lvl(f.Highest) + " is held back by " + strings.Join(f.Holders, ", ") + " (up to " + lvl(f.Ceiling) + ")"
	}
	return s
}

// UpgradeCheckText is Kafka's controller's answer to an upgrade asked
// with validateOnly.
func UpgradeCheckText(c cluster.UpgradeCheck) string {
	lvl := cluster.FeatureLevelText(c.Feature, c.Level)
	switch {
	case c.Err != "":
		return "Kafka's controller not asked about " + lvl + ": " + c.Err
	case c.Refusal != "":
		return "Kafka's controller refuses " + lvl + " (asked with validateOnly): " + c.Refusal
	}
	return "Kafka's controller accepts " + lvl + " (asked with validateOnly, as kafka-features upgrade --dry-run)"
}

func writeRegistrations(b *strings.Builder, r cluster.QuorumReport) {
	if r.BrokersErr != "" {
		fmt.Fprintf(b, "Registrations: unknown: %s\n", r.BrokersErr)
		return
	}
	regs := r.Registrations()
	var fenced []cluster.Registration
	for _, g := range regs {
		if g.Fenced {
			fenced = append(fenced, g)
		}
	}
	fmt.Fprintf(b, "Registrations: %d brokers registered, ", len(regs))
	if len(fenced) == 0 {
		b.WriteString("none fenced")
	} else {
		fmt.Fprintf(b, "%d fenced", len(fenced))
	}
	if !r.FencedListed {
		b.WriteString(" (this Kafka lists no fenced broker: before 4.0, a fenced one is not shown)")
	}
	b.WriteString("\n")
	for _, g := range fenced {
		fmt.Fprintf(b, "  broker %d: fenced; %s\n", g.ID, g.FencedText(r.At))
	}
}

// quorumReportJSON is ktopo quorum --output json.
type quorumReportJSON struct {
	At             time.Time          `json:"at"`
	ClusterID      string             `json:"clusterId,omitempty"`
	QuorumError    string             `json:"quorumError,omitempty"`
	ViaControllers bool               `json:"viaControllers"`
	LeaderID       *int               `json:"leaderId,omitempty"`
	LeaderEpoch    *int               `json:"leaderEpoch,omitempty"`
	HighWatermark  *int64             `json:"highWatermark,omitempty"`
	KRaftVersion   *int               `json:"kraftVersion,omitempty"`
	StaticQuorum   *bool              `json:"staticQuorum,omitempty"`
	Majority       string             `json:"majority,omitempty"`
	Voters         []memberJSON       `json:"voters"`
	Observers      []memberJSON       `json:"observers"`
	Features       []featureJSON      `json:"features"`
	FeaturesError  string             `json:"featuresError,omitempty"`
	NotAsked       []string           `json:"notAsked,omitempty"`
	Registrations  []registrationJSON `json:"registrations"`
	BrokersError   string             `json:"brokersError,omitempty"`
	FencedListed   bool               `json:"fencedListed"`
}

type memberJSON struct {
	ID             int      `json:"id"`
	DirectoryID    string   `json:"directoryId,omitempty"`
	LogEndOffset   int64    `json:"logEndOffset"`
	Lag            int64    `json:"lag"`
	LastFetchMs    *int64   `json:"lastFetchTimestamp"`
	LastCaughtUpMs *int64   `json:"lastCaughtUpTimestamp"`
	Endpoints      []string `json:"endpoints,omitempty"`
	Leader         bool     `json:"leader,omitempty"`
	Down           bool     `json:"down,omitempty"`
	LastFetchAgoMs *int64   `json:"lastFetchAgoMs,omitempty"`
	CaughtUpAgoMs  *int64   `json:"lastCaughtUpAgoMs,omitempty"`
}

type featureJSON struct {
	Name      string      `json:"name"`
	Finalized int         `json:"finalized"`
	Ceiling   int         `json:"ceiling"`
	Highest   int         `json:"highest"`
	HeldBy    []string    `json:"heldBy,omitempty"`
	Nodes     []rangeJSON `json:"nodes"`
	// UpgradeCheck is the controller's answer to raising the feature to
	// Ceiling with validateOnly (absent when not asked).
	UpgradeCheck *upgradeCheckJSON `json:"upgradeCheck,omitempty"`
}

type upgradeCheckJSON struct {
	Level    int    `json:"level"`
	Accepted bool   `json:"accepted"`
	Refusal  string `json:"refusal,omitempty"`
	Error    string `json:"error,omitempty"`
}

type rangeJSON struct {
	Node  string `json:"node"`
	Min   int    `json:"min"`
	Max   int    `json:"max"`
	Known bool   `json:"known"`
}

type registrationJSON struct {
	ID        int     `json:"id"`
	Host      string  `json:"host"`
	Port      int     `json:"port"`
	Rack      *string `json:"rack"`
	Fenced    bool    `json:"fenced"`
	Answered  bool    `json:"answered"`
	Observer  bool    `json:"observer"`
	Voter     bool    `json:"voter"`
	Stale     bool    `json:"stale"`
	AnswerErr string  `json:"answerError,omitempty"`
}

// WriteQuorumJSON prints the report as one JSON object.
func WriteQuorumJSON(w io.Writer, r cluster.QuorumReport) error {
	out := quorumReportJSON{At: r.At, ClusterID: r.ClusterID, QuorumError: r.QuorumErr, ViaControllers: r.ViaControllers,
		FeaturesError: r.FinalizedErr, BrokersError: r.BrokersErr, FencedListed: r.FencedListed,
		Voters: []memberJSON{}, Observers: []memberJSON{}, Features: []featureJSON{}, Registrations: []registrationJSON{}}
	q := r.Quorum
	if r.QuorumErr == "" {
		out.LeaderID, out.LeaderEpoch, out.HighWatermark = &q.LeaderID, &q.LeaderEpoch, &q.HighWatermark
		out.Majority = r.MajorityText()
		down := map[int]bool{}
		for _, d := range q.Down(r.At) {
			down[d.ID] = true
		}
		member := func(m cluster.QuorumMember) memberJSON {
			mj := memberJSON{ID: m.ID, LogEndOffset: m.LogEndOffset, Lag: q.Lag(m), Endpoints: m.Endpoints, Down: down[m.ID]}
			if q.Version >= 2 {
				mj.DirectoryID = m.DirectoryID.String()
			}
			if !m.LastFetch.IsZero() {
				ms, ago := m.LastFetch.UnixMilli(), r.At.Sub(m.LastFetch).Milliseconds()
				mj.LastFetchMs, mj.LastFetchAgoMs = &ms, &ago
			}
			if !m.LastCaughtUp.IsZero() {
				ms, ago := m.LastCaughtUp.UnixMilli(), r.At.Sub(m.LastCaughtUp).Milliseconds()
				mj.LastCaughtUpMs, mj.CaughtUpAgoMs = &ms, &ago
			}
			return mj
		}
		for _, v := range q.Voters {
			mj := member(v)
			mj.Leader = v.ID == q.LeaderID
			out.Voters = append(out.Voters, mj)
		}
		for _, o := range q.Observers {
			out.Observers = append(out.Observers, member(o))
		}
	}
	if static, known := r.Static(); known {
		lvl := 1
		if static {
			lvl = 0
		}
		out.KRaftVersion, out.StaticQuorum = &lvl, &static
	}
	fs := r.Features()
	for _, f := range fs {
		fj := featureJSON{Name: f.Name, Finalized: f.Finalized, Ceiling: f.Ceiling, Highest: f.Highest, HeldBy: f.Holders, Nodes: []rangeJSON{}}
		for _, nr := range f.Ranges {
			fj.Nodes = append(fj.Nodes, rangeJSON{Node: nr.Node, Min: nr.MinVersion, Max: nr.MaxVersion, Known: nr.Known})
		}
		if c, ok := r.UpgradeCheck(f.Name); ok {
			fj.UpgradeCheck = &upgradeCheckJSON{Level: c.Level, Accepted: c.Refusal == "" && c.Err == "", Refusal: c.Refusal, Error: c.Err}
		}
		out.Features = append(out.Features, fj)
	}
	if len(fs) > 0 {
		out.NotAsked = fs[0].Unknown
	}
	for _, g := range r.Registrations() {
		rj := registrationJSON{ID: g.ID, Host: g.Host, Port: g.Port, Fenced: g.Fenced, Answered: g.Answered, Observer: g.Observer,
			Voter: g.Voter, Stale: g.Stale(), AnswerErr: g.AnswerErr}
		if g.HasRack {
			rack := g.Rack
			rj.Rack = &rack
		}
		out.Registrations = append(out.Registrations, rj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
