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
	row("kraft.version", r.KRaftVersionText())
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
	for _, m := range ms {
		line := fmt.Sprintf("  %d\t%s\t%d\t%s\t%s\t%s\t%s", m.ID, q.DirectoryText(m), m.LogEndOffset, q.LagText(m),
			cluster.Ago(at, m.LastFetch), cluster.Ago(at, m.LastCaughtUp), q.MemberStatus(m, voters, at))
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
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Name, cluster.FeatureLevelLabel(f.Name, f.Finalized), f.SupportedText(), r.FeatureUpgradeText(f))
	}
	_ = tw.Flush()
	if u := cluster.UnaskedText(fs); u != "" {
		b.WriteString("  " + u + "\n")
	}
	writeBlockers(b, r)
}

// writeBlockers names, node by node, what keeps each feature below the
// highest level a node supports, or below a level Kafka's controller
// refused.
func writeBlockers(b *strings.Builder, r cluster.QuorumReport) {
	groups := cluster.BlockersByNode(r.Blockers())
	if len(groups) == 0 {
		return
	}
	b.WriteString("Upgrade blockers (Kafka's controller checks every registration, a fenced broker's too, before it raises a level):\n")
	for _, g := range groups {
		b.WriteString("  " + cluster.BlockerText(g) + "\n")
	}
}

func writeRegistrations(b *strings.Builder, r cluster.QuorumReport) {
	fmt.Fprintf(b, "Registrations: %s\n", r.RegistrationsText())
	for _, g := range r.Fenced() {
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
	// Ceiling with validateOnly (absent when not asked); HeldCheck its
	// answer about Highest, above what a node supports.
	UpgradeCheck *upgradeCheckJSON `json:"upgradeCheck,omitempty"`
	HeldCheck    *upgradeCheckJSON `json:"heldCheck,omitempty"`
	// Blockers are the nodes that keep the feature below Highest or
	// below a level the controller refused.
	Blockers []blockerJSON `json:"blockers,omitempty"`
}

type blockerJSON struct {
	Node       string `json:"node"`
	ID         int    `json:"id"`
	Controller bool   `json:"controller,omitempty"`
	// Level is the level it blocks, Max the highest it supports (0,
	// Known false: it does not know the feature).
	Level int  `json:"level"`
	Max   int  `json:"max"`
	Known bool `json:"known"`
	// FromRefusal: the range is Kafka's controller's refusal's, not the
	// node's own answer.
	FromRefusal bool `json:"fromRefusal"`
	Registered  bool `json:"registered"`
	Fenced      bool `json:"fenced"`
	Answered    bool `json:"answered"`
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

func checkJSON(c cluster.UpgradeCheck) *upgradeCheckJSON {
	return &upgradeCheckJSON{Level: c.Level, Accepted: c.Refusal == "" && c.Err == "", Refusal: c.Refusal, Error: c.Err}
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
	blockers := r.Blockers()
	for _, f := range fs {
		fj := featureJSON{Name: f.Name, Finalized: f.Finalized, Ceiling: f.Ceiling, Highest: f.Highest, HeldBy: f.Holders, Nodes: []rangeJSON{}}
		for _, nr := range f.Ranges {
			fj.Nodes = append(fj.Nodes, rangeJSON{Node: nr.Node, Min: nr.MinVersion, Max: nr.MaxVersion, Known: nr.Known})
		}
		if c, ok := r.UpgradeCheck(f.Name); ok {
			fj.UpgradeCheck = checkJSON(c)
		}
		if c, ok := r.HeldCheck(f.Name); ok {
			fj.HeldCheck = checkJSON(c)
		}
		for _, bl := range blockers {
			if bl.Feature == f.Name {
				fj.Blockers = append(fj.Blockers, blockerJSON{Node: bl.Name(), ID: bl.ID, Controller: bl.Controller, Level: bl.Level, Max: bl.Max, Known: bl.Known,
					FromRefusal: bl.FromRefusal, Registered: bl.Registered, Fenced: bl.Registration.Fenced, Answered: bl.Registration.Answered})
			}
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
