package operate

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/theme"
)

// A reassignment by bytes. Replica counts say what moves, not how long it
// takes: one partition can hold more than the others together. The shell
// hands the wizard every reading of the brokers' log directories
// (cluster.Sizes, SetSizes); from the plan and the newest reading the
// preview shows what each strategy copies (clusterops.BytesOfMoves), who
// sends and receives how much, how long it takes under each throttle, and
// refuses a plan that would fill a broker's disks (clusterops.CheckDisk).
// Once written, the progress is measured on the new replicas' sizes
// (clusterops.ProgressOf) and the time left re-estimated at each reading.
// Without sizes, everything counts replicas only, as before, and one line
// says why.

// moveCost is what the plan copies by the sizes, made once per plan and
// reading (costs), never while drawing.
type moveCost struct {
	// gen and sizes are the plan and the reading byStrategy was made
	// from.
	gen   *clusterops.GeneratePlan
	sizes *cluster.Sizes
	// byStrategy are the bytes each strategy's moves copy; mb the chosen
	// strategy's.
	byStrategy map[clusterops.Strategy]clusterops.MoveBytes
	mb         clusterops.MoveBytes
	// short are the brokers the chosen moves would fill past their disks'
	// usable bytes (enter writes nothing); heavy the warnings of brokers
	// they leave far above the mean bytes.
	short []clusterops.DiskShortfall
	heavy []string
}

// sized implements sizer: a new reading re-measures the preview's plan,
// or the progress of the one written.
func (r *reassign) sized() {
	switch {
	case r.fr.Stage <= wizard.StagePreview && r.snap != nil && !r.planSizes.Known() && r.sizes.Known():
		// The first sizes: the plan is made again by bytes.
		r.replan()
	case r.fr.Stage <= wizard.StagePreview:
		r.costs()
	case r.plan != nil:
		r.moved.measure(r.snap, r.sizes, r.plan.Moves, &r.pr)
		r.bytesNow = r.moved.status()
	}
}

// costs measures the plan by the newest sizes: every strategy's bytes
// once per plan and reading, the chosen one's disk check and heavy
// brokers.
func (r *reassign) costs() {
	c := &r.cost
	if c.gen != r.gen || c.sizes != r.sizes || c.byStrategy == nil {
		c.gen, c.sizes = r.gen, r.sizes
		c.byStrategy = map[clusterops.Strategy]clusterops.MoveBytes{}
		if r.gen != nil && r.snap != nil {
			for _, stg := range clusterops.Strategies() {
				c.byStrategy[stg] = clusterops.BytesOfMoves(r.snap, r.sizes, r.gen.Moves(stg))
			}
		}
	}
	c.mb, c.short, c.heavy = clusterops.MoveBytes{}, nil, nil
	if r.snap == nil {
		return
	}
	// The preview's moves are the chosen strategy's (choose).
	c.mb = c.byStrategy[r.strategy]
	if r.leadingFirst() {
		c.mb = leadersFirst(r.snap, r.sizes, c.mb, r.moves, r.lead.plan)
	}
	if !c.mb.Known {
		return
	}
	c.short = clusterops.CheckDisk(r.sizes, c.mb)
	c.heavy = r.heavyBytesLines()
}

