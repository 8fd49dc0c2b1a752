package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

// MigrationReport is what ktopo migration prints: a migration's status at
// a moment, with what asking the KRaft quorum gave.
type MigrationReport struct {
	ClusterID string
	Status    cluster.MigrationStatus
	// QuorumErr is why the quorum could not be asked ("" when it was, or
	// when neither --bootstrap-server nor --bootstrap-controller was
	// given: Asked false).
	QuorumErr string
	Asked     bool
	At        time.Time
}

// WriteMigration prints the report as text, made to be pasted into an
// incident channel: the phase first, then one line per fact, then the
// hazards.
func WriteMigration(w io.Writer, r MigrationReport) error {
	st := r.Status
	var b strings.Builder
	fmt.Fprintf(&b, "ZooKeeper to KRaft migration: %s [%s]\n", st.Phase.Title(), st.Phase)
	row := func(k, v string) { fmt.Fprintf(&b, "  %-15s %s\n", k, v) }
	row("at", r.At.UTC().Format("2006-01-02 15:04:05 UTC"))
	if r.ClusterID != "" {
		row("cluster id", r.ClusterID)
	}
	row("controller", MigrationController(st))
	row("/migration", MigrationZNode(st))
	row("ZooKeeper lag", MigrationLag(st, r.Asked, r.QuorumErr))
	row("brokers", st.Brokers())
	if n := len(st.TopicsWithoutID); n > 0 {
		row("no topic_id", strings.Join(st.TopicsWithoutID, ", "))
	}
	v := st.Verdict
	switch v.Level {
	case cluster.WriteOK:
		row("ZK writes", "allowed (no migration in sight)")
	case cluster.WriteWarn:
		row("ZK writes", "asked first: "+v.Reason)
	default:
		row("ZK writes", "refused: "+v.Message())
	}
	if len(st.Hazards) == 0 {
		b.WriteString("Hazards: none\n")
	} else {
		b.WriteString("Hazards:\n")
		for _, h := range st.Hazards {
			fmt.Fprintf(&b, "  ! %s: %s\n", h.Code, h.Text)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MigrationController is the controller line: who owns the metadata.
func MigrationController(st cluster.MigrationStatus) string {
	return st.Owner(cluster.FormatSince) + "; /controller_epoch " + strconv.Itoa(st.ControllerEpoch)
}

// MigrationZNode is the /migration line.
func MigrationZNode(st cluster.MigrationStatus) string {
	m := st.Migration
	switch {
	case !m.Present:
		return "absent"
	case m.Err != nil:
		return "unreadable: " + m.Err.Error()
	}
	s := m.State
	out := fmt.Sprintf("kraft_controller_id %d, kraft_controller_epoch %d, kraft_metadata_offset %d (epoch %d)",
		s.KRaftControllerID, s.KRaftControllerEpoch, s.KRaftMetadataOffset, s.KRaftMetadataEpoch)
	if st.SyncKnown {
		out += "; offset moved " + Age(st.SyncAge) + " ago"
	}
	return out
}

// MigrationLag is the lag line: how far ZooKeeper lags KRaft.
func MigrationLag(st cluster.MigrationStatus, asked bool, quorumErr string) string {
	return st.LagLine(asked, quorumErr, "--bootstrap-controller or --bootstrap-server")
}

// Age renders a duration for a person: "0.4s", "12s", "3m4s".
func Age(d time.Duration) string {
	if d < 10*time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Round(time.Second).String()
}

type migrationJSON struct {
	Time                 string             `json:"time"`
	ClusterID            string             `json:"clusterId,omitempty"`
	Phase                string             `json:"phase"`
	PhaseTitle           string             `json:"phaseTitle"`
	ZKController         *int               `json:"zkController"`
	KRaftController      *int               `json:"kraftController"`
	KRaftControllerEpoch *int               `json:"kraftControllerEpoch"`
	ControllerEpoch      int                `json:"controllerEpoch"`
	Migration            *migrationNodeJSON `json:"migration"`
	SyncAgeMs            *int64             `json:"syncAgeMs"`
	SyncStopped          bool               `json:"syncStopped"`
	Quorum               *quorumJSON        `json:"quorum"`
	QuorumError          string             `json:"quorumError,omitempty"`
	Lag                  *int64             `json:"lag"`
	Brokers              brokerModesJSON    `json:"brokers"`
	TopicsWithoutID      []string           `json:"topicsWithoutId"`
	Write                writeVerdictJSON   `json:"write"`
	Hazards              []hazardJSON       `json:"hazards"`
}

type migrationNodeJSON struct {
	KRaftControllerID    int    `json:"kraftControllerId"`
	KRaftControllerEpoch int    `json:"kraftControllerEpoch"`
	KRaftMetadataOffset  int64  `json:"kraftMetadataOffset"`
	KRaftMetadataEpoch   int    `json:"kraftMetadataEpoch"`
	Version              int32  `json:"zkVersion"`
	Ctime                int64  `json:"ctime"`
	Mtime                int64  `json:"mtime"`
	Error                string `json:"error,omitempty"`
}

type quorumJSON struct {
	LeaderID      int   `json:"leaderId"`
	LeaderEpoch   int   `json:"leaderEpoch"`
	HighWatermark int64 `json:"highWatermark"`
	Voters        []int `json:"voters"`
}

type brokerModesJSON struct {
	ZooKeeper    []int `json:"zookeeper"`
	KRaft        []int `json:"kraft"`
	Unregistered []int `json:"unregistered"`
}

type writeVerdictJSON struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	Instead string `json:"instead,omitempty"`
}

type hazardJSON struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

func intPtr(v int) *int {
	if v < 0 {
		return nil
	}
	return &v
}

func orEmpty(ids []int) []int {
	if ids == nil {
		return []int{}
	}
	return ids
}

// WriteMigrationJSON prints the report as one JSON object on one line.
func WriteMigrationJSON(w io.Writer, r MigrationReport) error {
	st := r.Status
	out := migrationJSON{
		Time: r.At.UTC().Format(time.RFC3339Nano), ClusterID: r.ClusterID,
		Phase: st.Phase.String(), PhaseTitle: st.Phase.Title(),
		ZKController: intPtr(st.ZKController), KRaftController: intPtr(st.KRaftController), KRaftControllerEpoch: intPtr(st.KRaftEpoch),
		ControllerEpoch: st.ControllerEpoch, SyncStopped: st.SyncStopped, QuorumError: r.QuorumErr,
		Brokers:         brokerModesJSON{ZooKeeper: orEmpty(st.ZKBrokers), KRaft: orEmpty(st.KRaftBrokers), Unregistered: orEmpty(st.Unregistered)},
		TopicsWithoutID: st.TopicsWithoutID,
		Write:           writeVerdictJSON{Verdict: st.Verdict.Level.String(), Reason: st.Verdict.Reason, Instead: st.Verdict.Instead},
		Hazards:         []hazardJSON{},
	}
	if out.TopicsWithoutID == nil {
		out.TopicsWithoutID = []string{}
	}
	if m := st.Migration; m.Present {
		mj := &migrationNodeJSON{Version: m.Version, Ctime: m.Ctime, Mtime: m.Mtime,
			KRaftControllerID: m.State.KRaftControllerID, KRaftControllerEpoch: m.State.KRaftControllerEpoch,
			KRaftMetadataOffset: m.State.KRaftMetadataOffset, KRaftMetadataEpoch: m.State.KRaftMetadataEpoch}
		if m.Err != nil {
			mj.Error = m.Err.Error()
		}
		out.Migration = mj
	}
	if st.SyncKnown {
		ms := st.SyncAge.Milliseconds()
		out.SyncAgeMs = &ms
	}
	if q := st.Quorum; q != nil {
		out.Quorum = &quorumJSON{LeaderID: q.LeaderID, LeaderEpoch: q.LeaderEpoch, HighWatermark: q.HighWatermark, Voters: orEmpty(q.Voters)}
	}
	if st.LagKnown {
		lag := st.Lag
		out.Lag = &lag
	}
	for _, h := range st.Hazards {
		out.Hazards = append(out.Hazards, hazardJSON{Code: h.Code, Text: h.Text})
	}
	return json.NewEncoder(w).Encode(out)
}

// MigrationLine is the report in one line, for --watch: the time, the
// phase, the controller, the offset and lag, the brokers, the hazards'
// codes.
func MigrationLine(r MigrationReport) string {
	st := r.Status
	parts := []string{r.At.Format("15:04:05"), st.Phase.String(), MigrationController(st)}
	if m := st.Migration; m.Present && m.Err == nil {
		p := "offset " + strconv.FormatInt(m.State.KRaftMetadataOffset, 10)
		if st.LagKnown {
			p += " (lag " + strconv.FormatInt(st.Lag, 10) + ")"
		}
		parts = append(parts, p)
	}
	parts = append(parts, "brokers "+st.Brokers())
	if len(st.Hazards) > 0 {
		var codes []string
		for _, h := range st.Hazards {
			codes = append(codes, h.Code)
		}
		parts = append(parts, "hazards "+strings.Join(codes, ","))
	}
	return strings.Join(parts, " · ")
}
