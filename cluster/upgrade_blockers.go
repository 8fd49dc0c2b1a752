package cluster

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What blocks a feature upgrade: the nodes whose software supports a
// feature only below the highest level another node supports, as their
// ApiVersions answers say, and the registrations Kafka's controller
// names when it refuses an upgrade asked with validateOnly. A fenced
// broker's registration counts when the controller raises a level
// (FeatureControlManager.reasonNotSupported checks every registration),
// and no API lists its ranges: the refusal is the only place they show.

// Blocker is a node that keeps a feature below a level.
type Blocker struct {
	Feature string
	// Level is the level it blocks: the highest level a node supports,
	// or the one Kafka's controller refused.
	Level int
	// ID and Controller are the node's (ID -1 when only its address is
	// known).
	ID         int
	Controller bool
	// Max is the highest level the node supports; Known is false when
	// its software does not know the feature (Kafka reads that as level
	// 0 only, and its refusal says the node "does not support this
	// feature").
	Max   int
	Known bool
	// FromRefusal: the range is Kafka's controller's word (its refusal),
	// not the node's: a registration ktopo could not ask.
	FromRefusal bool
	// Registered: a broker with a registration (Registration, as the
	// doctor judges it).
	Registered   bool
	Registration Registration
}

// Name is "broker 3" or "controller 3000".
func (b Blocker) Name() string {
	return NodeFeatures{ID: b.ID, Controller: b.Controller}.Name()
}

// refusalNode matches the node a refusal of Kafka's controller names
// (QuorumFeatures.reasonNotSupported: "Broker 3 only supports versions
// 1-21", "Broker 3 does not support this feature.").
var refusalNode = regexp.MustCompile(`\b(Broker|Controller) (\d+) (?:only supports versions (\d+)-(\d+)|does not support this feature)`)

// RefusalBlocker reads the node a refusal of Kafka's controller names,
// and its range (false when the refusal names none: a dependency on
// another feature, a downgrade).
func RefusalBlocker(c UpgradeCheck) (Blocker, bool) {
	m := refusalNode.FindStringSubmatch(c.Refusal)
	if m == nil {
		return Blocker{}, false
	}
	id, err := strconv.Atoi(m[2])
	if err != nil {
		return Blocker{}, false
	}
	b := Blocker{Feature: c.Feature, Level: c.Level, ID: id, Controller: m[1] == "Controller", FromRefusal: true}
	if m[4] != "" {
		b.Max, _ = strconv.Atoi(m[4])
		b.Known = true
	}
	return b, true
}

// Blockers are the nodes that keep each feature below the highest level
// a node supports (or below a level Kafka's controller refused), by
// feature (Features' order), then by node as Nodes lists them, the
// nodes only a refusal names last.
func (r *QuorumReport) Blockers() []Blocker {
	regs := r.Registrations()
	var out []Blocker
	for _, f := range r.Features() {
		var bs []Blocker
		if f.Highest > f.Finalized {
			for _, nr := range f.Ranges {
				if nr.MaxVersion < f.Highest {
					bs = append(bs, Blocker{Feature: f.Name, Level: f.Highest, ID: nr.ID, Controller: nr.Controller, Max: nr.MaxVersion, Known: nr.Known})
				}
			}
		}
		for _, c := range r.UpgradeChecks {
			b, ok := RefusalBlocker(c)
			if !ok || c.Feature != f.Name || slices.ContainsFunc(bs, func(o Blocker) bool { return o.ID == b.ID && o.Controller == b.Controller }) {
				continue
			}
			bs = append(bs, b)
		}
		for i := range bs {
			if bs[i].Controller {
				continue
			}
			for _, g := range regs {
				if g.ID == bs[i].ID {
					bs[i].Registered, bs[i].Registration = true, g
				}
			}
		}
		out = append(out, bs...)
	}
	return out
}

// BlockerText says what one node blocks, all its features at once:
// "broker 3 blocks metadata.version 4.4-IV2 (it supports up to 3.9-IV0,
// as Kafka 3.9 does) and group.version 1 (it does not support it)", then
// what to do about it: upgrade its software, or, for a registration left
// behind, unregister it.
func BlockerText(bs []Blocker) string {
	if len(bs) == 0 {
		return ""
	}
	b := bs[0]
	who := b.Name()
	if b.FromRefusal || !b.Controller && b.Registered && b.Registration.Fenced {
		who += "'s registration"
	}
	s := who + " blocks " + BlockedText(bs)
	switch {
	case b.Controller:
		return s + ": upgrade its software"
	case !b.Registered:
		return s
	case b.FromRefusal || !b.Registration.Answered:
		src := ""
		if b.FromRefusal {
			src = ", as Kafka's controller's refusal says"
			if len(bs) > 1 {
				src = ", as Kafka's controller's refusals say"
			}
		}
		return s + src + "; the broker is " + fencedWord(b.Registration) + " and does not answer: if it is gone for good, ktopo brokers unregister " + strconv.Itoa(b.ID) + " removes its registration, else upgrade its software"
	}
	return s + ": upgrade its software (or, to remove the broker, stop it for good and unregister it: ktopo brokers unregister " + strconv.Itoa(b.ID) + ")"
}

// BlockedText is what one node's blockers block: "metadata.version
// 4.4-IV2 (it supports up to 3.9-IV0, as Kafka 3.9 does) and
// group.version 1 (it does not support it)".
func BlockedText(bs []Blocker) string {
	var what []string
	for _, x := range bs {
		what = append(what, x.Feature+" "+FeatureLevelText(x.Feature, x.Level)+" ("+x.supportText()+")")
	}
	return text2(what)
}

// BlockersOf are the blockers that are node id's (a broker's when
// controller is false).
func BlockersOf(bs []Blocker, id int, controller bool) []Blocker {
	var out []Blocker
	for _, b := range bs {
		if b.ID == id && b.Controller == controller {
			out = append(out, b)
		}
	}
	return out
}

func fencedWord(g Registration) string {
	if g.Fenced {
		return "fenced"
	}
	return "unfenced"
}

func (b Blocker) supportText() string {
	if !b.Known || b.Max == 0 {
		return "it does not support it"
	}
	s := "it supports up to " + FeatureLevelText(b.Feature, b.Max)
	if b.Feature == FeatureMetadataVersion {
		if rel := releaseOfNewest(b.Max); rel != "" {
			s += ", as Kafka " + rel + " does"
		}
	}
	return s
}

// releaseOfNewest is the Kafka release whose newest metadata.version is
// level ("3.9" for 3.9-IV0: what a 3.9 node supports at most, unstable
// versions off), "" when level is not the last of its release.
func releaseOfNewest(level int) string {
	name := MetadataVersionName(level)
	rel, _, ok := strings.Cut(name, "-")
	if !ok {
		return ""
	}
	if next := MetadataVersionName(level + 1); strings.HasPrefix(next, rel+"-") {
		return ""
	}
	return rel
}

// text2 joins phrases: "a", "a and b", "a, b and c".
func text2(ps []string) string {
	if len(ps) <= 1 {
		return strings.Join(ps, "")
	}
	return strings.Join(ps[:len(ps)-1], ", ") + " and " + ps[len(ps)-1]
}

// BlockersByNode groups blockers by node, in the order they come.
func BlockersByNode(bs []Blocker) [][]Blocker {
	var out [][]Blocker
	for _, b := range bs {
		i := slices.IndexFunc(out, func(g []Blocker) bool { return g[0].ID == b.ID && g[0].Controller == b.Controller })
		if i < 0 {
			out = append(out, []Blocker{b})
			continue
		}
		out[i] = append(out[i], b)
	}
	return out
}