// leadersFirst is mb once a drain's leadership step has moved the
// leaders off the drained broker: the new replicas of those partitions
// copy from their new leader, which sends what the drained broker would
// have (the step runs before any copy, so the ETA is the new sender's).
func leadersFirst(s *cluster.Snapshot, sz *cluster.Sizes, mb clusterops.MoveBytes, moves []clusterops.PartitionMove, lead *clusterops.LeadershipFirst) clusterops.MoveBytes {
	if !mb.Known || lead.Empty() {
		return mb
	}
	to := map[cluster.TopicPartition]int{}
	for _, lm := range lead.Moves {
		to[lm.TopicPartition] = lm.To
	}
	// The maps are the strategy's, shared with its line: changed on
	// copies.
	mb.Out, mb.OutRate, mb.Matrix = maps.Clone(mb.Out), maps.Clone(mb.OutRate), maps.Clone(mb.Matrix)
	for _, m := range moves {
		next, ok := to[m.TopicPartition]
		if !ok {
			continue
		}
		t := s.Topic(m.Topic)
		if t == nil {
			continue
		}
		p := t.Partition(m.Partition)
		n, known := sz.PartitionBytes(m.Topic, m.Partition)
		if p == nil || !p.HasLeader() || !known || p.Leader == next {
			continue
		}
		var rate float64
		if ps, ok := sz.Partition(m.Topic, m.Partition); ok && ps.RateKnown {
			rate = ps.Rate
		}
		for _, b := range m.Adding() {
			move(mb.Out, p.Leader, next, n)
			move(mb.Matrix, [2]int{p.Leader, b}, [2]int{next, b}, n)
			mb.OutRate[p.Leader] -= rate
			mb.OutRate[next] += rate
		}
	}
	return mb
}

// move moves n from key a to key b of m, dropping a once it is empty.
func move[K comparable](m map[K]int64, a, b K, n int64) {
	m[b] += n
	if m[a] -= n; m[a] <= 0 {
		delete(m, a)
	}
}

// heavyBytesLines warn of the brokers the chosen moves leave far above
// the mean bytes (clusterops.HeavyBytes), beside heavy.go's replica
// counts: an even count of replicas can still be uneven on disk.
func (r *reassign) heavyBytesLines() []string {
	ids, mean := clusterops.HeavyBytes(r.snap, r.sizes, r.moves)
	if len(ids) == 0 {
		return nil
	}
	after := clusterops.BytesAfter(r.snap, r.sizes, r.moves)
	var out []string
	for _, id := range ids {
		if r.cost.mb.In[id] == 0 {
			// Heavy before the plan and given nothing by it: no strategy
			// or throttle of this plan changes that.
			continue
		}
		s := "broker " + strconv.Itoa(id) + " would hold " + cluster.FormatBytes(after[id])
		if d, ok := r.sizes.Broker(id); ok {
			s += " (" + cluster.FormatBytes(d.Bytes) + " now)"
		}
		s += ", " + strconv.Itoa(int(math.Round(100*(float64(after[id])/mean-1)))) + "% above the mean of " + cluster.FormatBytes(int64(mean))
		out = append(out, s)
	}
	return out
}

// strategyBytes is what strategy stg copies, for its strategy line: ""
// without sizes.
func (r *reassign) strategyBytes(stg clusterops.Strategy) string {
	mb, ok := r.cost.byStrategy[stg]
	if !ok || !mb.Known {
		return ""
	}
	return " (" + atLeast(mb) + cluster.FormatBytes(mb.Total) + ")"
}

// atLeast marks a total that leaves out partitions no broker reported.
func atLeast(mb clusterops.MoveBytes) string {
	if mb.Unknown > 0 {
		return "≥ "
	}
	return ""
}

// matrixRows and matrixRowsTall are how many sending brokers the matrix
// shows on a short and on a tall screen; the rest are folded into a line.
const (
	matrixRows     = 3
	matrixRowsTall = 6
	// matrixColW is a byte count's column ("1023 MiB" and a gap).
	matrixColW = 10
)

// bytesLines are the preview's lines by bytes: the total, the source ×
// destination matrix with what each broker sends and receives, the ETA
// under each throttle (the matrix not while the exact writes are open);
// one muted line when sizes are unknown; nil before
// the wizard was told anything of sizes.
func (r *reassign) bytesLines(w int) []string {
	st := &r.st
	if r.sizes == nil {
		return nil
	}
	mb := r.cost.mb
	if !mb.Known {
		return []string{cell.Clip(" "+st.Muted.S(r.sizes.Why()+": the plan counts replicas only"), w)}
	}
	s := "bytes: " + atLeast(mb) + cluster.FormatBytes(mb.Total) + " to copy"
	if mb.Unknown > 0 {
		s += " (" + text.Count(mb.Unknown, "partition") + " of unknown size counted as 0)"
	}
	if r.sizes.StaleWhy != "" {
		s += " · sizes of an earlier reading: the newest failed (" + strings.TrimPrefix(r.sizes.StaleWhy, "sizes unknown: ") + ")"
	}
	var out []string
	for _, l := range wizard.Wrap(s, w, 1) {
		out = append(out, st.Text.S(l))
	}
	if mb.Total > 0 && !r.fr.Ops.Shown() {
		// The matrix gives way to the exact writes while they are open
		// (w): the total and the ETA stay.
		out = append(out, matrixLines(st, mb, w, r.h)...)
	}
	return append(out, r.etaLines(w)...)
}

