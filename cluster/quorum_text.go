package cluster

import (
	"strconv"
	"strings"
	"time"
)

// The quorum doctor's words, shared by ktopo quorum's text and the TUI's
// quorum tab, so that both say the same thing the same way.

// KRaftVersionText says whether the quorum is static or dynamic, and
// what that means for changing its voters.
func (r *QuorumReport) KRaftVersionText() string {
	static, known := r.Static()
	switch {
	case !known:
		return "unknown: " + r.FinalizedErr
	case static:
		return "0: a static quorum (controller.quorum.voters): its voters change only by restarting every node with a new list"
	}
	return "1: a dynamic quorum (KIP-853): voters are added and removed with ktopo quorum add-controller and remove-controller (kafka-metadata-quorum's add-controller and remove-controller)"
}

// MemberStatus is a member's role as the quorum's tables name it
// (voter: it is listed among the voters): "leader", "follower",
// "follower, down" (see Down) or "observer".
func (q QuorumDetail) MemberStatus(m QuorumMember, voter bool, at time.Time) string {
	switch {
	case !voter:
		return "observer"
	case m.ID == q.LeaderID:
		return "leader"
	}
	for _, d := range q.Down(at) {
		if d.ID == m.ID {
			return "follower, down"
		}
	}
	return "follower"
}

// DirectoryText is a member's directory id as the table shows it: "-"
// before DescribeQuorum v2 (Kafka 3.9), which does not report it.
func (q QuorumDetail) DirectoryText(m QuorumMember) string {
	if q.Version < 2 {
		return "-"
	}
	return m.DirectoryID.String()
}

// LagText is a member's lag behind the leader's log end ("unknown" when
// the leader has not heard from it in this epoch).
func (q QuorumDetail) LagText(m QuorumMember) string {
	if l := q.Lag(m); l >= 0 {
		return strconv.FormatInt(l, 10)
	}
	return "unknown"
}

// Ago is how long before at t was ("4s ago"), "never" for the zero time.
func Ago(at, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return Age(at.Sub(t)) + " ago"
}

// FeatureLevelLabel is a finalized level as the features' table shows it:
// a metadata.version by its release name and number ("4.4-IV2 (33)"),
// others by number.
func FeatureLevelLabel(name string, level int) string {
	if name == FeatureMetadataVersion && MetadataVersionName(level) != "" {
		return MetadataVersionName(level) + " (" + strconv.Itoa(level) + ")"
	}
	return strconv.Itoa(level)
}

func featureRangeText(name string, lo, hi int) string {
	if name == FeatureMetadataVersion {
		return FeatureLevelText(name, lo) + " to " + FeatureLevelText(name, hi)
	}
	return strconv.Itoa(lo) + "-" + strconv.Itoa(hi)
}

// SupportedText is every node's range of a feature: one range for all
// when they agree, else each node's.
func (f FeatureStatus) SupportedText() string {
	if len(f.Ranges) == 0 {
		return "unknown"
	}
	same := true
	for _, nr := range f.Ranges {
		if nr.MinVersion != f.Ranges[0].MinVersion || nr.MaxVersion != f.Ranges[0].MaxVersion || nr.Known != f.Ranges[0].Known {
			same = false
		}
	}
	one := func(nr NodeRange) string {
		if !nr.Known {
			return "unknown to it (0 only)"
		}
		return featureRangeText(f.Name, nr.MinVersion, nr.MaxVersion)
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
func (f FeatureStatus) UpgradeText() string {
	if f.Ceiling < 0 {
		return "unknown: no node answered"
	}
	lvl := func(l int) string { return FeatureLevelText(f.Name, l) }
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

// Text is Kafka's controller's answer to an upgrade asked with
// validateOnly.
func (c UpgradeCheck) Text() string {
	lvl := FeatureLevelText(c.Feature, c.Level)
	switch {
	case c.Err != "":
		return "Kafka's controller not asked about " + lvl + ": " + c.Err
	case c.Refusal != "":
		return "Kafka's controller refuses " + lvl + " (asked with validateOnly): " + c.Refusal
	}
	return "Kafka's controller accepts " + lvl + " (asked with validateOnly, as kafka-features upgrade --dry-run)"
}

// FeatureUpgradeText is a feature's UpgradeText followed by Kafka's
// controller's answer, when it was asked.
func (r *QuorumReport) FeatureUpgradeText(f FeatureStatus) string {
	s := f.UpgradeText()
	if c, ok := r.UpgradeCheck(f.Name); ok {
		s += "; " + c.Text()
	}
	if c, ok := r.HeldCheck(f.Name); ok {
		s += "; " + c.heldText()
	}
	return s
}

// heldText is Kafka's controller's answer to raising a feature to the
// highest level a node supports, above what another supports: its
// refusal is told with the blockers (BlockerText).
func (c UpgradeCheck) heldText() string {
	if c.Refusal != "" {
		return "Kafka's controller refuses " + FeatureLevelText(c.Feature, c.Level) + " (asked with validateOnly; see the blockers below)"
	}
	return c.Text()
}

// UnaskedText says which nodes' ranges Kafka's controller checks too but
// ktopo could not read ("" when none).
func UnaskedText(fs []FeatureStatus) string {
	if len(fs) == 0 || len(fs[0].Unknown) == 0 {
		return ""
	}
	return "Ranges unknown, which Kafka's controller checks too before raising a level: " + strings.Join(fs[0].Unknown, "; ") + "."
}

// Fenced are the registered brokers the controller has fenced.
func (r *QuorumReport) Fenced() []Registration {
	var out []Registration
	for _, g := range r.Registrations() {
		if g.Fenced {
			out = append(out, g)
		}
	}
	return out
}

// RegistrationsText sums up the registrations: how many brokers are
// registered and how many fenced, and whether this Kafka lists fenced
// ones at all.
func (r *QuorumReport) RegistrationsText() string {
	if r.BrokersErr != "" {
		return "unknown: " + r.BrokersErr
	}
	s := strconv.Itoa(len(r.Brokers)) + " brokers registered, "
	if n := len(r.Fenced()); n == 0 {
		s += "none fenced"
	} else {
		s += strconv.Itoa(n) + " fenced"
	}
	if !r.FencedListed {
		s += " (this Kafka lists no fenced broker: before 4.0, a fenced one is not shown)"
	}
	return s
}
