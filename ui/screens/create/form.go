package create

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/theme"
)

// field is a form field, in tab order.
type field uint8

const (
	fName field = iota
	fPartitions
	fRF
	fRack
	fConfigs
	fManual
	nFields
)

var labels = [nFields]string{"Name", "Partitions", "Replication factor", "Rack-aware", "Configs", "Manual assignment"}

// labelW is the width of the label column.
const labelW = 22

// form holds the form's fields and their validation. Validation runs on
// every change (in Update, never in View) and stores Kafka's messages.
type form struct {
	in       [nFields]textinput.Model // fRack has no text
	rackOff  bool                     // --disable-rack-aware
	focus    field
	touched  [nFields]bool
	errs     [nFields]string
	warns    [nFields]string
	hints    [nFields]string
	ok       [nFields]string
	msg      string // why enter did not lead to the preview
	defaults bool
	w        int
	cf       wizard.ConfigField
}

func (f *form) init(st theme.Styles, km *keys.Wizard) {
	for i := range f.in {
		ti := theme.NewInput(st, "")
		// tab is the wizard's (Complete, else Next); ctrl+n and ctrl+p go
		// through the completions.
		ti.KeyMap.AcceptSuggestion = key.NewBinding(key.WithDisabled())
		ti.KeyMap.NextSuggestion, ti.KeyMap.PrevSuggestion = km.NextMatch, km.PrevMatch
		f.in[i] = ti
	}
	f.in[fName].Placeholder = "e.g. orders"
	f.in[fConfigs].Placeholder = "key=value …  (tab completes keys)"
	f.in[fConfigs].ShowSuggestions = true
	f.in[fManual].Placeholder = "optional, e.g. 1:2:3,2:3:1 (replaces partitions and RF)"
	f.cf = wizard.NewConfigField()
	f.focusField(fName)
}

func (f *form) setWidth(w int) {
	f.w = w
	for i := range f.in {
		f.in[i].SetWidth(max(w-labelW-4, 8)) // and a column for the cursor
	}
}

func (f *form) focusField(fl field) {
	for i := range f.in {
		f.in[i].Blur()
	}
	f.focus = fl
	if fl != fRack {
		f.in[fl].Focus()
		f.in[fl].CursorEnd()
	}
}

func (f *form) blur() {
	for i := range f.in {
		f.in[i].Blur()
	}
}

// setDefaults fills partitions and replication factor from the cluster
// the first time one is known: twice the live brokers (an even spread) and
// three replicas, or fewer on a small cluster.
func (f *form) setDefaults(s *cluster.Snapshot) {
	if f.defaults {
		return
	}
	f.defaults = true
	live := len(s.LiveBrokerIDs())
	if !f.touched[fPartitions] && f.in[fPartitions].Value() == "" {
		f.in[fPartitions].SetValue(strconv.Itoa(max(2*live, 1)))
	}
	if !f.touched[fRF] && f.in[fRF].Value() == "" {
		f.in[fRF].SetValue(strconv.Itoa(max(min(3, live), 1)))
	}
}

func (f *form) manual() bool { return strings.TrimSpace(f.in[fManual].Value()) != "" }

func (f *form) mode() cluster.RackAwareMode {
	if f.rackOff {
		return cluster.RackAwareDisabled
	}
	return cluster.RackAwareEnforced
}

// update handles a key or a paste in the form; km has the form's keys
// enabled for the focused field (Toggle on the rack mode, Complete on the
// configs).
func (f *form) update(msg tea.Msg, s *cluster.Snapshot, km *keys.Wizard) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, km.Complete) && f.focus == fConfigs && f.complete():
			f.afterEdit(s)
			return nil
		case key.Matches(k, km.Next):
			f.move(1)
			return nil
		case key.Matches(k, km.Prev):
			f.move(-1)
			return nil
		case key.Matches(k, km.Clear):
			if f.focus != fRack {
				f.in[f.focus].SetValue("")
				f.touched[f.focus] = true
				f.afterEdit(s)
			}
			return nil
		case key.Matches(k, km.Toggle) && f.focus == fRack:
			f.rackOff = !f.rackOff
			f.touched[fRack] = true
			f.afterEdit(s)
			return nil
		}
		if f.focus == fRack {
			return nil
		}
	}
	if f.focus == fRack {
		return nil
	}
	before := f.in[f.focus].Value()
	var cmd tea.Cmd
	f.in[f.focus], cmd = f.in[f.focus].Update(msg)
	if f.in[f.focus].Value() != before {
		f.touched[f.focus] = true
		f.msg = ""
	}
	f.afterEdit(s)
	return cmd
}