// matrixLines draw who copies to whom: a row per sending broker (its
// total on the right), a column per receiving broker (its total below),
// only the brokers involved; beyond what fits, the rest are folded into
// a line each.
func matrixLines(st *theme.Styles, mb clusterops.MoveBytes, w, h int) []string {
	var srcs, dsts []int
	for _, id := range mb.Brokers() {
		if mb.Out[id] > 0 {
			srcs = append(srcs, id)
		}
		if mb.In[id] > 0 {
			dsts = append(dsts, id)
		}
	}
	labelW := len("from \\ to")
	maxRows := matrixRows
	if h >= 40 {
		maxRows = matrixRowsTall
	}
	maxCols := max((w-2-labelW-matrixColW)/matrixColW, 1)
	srcs, restSrc := biggest(srcs, mb.Out, maxRows)
	dsts, restDst := biggest(dsts, mb.In, maxCols)
	var b strings.Builder
	row := func(label string, cells []string, total string) string {
		b.Reset()
		b.WriteByte(' ')
		b.WriteString(cell.Fit(label, labelW))
		for _, c := range cells {
			b.WriteString(cell.FitRight(c, matrixColW))
		}
		b.WriteString(cell.FitRight(total, matrixColW))
		return b.String()
	}
	cells := make([]string, len(dsts))
	for i, d := range dsts {
		cells[i] = "→ " + strconv.Itoa(d)
	}
	out := []string{st.Muted.S(cell.Clip(row("from \\ to", cells, "sends"), w))}
	for _, s := range srcs {
		for i, d := range dsts {
			cells[i] = "·"
			if n := mb.Matrix[[2]int{s, d}]; n > 0 {
				cells[i] = cluster.FormatBytes(n)
			}
		}
		out = append(out, cell.Clip(row("broker "+strconv.Itoa(s), cells, cluster.FormatBytes(mb.Out[s])), w))
	}
	for i, d := range dsts {
		cells[i] = cluster.FormatBytes(mb.In[d])
	}
	out = append(out, cell.Clip(row("receives", cells, cluster.FormatBytes(mb.Total)), w))
	fold := func(ids []int, by map[int]int64, verb string) {
		if len(ids) == 0 {
			return
		}
		var sum int64
		for _, id := range ids {
			sum += by[id]
		}
		l := " + " + text.Count(len(ids), "more broker") + " " + verb + " " + cluster.FormatBytes(sum) + " (" + text.Ints(ids) + ")"
		out = append(out, st.Muted.S(cell.Clip(l, w)))
	}
	fold(restSrc, mb.Out, text.Plural(len(restSrc), "sends", "send"))
	fold(restDst, mb.In, text.Plural(len(restDst), "receives", "receive"))
	return out
}

// biggest keeps the n ids with the most bytes (in id order) and returns
// the rest (in id order too).
func biggest(ids []int, by map[int]int64, n int) (kept, rest []int) {
	if len(ids) <= n {
		return ids, nil
	}
	sorted := slices.Clone(ids)
	slices.SortStableFunc(sorted, func(a, b int) int { return cmp.Compare(by[b], by[a]) })
	kept, rest = sorted[:n], sorted[n:]
	slices.Sort(kept)
	slices.Sort(rest)
	return kept, rest
}

