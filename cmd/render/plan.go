// Package render renders ktopo's command-line output: plain text for people
// (with optional ANSI emphasis on a terminal) and JSON for scripts. It holds
// no Kafka logic of its own; it formats what assign and cluster compute.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/internal/text"
)

// Plan is a computed replica assignment with what produced it.
type Plan struct {
	// Brokers as given to the assignment, with every rack known (also when the
	// algorithm ran rack-unaware), so the matrix can show where replicas land.
	Brokers           []assign.Broker
	Partitions        int
	ReplicationFactor int
	// RackAwareDisabled is set when racks were known but ignored on request.
	RackAwareDisabled bool
	// StartPartition is the first partition id.
	StartPartition int
	// Manual marks an assignment given by hand (--replica-assignment):
	// there is no start index or shift to show.
	Manual bool
	// Topic and Existing describe partitions added to an existing topic
	// (Existing > 0): the matrix shows the new partitions only.
	Topic    string
	Existing int
	Result   assign.Result
	Stats    assign.Stats
	// Before, when set, is the assignment the plan replaces (a
	// reassignment): cells mark the replicas added (+L, +F) and removed
	// (-), and Header replaces the plan's first lines.
	Before assign.Assignment
	Header string
}

// NewPlan summarises an assignment result for display.
func NewPlan(brokers []assign.Broker, partitions, rf int, disabled bool, res assign.Result) Plan {
	start := 0
	if ps := res.Assignment.Partitions(); len(ps) > 0 {
		start = ps[0]
	}
	return Plan{
		Brokers: brokers, Partitions: partitions, ReplicationFactor: rf,
		RackAwareDisabled: disabled, StartPartition: start, Result: res,
		Stats: assign.ComputeStats(brokers, res.Assignment),
	}
}

// Style controls text rendering.
type Style struct {
	// Width is the number of columns available (80 when unknown).
	Width int
	// Color enables ANSI emphasis (leaders bold, empty cells dim).
	Color bool
}

const (
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
	ansiReset = "\x1b[0m"
)

// Reproduce returns the ktopo plan flags that give the same placement.
func (p Plan) Reproduce() string {
	if p.Result.Striped {
		return "--seed " + strconv.FormatInt(p.Result.Seed, 10)
	}
	s := "--start-index " + strconv.Itoa(p.Result.StartIndex)
	if p.Result.ReplicaShift != p.Result.StartIndex {
		s += " --replica-shift " + strconv.Itoa(p.Result.ReplicaShift)
	}
	if p.Existing > 0 {
		s += " --start-partition " + strconv.Itoa(p.StartPartition)
	}
	return s
}

// StripedLine names the KRaft controller's placer and the seed a
// placement was drawn with.
func StripedLine(seed int64) string {
	return "Placed as the KRaft controller places replicas (its StripedReplicaPlacer), seed " + strconv.FormatInt(seed, 10)
}

// Warnings lists what an operator should know about the plan's spread
// (assign.Stats.Warnings).
func (p Plan) Warnings() []string { return p.Stats.Warnings(p.ReplicationFactor) }