func (f *form) move(d int) {
	f.focusField(field((int(f.focus) + d + int(nFields)) % int(nFields)))
	f.msg = ""
}

// afterEdit refreshes completions, validation and hints.
func (f *form) afterEdit(s *cluster.Snapshot) {
	if f.focus == fConfigs {
		f.suggest()
	}
	if s != nil {
		f.validate(s)
	}
}

// suggest offers completions for the config entry being typed.
func (f *form) suggest() { f.cf.Suggest(&f.in[fConfigs]) }

// complete accepts the shown completion; false when there is none.
func (f *form) complete() bool {
	if !wizard.Complete(&f.in[fConfigs]) {
		return false
	}
	f.touched[fConfigs] = true
	return true
}

// configTokens splits the configs field into key=value entries.
func (f *form) configTokens() []string { return strings.Fields(f.in[fConfigs].Value()) }

// validateConfigs checks each entry as typed, then the cross-key rules.
func (f *form) validateConfigs() {
	e, ok, hint := f.cf.Check(&f.in[fConfigs], f.focus == fConfigs)
	if e != "" {
		f.errs[fConfigs] = e
	}
	if ok != "" {
		f.ok[fConfigs] = ok
	}
	f.hints[fConfigs] = hint
}

// parseCount parses a numeric field as joptsimple does for kafka-topics'
// integer options.
func parseCount(s, option string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		return 0, wizard.Error("Cannot parse argument '" + s + "' of option " + option)
	}
	return int(n), nil
}

// validate recomputes every field's message against s.
func (f *form) validate(s *cluster.Snapshot) {
	f.errs, f.warns, f.hints, f.ok = [nFields]string{}, [nFields]string{}, [nFields]string{}, [nFields]string{}
	name := f.in[fName].Value()
	if err := cluster.ValidateTopicNameAvailable(name, s); err != nil {
		f.errs[fName] = err.Error()
	} else {
		f.ok[fName] = "available"
		if cluster.HasCollisionChars(name) {
			f.warns[fName] = cluster.CollisionWarning
		}
	}
	f.hints[fName] = "letters, digits, '.', '_' and '-'; at most 249"

	live := len(s.LiveBrokerIDs())
	racks := 0
	for _, r := range s.Racks() {
		if r.Kind == cluster.RackNamed && r.Live > 0 {
			racks++
		}
	}
	if f.manual() {
		msg := "replaced by the manual assignment"
		f.hints[fPartitions], f.hints[fRF], f.hints[fRack] = msg, msg, "not used with a manual assignment"
	} else {
		p, perr := parseCount(f.in[fPartitions].Value(), "partitions")
		rf, rerr := parseCount(f.in[fRF].Value(), "replication-factor")
		switch {
		case perr != nil:
			f.errs[fPartitions] = perr.Error()
		case p <= 0:
			f.errs[fPartitions] = assign.MessagePartitionsMustBePositive
		default:
			if err := clusterops.CheckPartitionCount(p); err != nil {
				f.errs[fPartitions] = err.Error()
			}
		}
		// The replication factor and racks are checked whatever the
		// partitions say, so that every field shows its own message (the
		// count is the Partitions field's, checked above).
		if rerr != nil {
			f.errs[fRF] = rerr.Error()
		} else if err := clusterops.CheckPlacement(s, min(max(p, 1), clusterops.MaxPartitions), rf, f.mode()); err != nil {
			f.errs[fieldOf(err)] = err.Error()
		}
		if f.errs[fPartitions] == "" && f.errs[fRF] == "" && f.errs[fRack] == "" {
			f.ok[fPartitions] = strconv.Itoa(p*rf) + " replicas in all"
			if n := live - cordonedLive(s); n > 0 { // a cordoned broker gets none
				f.ok[fPartitions] += ", about " + strconv.Itoa((p*rf+n-1)/n) + " per broker"
			}
		}
		f.hints[fRF] = "copies of each partition, at most the " + strconv.Itoa(live) + " live brokers"
		if n := cordonedLive(s); n > 0 {
			f.hints[fRF] = "copies of each partition, at most the " + strconv.Itoa(live-n) + " live brokers not cordoned"
		}
		if f.rackOff {
			f.hints[fRack] = "racks are ignored (--disable-rack-aware); space switches"
		} else {
			f.hints[fRack] = "a partition's replicas go to different racks (" + strconv.Itoa(racks) + " racks); space switches"
		}
	}
	f.validateConfigs()
	if f.manual() {
		a, err := assign.ParseReplicaAssignment(f.in[fManual].Value())
		if err == nil {
			err = cluster.ValidateAssignment(a)
		}
		if err != nil {
			f.errs[fManual] = err.Error()
		} else {
			ps := a.Partitions()
			f.ok[fManual] = strconv.Itoa(len(ps)) + " partitions, replication factor " + strconv.Itoa(len(a[ps[0]]))
			var unknown []int
			for _, id := range ps {
				for _, r := range a[id] {
					if !s.IsLive(r) && !slices.Contains(unknown, r) {
						unknown = append(unknown, r)
					}
				}
			}
			if len(unknown) > 0 {
				slices.Sort(unknown)
				f.warns[fManual] = text.Plural(len(unknown), "broker ", "brokers ") + text.Join(unknown, ", ") + text.Plural(len(unknown), " is", " are") +
					" not registered: Kafka accepts this, but such partitions stay offline until one registers"
			}
		}
	}
	f.hints[fManual] = "one replica list per partition, leader first, e.g. 1:2:3,2:3:1"
}