// etaLines are how long the chosen moves take under the chosen throttle
// and under the others `t` offers ("throttle 10 MiB/s: about 4m10s
// (broker 3 receiving) · 50 MiB/s: about 50s · 100 MiB/s: about 25s ·
// none: as fast as the network allows"), and a warning when the chosen
// one never finishes.
func (r *reassign) etaLines(w int) []string {
	st := &r.st
	mb := r.cost.mb
	if mb.Total == 0 {
		return nil
	}
	chosen := mb.ETA(r.throttle)
	parts := []string{"ETA: throttle " + throttleText(r.throttle) + ": " + etaText(chosen, true)}
	// The others from the slowest throttle up, none last: the order of
	// the question "how much faster if I raise it?".
	for _, t := range append(slices.Clone(throttles[1:]), throttles[0]) {
		if t != r.throttle {
			parts = append(parts, throttleText(t)+": "+etaText(mb.ETA(t), false))
		}
	}
	ink := st.Text
	if chosen.Never {
		ink = st.Warning
	}
	var out []string
	for _, l := range wizard.Wrap(strings.Join(parts, " · "), w, 1) {
		out = append(out, ink.S(l))
	}
	if chosen.Never {
		out = append(out, warningLines(st, w, []string{"at " + throttleText(r.throttle) + " the copy never ends: the partitions broker " +
			strconv.Itoa(chosen.Broker) + " is " + side(chosen) + " grow faster than the throttle; t raises it"})...)
	}
	return out
}

// etaText is an estimate in a preview's ETA line: the chosen throttle's
// in full (which broker sets the pace), the others short.
func etaText(e clusterops.ETA, full bool) string {
	switch {
	case !e.Known:
		return "as fast as the network allows"
	case e.Never:
		return "never"
	case full:
		return e.String()
	case e.Duration == 0:
		return "nothing to copy"
	}
	return clusterops.About(e.Duration)
}

// side is what the broker that sets an estimate's pace does.
func side(e clusterops.ETA) string {
	if e.In {
		return "receiving"
	}
	return "sending"
}

// diskLines refuse a plan that would fill a broker's log directories, as
// Kafka's own refusals do: enter writes nothing.
func (r *reassign) diskLines(w int) []string {
	var out []string
	for _, d := range r.cost.short {
		for _, l := range wizard.Wrap("✗ "+d.Error()+": enter writes nothing; s tries another strategy.", w, 1) {
			out = append(out, r.st.Error.S(l))
		}
	}
	return out
}

// popupBytes is the popup's line of bytes and time ("" without sizes).
func (r *reassign) popupBytes() string {
	mb := r.cost.mb
	if !mb.Known {
		return ""
	}
	s := atLeast(mb) + cluster.FormatBytes(mb.Total) + " to copy"
	e := mb.ETA(r.throttle)
	switch {
	case mb.Total == 0:
	case !e.Known:
		s += ", as fast as the network allows"
	case e.Never:
		s += ": never ends at " + throttleText(r.throttle)
	default:
		s += ", about " + clusterops.FormatDuration(e.Duration) + " at " + throttleText(r.throttle)
	}
	return s
}

// copyTop is how many partitions still copying the progress names.
const copyTop = 3

// moved is a written reassignment's progress by bytes, as shown: it
// never goes backwards on screen, though a reading can (a partition that
// grew, a replica that restarted its copy).
type moved struct {
	// est is the preview's estimate of the moves written, at their
	// throttle; startAt when the reading it was made from was taken:
	// the time left is measured between readings taken after it (before,
	// nothing was copying). prev is the progress at the reading before
	// cur's.
	est     clusterops.ETA
	startAt time.Time
	prev    *clusterops.MoveProgress
	cur     clusterops.MoveProgress
	eta     clusterops.ETA
	// copied and pct are the most shown so far; total the newest total
	// (at least copied). parts are the most shown per partition.
	copied, total int64
	pct           float64
	parts         map[cluster.TopicPartition]int64
	known         bool
}

// start takes the moves written and the preview's estimate for them;
// the progress follows with the first observe.
func (m *moved) start(snap *cluster.Snapshot, sz *cluster.Sizes, moves []clusterops.PartitionMove, throttle int64) {
	*m = moved{est: clusterops.BytesOfMoves(snap, sz, moves).ETA(throttle), parts: map[cluster.TopicPartition]int64{}}
	if sz.Known() {
		m.startAt = sz.At
	}
}