// WriteText prints the plan as a matrix of partitions by brokers, brokers
// grouped under their racks, with totals per broker and per rack.
func (p Plan) WriteText(w io.Writer, s Style) error {
	if s.Width <= 0 {
		s.Width = 80
	}
	var b strings.Builder
	mode := "rack-unaware (no broker has a rack)"
	switch {
	case p.Result.RackAware:
		mode = "rack-aware"
	case p.RackAwareDisabled:
		mode = "rack-unaware (--disable-rack-aware)"
	}
	nracks := 0
	for _, r := range p.Stats.Racks {
		if r.Rack != assign.NoRack {
			nracks++
		}
	}
	if p.Existing > 0 {
		fmt.Fprintf(&b, "Plan: %s for %s (%d → %d), replication factor %d (partition 0's), %s", text.Count(p.Partitions, "new partition"),
			p.Topic, p.Existing, p.Existing+p.Partitions, p.ReplicationFactor, text.Count(len(p.Brokers), "broker"))
	} else {
		fmt.Fprintf(&b, "Plan: %s, replication factor %d, %s", text.Count(p.Partitions, "partition"), p.ReplicationFactor, text.Count(len(p.Brokers), "broker"))
	}
	if nracks > 0 {
		fmt.Fprintf(&b, " in %s", text.Count(nracks, "rack"))
	}
	if p.Header != "" {
		b.Reset()
		b.WriteString(p.Header + "\n\n")
	} else if p.Manual {
		b.WriteString(", manual assignment (--replica-assignment)\n\n")
	} else if p.Result.Striped {
		fmt.Fprintf(&b, ", %s\n", mode)
		fmt.Fprintf(&b, "%s (reproduce with %s)\n\n", StripedLine(p.Result.Seed), p.Reproduce())
	} else {
		fmt.Fprintf(&b, ", %s\n", mode)
		from := ""
		if p.Existing > 0 {
			from = ", from partition 0's first replica"
		}
		fmt.Fprintf(&b, "Start index %d%s, replica shift %d (reproduce with %s)\n\n", p.Result.StartIndex, from, p.Result.ReplicaShift, p.Reproduce())
	}

	for _, chunk := range p.columnChunks(s.Width) {
		p.writeMatrix(&b, chunk, s)
		b.WriteByte('\n')
	}
	b.WriteString("L = leader (preferred replica), F = follower")
	if p.Before != nil {
		b.WriteString(", + = added, - = removed")
	}
	if nracks > 0 {
		b.WriteString(", racks = racks the partition spans")
	}
	b.WriteString(".\n")
	if p.Stats.Even() {
		b.WriteString("Replicas and leaders are spread as evenly as the counts allow.\n")
	}
	for _, warn := range p.Warnings() {
		fmt.Fprintf(&b, "Warning: %s.\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// column is one broker column of the matrix.
type column struct {
	stat  assign.BrokerStats
	width int
}

// group is the run of columns under one rack heading.
type group struct {
	rack string
	cols []column
}

// groups orders broker columns by rack name, then id; brokers the
// assignment names but the broker list lacks go under "unknown". Columns get
// `spacing` blanks beside the widest value.
func (p Plan) groups(spacing int) []group {
	byRack := map[string][]assign.BrokerStats{}
	for _, bs := range p.Stats.Brokers {
		key := bs.Rack
		if !bs.Known {
			key = "\x00unknown"
		}
		byRack[key] = append(byRack[key], bs)
	}
	keys := make([]string, 0, len(byRack))
	for k := range byRack {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []group
	for _, k := range keys {
		g := group{rack: k}
		if k == "\x00unknown" {
			g.rack = "unknown"
		}
		bss := byRack[k]
		slices.SortFunc(bss, func(a, b assign.BrokerStats) int { return a.ID - b.ID })
		span := 0
		for _, bs := range bss {
			width := max(3, len(strconv.Itoa(bs.ID))+spacing, len(strconv.Itoa(bs.Replicas))+spacing)
			g.cols = append(g.cols, column{stat: bs, width: width})
			span += width
		}
		// Widen the rack's last column so that its name fits above it.
		if need := len([]rune(g.rack)) + 1; g.rack != assign.NoRack && need > span {
			g.cols[len(g.cols)-1].width += need - span
		}
		out = append(out, g)
	}
	return out
}

const (
	labelWidth = 10 // "partition" + 1
	groupGap   = 1  // blanks between rack groups
	tailWidth  = 6  // " racks" column
)

// columnChunks splits the rack groups into pieces that fit the width: first
// with roomy columns, then compact ones, and only then over several blocks
// (a rack wider than the width is split across blocks).
func (p Plan) columnChunks(width int) [][]group {
	avail := max(width-labelWidth-tailWidth, 6)
	gs := p.groups(2)
	if total(gs) > avail {
		gs = p.groups(1)
	}
	var chunks [][]group
	var cur []group
	used := 0
	for _, g := range gs {
		for _, c := range g.cols {
			if used+c.width > avail && used > 0 {
				chunks = append(chunks, cur)
				cur, used = nil, 0
			}
			if len(cur) == 0 || cur[len(cur)-1].rack != g.rack {
				cur = append(cur, group{rack: g.rack})
				used += groupGap
			}
			cur[len(cur)-1].cols = append(cur[len(cur)-1].cols, c)
			used += c.width
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// total is the width of the groups' columns and gaps.
func total(gs []group) int {
	w := 0
	for _, g := range gs {
		w += groupGap
		for _, c := range g.cols {
			w += c.width
		}
	}
	return w
}

func (p Plan) writeMatrix(out *strings.Builder, gs []group, s Style) {
	var b strings.Builder
	defer func() {
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			body, nl := strings.CutSuffix(line, "\n")
			out.WriteString(strings.TrimRight(body, " "))
			if nl {
				out.WriteByte('\n')
			}
		}
	}()
	gap := strings.Repeat(" ", groupGap)
	named := false
	for _, g := range gs {
		if g.rack != assign.NoRack {
			named = true
		}
	}
	if named {
		b.WriteString(pad("", labelWidth))
		for _, g := range gs {
			span := 0
			for _, c := range g.cols {
				span += c.width
			}
			name := g.rack
			if name == assign.NoRack {
				name = "-" // brokers without a rack, beside brokers with one
			}
			b.WriteString(gap + pad(truncate(name, span-1), span))
		}
		b.WriteByte('\n')
	}
	b.WriteString(pad("partition", labelWidth))
	for _, g := range gs {
		b.WriteString(gap)
		for _, c := range g.cols {
			b.WriteString(pad(strconv.Itoa(c.stat.ID), c.width))
		}
	}
	if named {
		b.WriteString(" racks")
	}
	b.WriteByte('\n')

	for _, part := range p.Result.Assignment.Partitions() {
		replicas := p.Result.Assignment[part]
		b.WriteString(pad(strconv.Itoa(part), labelWidth))
		for _, g := range gs {
			b.WriteString(gap)
			for _, c := range g.cols {
				cell := p.cell(part, replicas, c.stat.ID)
				b.WriteString(emphasize(pad(cell, c.width), cell, s.Color))
			}
		}
		if named {
			fmt.Fprintf(&b, "%6d", p.Stats.RacksSpanned[part])
		}
		b.WriteByte('\n')
	}

	row := func(label string, f func(assign.BrokerStats) int) {
		b.WriteString(pad(label, labelWidth))
		for _, g := range gs {
			b.WriteString(gap)
			for _, c := range g.cols {
				b.WriteString(pad(strconv.Itoa(f(c.stat)), c.width))
			}
		}
		b.WriteByte('\n')
	}
	row("replicas", func(bs assign.BrokerStats) int { return bs.Replicas })
	row("leaders", func(bs assign.BrokerStats) int { return bs.Leaders })
	if named {
		rackRow := func(label string, f func(assign.RackStats) int) {
			b.WriteString(pad(label, labelWidth))
			for _, g := range gs {
				span := 0
				for _, c := range g.cols {
					span += c.width
				}
				b.WriteString(gap + pad(strconv.Itoa(f(p.rackStats(g.rack))), span))
			}
			b.WriteByte('\n')
		}
		rackRow("rack repl", func(r assign.RackStats) int { return r.Replicas })
		rackRow("rack lead", func(r assign.RackStats) int { return r.Leaders })
	}
}

// cell is a broker's mark in a partition's row: L (leader), F (follower),
// . (no replica); against Before, +L and +F for added replicas and - for
// removed ones.
func (p Plan) cell(part int, replicas []int, broker int) string {
	cell := "."
	if i := slices.Index(replicas, broker); i == 0 {
		cell = "L"
	} else if i > 0 {
		cell = "F"
	}
	if p.Before == nil {
		return cell
	}
	was := slices.Contains(p.Before[part], broker)
	switch {
	case cell == "." && was:
		return "-"
	case cell != "." && !was:
		return "+" + cell
	}
	return cell
}

func (p Plan) rackStats(rack string) assign.RackStats {
	for _, r := range p.Stats.Racks {
		if r.Rack == rack {
			return r
		}
	}
	// The "unknown" group: brokers outside the list.
	var rs assign.RackStats
	for _, bs := range p.Stats.Brokers {
		if !bs.Known {
			rs.Replicas += bs.Replicas
			rs.Leaders += bs.Leaders
		}
	}
	return rs
}

func emphasize(text, cell string, color bool) string {
	if !color {
		return text
	}
	switch cell {
	case "L", "+L":
		return ansiBold + text + ansiReset
	case ".":
		return ansiDim + text + ansiReset
	}
	return text
}

// pad left-aligns s in a field of n columns (s is ASCII or short).
func pad(s string, n int) string {
	if w := len([]rune(s)); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-1]) + "…"
}

// planJSON is the --output json shape.
type planJSON struct {
	Brokers           []brokerJSON      `json:"brokers"`
	Partitions        int               `json:"partitions"`
	ReplicationFactor int               `json:"replicationFactor"`
	RackAware         bool              `json:"rackAware"`
	StartIndex        int               `json:"startIndex"`
	ReplicaShift      int               `json:"replicaShift"`
	Placer            string            `json:"placer"`
	Seed              *int64            `json:"seed,omitempty"`
	StartPartition    int               `json:"startPartition"`
	BrokerOrder       []int             `json:"brokerOrder"`
	Assignment        assign.Assignment `json:"assignment"`
	Stats             assign.Stats      `json:"stats"`
	Warnings          []string          `json:"warnings"`
}

type brokerJSON struct {
	ID   int     `json:"id"`
	Rack *string `json:"rack"`
}

// WriteJSON prints the plan as one JSON object.
func (p Plan) WriteJSON(w io.Writer) error {
	out := planJSON{
		Partitions: p.Partitions, ReplicationFactor: p.ReplicationFactor,
		RackAware: p.Result.RackAware, StartIndex: p.Result.StartIndex, ReplicaShift: p.Result.ReplicaShift,
		StartPartition: p.StartPartition, BrokerOrder: p.Result.Order, Assignment: p.Result.Assignment,
		Stats: p.Stats, Warnings: p.Warnings(), Placer: "AdminUtils",
	}
	if p.Result.Striped {
		seed := p.Result.Seed
		out.Placer, out.Seed = "StripedReplicaPlacer", &seed
	}
	out.Brokers = make([]brokerJSON, 0, len(p.Brokers))
	for _, b := range p.Brokers {
		bj := brokerJSON{ID: b.ID}
		if b.HasRack {
			r := b.Rack
			bj.Rack = &r
		}
		out.Brokers = append(out.Brokers, bj)
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