// request builds the creation request, failing in kafka-topics' order on
// what the form alone can check (numbers, configs, the manual
// assignment); PlanTopic checks the rest.
func (f *form) request(s *cluster.Snapshot) (clusterops.TopicRequest, field, error) {
	req := clusterops.TopicRequest{Name: f.in[fName].Value(), RackAware: f.mode()}
	if !f.manual() {
		var err error
		if req.Partitions, err = parseCount(f.in[fPartitions].Value(), "partitions"); err != nil {
			return req, fPartitions, err
		}
		if req.ReplicationFactor, err = parseCount(f.in[fRF].Value(), "replication-factor"); err != nil {
			return req, fRF, err
		}
	}
	cfg, err := cluster.ParseConfigArgs(f.configTokens())
	if err != nil {
		return req, fConfigs, err
	}
	req.Config = cfg
	if f.manual() {
		if req.Assignment, err = assign.ParseReplicaAssignment(f.in[fManual].Value()); err != nil {
			return req, fManual, err
		}
	}
	return req, 0, nil
}

// fail shows why the form cannot go on and puts the cursor on the field,
// which shows the error too (until the next edit checks it again).
func (f *form) fail(fl field, err error) {
	f.msg = "Cannot preview: " + err.Error()
	if f.errs[fl] == "" {
		f.errs[fl], f.ok[fl] = err.Error(), ""
	}
	for i := range f.touched {
		f.touched[i] = true
	}
	f.focusField(fl)
}

// fieldOf is the form field a creation error is about.
func fieldOf(err error) field {
	msg := err.Error()
	var ae *assign.Error
	class := cluster.ErrorClass(err)
	if errors.As(err, &ae) {
		class = ae.Class
	}
	switch class {
	case cluster.ClassInvalidTopic, cluster.ClassTopicExists:
		return fName
	case assign.InvalidPartitions:
		return fPartitions
	case assign.InvalidReplicationFactor:
		return fRF
	case cluster.ClassInvalidConfiguration, cluster.ClassConfig, cluster.ClassIllegalArgument:
		return fConfigs
	case cluster.ClassInvalidReplicaAssignment, assign.NumberFormat, assign.AdminCommandFailed:
		return fManual
	case cluster.ClassAdminOperation:
		if strings.HasPrefix(msg, "Partition ") {
			return fManual
		}
		return fRack
	}
	return fRack
}