// measure takes a snapshot or a reading: the progress of moves in snap
// by sz (pr their phases), the time left re-estimated from the reading
// before.
func (m *moved) measure(snap *cluster.Snapshot, sz *cluster.Sizes, moves []clusterops.PartitionMove, pr *clusterops.ReassignProgress) {
	if m.parts == nil || snap == nil {
		return
	}
	p := progressOf(snap, sz, moves, pr)
	if !p.Known {
		return
	}
	if m.cur.Known && p.At.After(m.cur.At) && m.cur.At.After(m.startAt) {
		prev := m.cur
		m.prev = &prev
	}
	m.cur, m.known = p, true
	m.eta = p.Reestimate(m.prev, m.est)
	m.copied = max(m.copied, p.Copied)
	m.total = max(p.Total, m.copied)
	m.pct = max(m.pct, p.Percent())
	for _, pc := range p.Partitions {
		m.parts[pc.TopicPartition] = max(m.parts[pc.TopicPartition], pc.Copied)
	}
}

// progressOf is clusterops.ProgressOf, but for the moves the controller
// has not started (queued: no replica being added yet), which it would
// count as done: they count as nothing copied.
func progressOf(snap *cluster.Snapshot, sz *cluster.Sizes, moves []clusterops.PartitionMove, pr *clusterops.ReassignProgress) clusterops.MoveProgress {
	queued := map[cluster.TopicPartition]bool{}
	if pr != nil {
		for _, p := range pr.Partitions {
			if p.Phase == cluster.ReassignQueued {
				queued[p.TopicPartition] = true
			}
		}
	}
	if len(queued) == 0 {
		return clusterops.ProgressOf(snap, sz, moves)
	}
	var started []clusterops.PartitionMove
	var waiting int64
	for _, m := range moves {
		if !queued[m.TopicPartition] {
			started = append(started, m)
			continue
		}
		if n, ok := sz.PartitionBytes(m.Topic, m.Partition); ok {
			waiting += n * int64(len(m.Adding()))
		}
	}
	p := clusterops.ProgressOf(snap, sz, started)
	p.Total += waiting
	return p
}

// status is the bytes copied, the percentage and the time left: "750 MiB
// of 1.50 GiB copied (50%), about 1m15s left" ("" without sizes).
func (m *moved) status() string {
	if !m.known {
		return ""
	}
	s := cluster.FormatBytes(m.copied) + " of " + cluster.FormatBytes(m.total) + " copied (" + strconv.Itoa(int(math.Floor(m.pct))) + "%)"
	switch e := m.eta; {
	case !e.Known:
	case e.Never:
		s += ", never at this throttle: " + strings.TrimPrefix(e.String(), "never: ")
	case e.Duration == 0:
	default:
		s += ", about " + clusterops.FormatDuration(e.Duration) + " left"
	}
	return s
}

// copying names the partitions still copying with the most bytes left:
// "copying: orders-1 300 MiB of 500 MiB · …".
func (m *moved) copying() string {
	if !m.known || len(m.cur.Partitions) == 0 {
		return ""
	}
	ps := slices.Clone(m.cur.Partitions)
	left := func(p clusterops.PartitionCopy) int64 { return p.Total - max(p.Copied, m.parts[p.TopicPartition]) }
	slices.SortStableFunc(ps, func(a, b clusterops.PartitionCopy) int { return cmp.Compare(left(b), left(a)) })
	parts := make([]string, 0, copyTop)
	for _, p := range ps[:min(copyTop, len(ps))] {
		parts = append(parts, p.String()+" "+cluster.FormatBytes(max(p.Copied, m.parts[p.TopicPartition]))+" of "+cluster.FormatBytes(p.Total))
	}
	s := "copying: " + strings.Join(parts, " · ")
	if n := len(ps) - copyTop; n > 0 {
		s += " · " + text.Count(n, "more partition")
	}
	return s
}
