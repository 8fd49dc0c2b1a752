package create

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/theme"
)

// tracker follows a written plan until every partition is online, from
// the snapshots the shell pushes. On ZooKeeper, partition times are
// ZooKeeper's: the state znode's mtime minus the topic znode's ctime, so
// they are the controller's real timings, not the mirror's latency. A
// KRaft cluster has no such clock: its controller creates the topic and
// every partition with its leader in one atomic batch of records before
// it answers CreateTopics, and what ktopo knows is when a poll first
// showed each partition (the poll's end, kept as the state's mtime), so
// its times are those polls', after the request was answered, and are
// said to be.
type tracker struct {
	plan    *clusterops.TopicPlan
	planned map[int][]int
	ids     []int
	idx     map[int]int
	phase   []clusterops.Phase
	// onlineAt and insyncAt: ms after the topic znode was written (on a
	// KRaft cluster: the Unix ms of the poll that showed it, see shown),
	// -1 while not reached.
	onlineAt, insyncAt []int64
	// kraft: the cluster is a KRaft cluster (times and words differ).
	kraft bool

	sent  time.Time     // local clock: when the write was sent
	now   time.Time     // local clock: the last observation or tick
	took  time.Duration // the multi's round trip
	wrote bool
	err   error
	// lostErr is the write's error when its reply was lost; outcome what
	// reading back found (nil until then).
	lostErr error
	outcome *clusterops.Outcome
	ctime   int64 // the topic znode's ctime (ms), 0 until seen
	pr      clusterops.Progress
	isDone  bool
	doneIn  int64 // ms from the write to the last partition online (as onlineAt)
	syncIn  int64 // ms to the last partition in sync, -1 while not
	first   int64 // ms to the first partition online, -1 while none
	ctrl    int   // the controller's id (the quorum's leader on KRaft), -1 none
	seen    bool  // the mirror has shown the topic

	// what the last observation saw (see observe)
	observed  bool
	lastTopic *cluster.Topic
	lastLive  []int
	lost      []int // planned brokers not registered now
	anims     *anim.Set

	w, h  int
	win   cursor.Window
	cellW int
	per   int // cells per grid row
	idW   int
	rf    int
	// idText are the padded partition ids; marks the phase marks in the
	// current theme (set by view).
	idText, tmText []string
	marks          [clusterops.PhaseInSync + 1]string

	renderRow func(st *theme.Styles, r int) string
}

func newTracker(plan *clusterops.TopicPlan, s *cluster.Snapshot, now time.Time, anims *anim.Set) *tracker {
	t := &tracker{plan: plan, anims: anims, planned: plan.Assignment(), ids: plan.Result.Assignment.Partitions(), sent: now, now: now,
		doneIn: -1, syncIn: -1, first: -1, ctrl: -1}
	t.idx = make(map[int]int, len(t.ids))
	for i, id := range t.ids {
		t.idx[id] = i
	}
	n := len(t.ids)
	t.phase = make([]clusterops.Phase, n)
	t.onlineAt, t.insyncAt = make([]int64, n), make([]int64, n)
	for i := range t.onlineAt {
		t.onlineAt[i], t.insyncAt[i] = -1, -1
	}
	t.idW = 1
	if n > 0 {
		t.idW = max(len(strconv.Itoa(t.ids[n-1])), len(strconv.Itoa(t.ids[0])))
	}
	t.idText, t.tmText = make([]string, n), make([]string, n)
	for i, id := range t.ids {
		t.idText[i] = cell.FitRight(strconv.Itoa(id), t.idW)
		t.tmText[i] = cell.Spaces(6)
	}
	t.renderRow = t.row
	t.rf = rfOf(plan)
	if s != nil {
		t.ctrl = s.Controller().BrokerID
		t.kraft = s.KRaft() != nil
	}
	return t
}

func (t *tracker) setSize(w, h int) {
	t.w, t.h = w, h
	// cell: id, phase mark, time ("1234ms" at most 6), two blanks
	t.cellW = t.idW + 1 + 1 + 1 + 6 + 2
	t.per = max((w-2)/t.cellW, 1)
	t.win.SetN((len(t.ids) + t.per - 1) / t.per)
}

func (t *tracker) written(took time.Duration) {
	t.wrote, t.took = true, took
	if t.kraft {
		// The polls' times count from the answer, known now.
		for i := range t.ids {
			t.tmText[i] = t.timeText(i)
		}
	}
}

// shown is a time of onlineAt, insyncAt, first, doneIn or syncIn as
// the screen shows it, in ms: on ZooKeeper as kept, on a KRaft cluster
// the poll's time after the request was answered (-1, shown as nothing,
// until it was; 0 for a poll that ended before the answer reached
// ktopo).
func (t *tracker) shown(v int64) int64 {
	if !t.kraft || v < 0 {
		return v
	}
	if !t.wrote {
		return -1
	}
	return max(v-t.sent.Add(t.took).UnixMilli(), 0)
}

// controllerName names the controller after its step's label
// ("controller"): a broker on ZooKeeper ("broker 3"); on a KRaft cluster
// the quorum's leader by its id ("3000"), a broker too only when it is one.
func (t *tracker) controllerName() string {
	switch {
	case t.ctrl < 0:
		return "no active controller"
	case !t.kraft:
		return "broker " + strconv.Itoa(t.ctrl)
	case slices.Contains(t.lastLive, t.ctrl):
		return strconv.Itoa(t.ctrl) + " (a broker too)"
	}
	return strconv.Itoa(t.ctrl)
}

func (t *tracker) fail(err error) { t.err = err }

// replyLost: the write failed with an open outcome after took; the
// wizard finds out.
func (t *tracker) replyLost(err error, took time.Duration) { t.lostErr, t.took = err, took }

// verified records what reading back found: unless applied, the write
// failed (its error is the late answer, what exists instead, or the
// lost reply's).
func (t *tracker) verified(o clusterops.Outcome) {
	t.outcome = &o
	if o.Known && o.Applied {
		return
	}
	t.err = o.Err
	if t.err == nil {
		t.err = t.lostErr
	}
}

// outcomeNote says how a lost reply's outcome was found out ("" if no
// reply was lost), with the write's error unless it is shown already.
func (t *tracker) outcomeNote(withErr bool) string {
	o := t.outcome
	if t.lostErr == nil || o == nil || !o.Known {
		return ""
	}
	lost := "The write got no reply; " + o.How
	if withErr {
		lost = "The write got no reply (" + t.lostErr.Error() + "); " + o.How
	}
	switch {
	case o.Applied:
		return lost + ": the topic exists exactly as previewed."
	case cluster.ErrorClass(o.Err) == cluster.ClassTopicExists:
		return lost + ": the topic exists, but not as previewed: another client created it. Nothing of this plan was written."
	case o.Err != nil:
		return lost + " (" + o.Err.Error() + "). Nothing was written."
	}
	return lost + ": the topic does not exist. Nothing was written."
}

func (t *tracker) done() bool { return t.isDone }

// observe reads every partition's phase from s at local time now and
// flashes those that moved.
func (t *tracker) observe(s *cluster.Snapshot, now time.Time) {
	t.now = now
	topic := s.Topic(t.plan.Name)
	// A *Topic never changes once in a snapshot: when neither it, the
	// controller nor the live brokers changed, neither did the progress
	// (a batch about other topics costs nothing here).
	live := s.LiveBrokerIDs()
	if t.observed && topic == t.lastTopic && s.Controller().BrokerID == t.ctrl && slices.Equal(live, t.lastLive) {
		return
	}
	t.observed, t.lastTopic, t.lastLive = true, topic, live
	t.ctrl = s.Controller().BrokerID
	t.pr = clusterops.TopicProgress(s, t.plan.Name, t.planned)
	if topic != nil && t.ctime == 0 {
		t.ctime = topic.Ctime
	}
	t.seen = t.seen || topic != nil
	for _, pp := range t.pr.Partitions {
		i, ok := t.idx[pp.ID]
		if !ok || pp.Phase == t.phase[i] {
			continue
		}
		old := t.phase[i]
		t.phase[i] = pp.Phase
		at := t.since(topic, pp.ID, now)
		if pp.Phase >= clusterops.PhaseOnline && t.onlineAt[i] < 0 {
			t.onlineAt[i] = at
		}
		if pp.Phase == clusterops.PhaseInSync && t.insyncAt[i] < 0 {
			t.insyncAt[i] = at
		}
		t.tmText[i] = t.timeText(i)
		if t.anims != nil {
			t.anims.Start(anim.Key{Topic: t.plan.Name, Partition: pp.ID, Field: anim.FieldState}, old.String(), pp.Phase.String(), now)
		}
	}
	t.first = -1
	allOnline, allSync := int64(-1), int64(-1)
	online, sync := 0, 0
	for i := range t.ids {
		if a := t.onlineAt[i]; a >= 0 {
			online++
			allOnline = max(allOnline, a)
			if t.first < 0 || a < t.first {
				t.first = a
			}
		}
		if a := t.insyncAt[i]; a >= 0 {
			sync++
			allSync = max(allSync, a)
		}
	}
	if !t.isDone && t.pr.Done() {
		t.isDone, t.doneIn = true, allOnline
	}
	if sync == len(t.ids) && t.pr.InSync == len(t.ids) {
		t.syncIn = allSync
	}
	t.lost = t.lost[:0]
	seen := map[int]bool{}
	for _, id := range t.ids {
		for _, r := range t.planned[id] {
			if !seen[r] && !s.IsLive(r) {
				t.lost = append(t.lost, r)
			}
			seen[r] = true
		}
	}
}

// since is when partition id reached its current state, in ms after the
// topic znode was written: ZooKeeper's times when it has them, else the
// local clock. On a KRaft cluster it is the Unix ms of the poll that
// showed the state (its mtime), which shown makes relative once the
// request's answer is known.
func (t *tracker) since(topic *cluster.Topic, id int, now time.Time) int64 {
	if t.kraft {
		if topic != nil {
			if p := topic.Partition(id); p != nil && p.StateMtime > 0 {
				return p.StateMtime
			}
		}
		return now.UnixMilli()
	}
	if topic != nil && t.ctime > 0 {
		if p := topic.Partition(id); p != nil && p.StateMtime > 0 {
			return max(p.StateMtime-t.ctime, 0)
		}
		return 0
	}
	return max(now.Sub(t.sent).Milliseconds(), 0)
}

// waiting says what the partitions not yet online or in sync wait for.
func (t *tracker) waiting() []string {
	var w []string
	switch {
	case t.wrote && !t.pr.Exists && t.seen && t.kraft:
		w = append(w, "nothing: topic "+t.plan.Name+" was deleted meanwhile")
	case t.wrote && !t.pr.Exists && t.seen:
		w = append(w, "nothing: "+t.plan.TopicPath+" was deleted meanwhile")
	case t.wrote && !t.pr.Exists && t.kraft:
		w = append(w, "the next poll to show topic "+t.plan.Name)
	case t.wrote && !t.pr.Exists:
		w = append(w, "ZooKeeper's watch to report "+t.plan.TopicPath)
	}
	w = append(w, t.pr.Waiting...)
	if t.pr.Online > t.pr.InSync {
		var parts []int
		for _, pp := range t.pr.Partitions {
			if pp.Phase == clusterops.PhaseOnline {
				parts = append(parts, pp.ID)
			}
		}
		if len(t.lost) > 0 {
			w = append(w, text.Plural(len(t.lost), "broker ", "brokers ")+text.Join(t.lost, ", ")+text.Plural(len(t.lost), " is", " are")+" not registered: "+
				text.Plural(len(parts), "partition ", "partitions ")+text.Ints(parts)+" wait for "+text.Plural(len(t.lost), "it", "them")+" to rejoin the ISR")
		} else {
			w = append(w, "followers to catch up: "+text.Plural(len(parts), "partition ", "partitions ")+text.Ints(parts)+
				" (leaders add them to the ISR)")
		}
	}
	return w
}

// tookText is the write's round trip in the grid's units (ms), "<1ms"
// for a quicker one.
func tookText(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return ms(d.Milliseconds())
}

func ms(d int64) string {
	switch {
	case d < 0:
		return ""
	case d < 10_000:
		return strconv.FormatInt(d, 10) + "ms"
	case d < 100_000:
		return strconv.FormatFloat(float64(d)/1000, 'f', 1, 64) + "s"
	}
	return strconv.FormatInt(d/1000, 10) + "s"
}

// summaryLine is the one-line outcome for the status bar.
func (t *tracker) summaryLine() string {
	n := len(t.ids)
	s := "Topic " + t.plan.Name + " created: " + text.Plural(n, "its partition", "all "+strconv.Itoa(n)+" partitions") + " online "
	if t.kraft {
		s += "(seen by the poll " + ms(t.shown(t.doneIn)) + " after CreateTopics was answered)"
		if t.syncIn >= 0 {
			s += ", in sync (" + ms(t.shown(t.syncIn)) + ")"
		}
		return s + "."
	}
	s += ms(t.doneIn) + " after the write"
	if t.syncIn >= 0 {
		s += ", in sync " + ms(t.syncIn)
	}
	return s + "."
}

func (t *tracker) failLine() string {
	if t.err == nil {
		return ""
	}
	return t.err.Error()
}

// marks per phase.
func mark(st *theme.Styles, p clusterops.Phase) string {
	switch p {
	case clusterops.PhaseNew:
		return st.Muted.S("○")
	case clusterops.PhaseOffline:
		return st.Danger.S("✗")
	case clusterops.PhaseOnline:
		return st.Leader.S("◐")
	case clusterops.PhaseInSync:
		return st.Online.S("●")
	}
	return st.Subtle.S("·")
}

// row renders grid row r.
func (t *tracker) row(st *theme.Styles, r int) string {
	var b strings.Builder
	b.Grow(t.per * (t.cellW + 80))
	b.WriteByte(' ')
	for c := 0; c < t.per; c++ {
		i := r*t.per + c
		if i >= len(t.ids) {
			break
		}
		ph := t.phase[i]
		idInk := st.Text
		if ph == clusterops.PhaseNonExistent {
			idInk = st.Subtle
		}
		if lvl := flashLevel(t, t.ids[i]); lvl >= 0 {
			idInk = st.FlashRamp[lvl]
		}
		idInk.Put(&b, t.idText[i])
		b.WriteByte(' ')
		b.WriteString(t.marks[ph])
		b.WriteByte(' ')
		st.Muted.Put(&b, t.tmText[i])
		b.WriteString("  ")
	}
	return b.String()
}

// timeText is partition i's time, padded to 6 columns (kept in tmText,
// refreshed when the partition moves).
func (t *tracker) timeText(i int) string {
	tm := ""
	switch ph := t.phase[i]; {
	case ph == clusterops.PhaseInSync && t.insyncAt[i] != t.onlineAt[i]:
		tm = ms(t.shown(t.insyncAt[i]))
	case ph >= clusterops.PhaseOnline:
		tm = ms(t.shown(t.onlineAt[i]))
	}
	return cell.Fit(tm, 6)
}

// flashLevel is the fade step of partition id's last phase change, -1
// when it is not flashing.
func flashLevel(t *tracker, id int) int {
	if t.anims == nil {
		return -1
	}
	return t.anims.Level(anim.Key{Topic: t.plan.Name, Partition: id, Field: anim.FieldState})
}

// bar is the whole topic's progress bar: online partitions solid, in-sync
// ones in the online colour.
func (t *tracker) bar(st *theme.Styles, width int) string {
	n := len(t.ids)
	if n == 0 || width <= 0 {
		return ""
	}
	on := t.pr.Online * width / n
	sync := t.pr.InSync * width / n
	return st.Online.S(strings.Repeat("█", sync)) + st.Leader.S(strings.Repeat("█", on-sync)) + st.Subtle.S(strings.Repeat("░", width-on))
}

// view renders the creation: steps, bar, what it waits for, the grid.
func (t *tracker) view(st *theme.Styles, stg wizard.Stage, pace time.Duration, canPace bool) []string {
	lines := make([]string, 0, t.h)
	n := len(t.ids)
	title := " " + st.Bold.S("Creating ") + st.Accent.S(t.plan.Name) + st.Muted.S("  ·  "+cell.Thousands(n)+" partitions × RF "+
		strconv.Itoa(t.rf))
	if canPace {
		title += st.Muted.S("  ·  sandbox pace " + pace.String() + " (p)")
	}
	lines = append(lines, cell.Clip(title, t.w))
	ok, run, bad, todo := st.Online.S("✓"), st.Accent.S("●"), st.Error.S("✗"), st.Subtle.S("·")
	step := func(m, name, text string) string {
		return cell.Clip("  "+m+" "+st.Bold.S(cell.Fit(name, 11))+text, t.w)
	}
	lines = append(lines, step(ok, "validate", st.Muted.S("Kafka's checks passed; the plan is the one previewed")))
	w := t.words()
	multi := w.write
	switch {
	case t.err != nil:
		lines = append(lines, step(bad, "write", st.Error.S(multi)))
		for _, l := range wizard.Wrap(t.err.Error(), t.w, 16) {
			lines = append(lines, st.Error.S(l))
		}
		lines = append(lines, "")
		explain := w.nothing
		switch {
		case t.outcomeNote(false) != "":
			explain = t.outcomeNote(false)
		case t.lostErr != nil || t.outcome != nil:
			explain = w.unknown
		}
		for _, l := range wizard.Wrap(explain, t.w, 1) {
			lines = append(lines, st.Text.S(l))
		}
		lines = append(lines, "", " "+st.Muted.S("enter or esc: back to the form, every value kept"))
		return lines
	case !t.wrote && t.lostErr != nil:
		lines = append(lines, step(run, "write", st.Warning.S(multi+": no reply")))
		for _, l := range wizard.Wrap(t.lostErr.Error(), t.w, 16) {
			lines = append(lines, st.Muted.S(l))
		}
		lines = append(lines, step(run, "read back", st.Muted.S(w.readBack)))
	case !t.wrote:
		lines = append(lines, step(run, "write", st.Muted.S(multi+" …")))
		lines = append(lines, step(todo, "controller", st.Muted.S(w.pending)))
	default:
		lines = append(lines, step(ok, "write", st.Muted.S(multi+" at "+t.sent.Format("15:04:05")+" · "+w.took+" "+tookText(t.took))))
		if note := t.outcomeNote(true); note != "" {
			for _, l := range wizard.Wrap(note, t.w, 16) {
				lines = append(lines, st.Warning.S(l))
			}
		}
		ctrl := t.controllerName()
		switch {
		case t.isDone:
			lines = append(lines, step(ok, "controller", st.Muted.S(ctrl+w.done)))
		case !t.pr.Exists:
			lines = append(lines, step(run, "controller", st.Muted.S(w.notSeen)))
		default:
			lines = append(lines, step(run, "controller", st.Muted.S(ctrl+w.initialising+": "+
				strconv.Itoa(t.pr.Online)+"/"+strconv.Itoa(n)+" have a leader")))
		}
	}
	elapsed := t.now.Sub(t.sent).Round(100 * time.Millisecond)
	counts := " " + strconv.Itoa(t.pr.Online) + "/" + strconv.Itoa(n) + " online · " + strconv.Itoa(t.pr.InSync) + " in sync"
	if !t.isDone {
		counts += " · " + elapsed.String()
	}
	bw := max(min(t.w-cell.Width(counts)-4, 60), 10)
	lines = append(lines, "", cell.Clip("  "+t.bar(st, bw)+st.Bold.S(counts), t.w))
	if t.isDone {
		lines = append(lines, "", cell.Clip(" "+st.Online.S("✓ ")+st.Bold.S("Topic "+t.plan.Name+" is online: ")+
			text.Plural(n, "its partition has a leader", "all "+strconv.Itoa(n)+" partitions have a leader"), t.w))
		detail := "write took " + tookText(t.took) + " · first leader " + ms(t.first) + " · last " + ms(t.doneIn)
		if t.kraft {
			detail = "answered in " + tookText(t.took) + " · polls showed the first leader " + ms(t.shown(t.first)) +
				" after the answer · the last " + ms(t.shown(t.doneIn))
		}
		if t.syncIn >= 0 {
			detail += " · all in sync " + ms(t.shown(t.syncIn))
		} else {
			detail += " · " + strconv.Itoa(t.pr.InSync) + "/" + strconv.Itoa(n) + " in sync so far"
		}
		for _, l := range wizard.Wrap(detail, t.w, 3) {
			lines = append(lines, st.Muted.S(l))
		}
	}
	for _, w := range t.waiting() {
		for _, l := range wizard.Wrap("waiting for: "+w, t.w, 2) {
			lines = append(lines, st.Warning.S(l))
		}
	}
	if !t.isDone {
		lines = append(lines, cell.Clip("  "+st.Muted.S("esc closes this view; the creation goes on, followed in the status bar"), t.w))
	}
	lines = append(lines, "")
	legend := " " + mark(st, clusterops.PhaseNonExistent) + st.Muted.S(" not yet  ") + mark(st, clusterops.PhaseNew) + st.Muted.S(" new  ") +
		mark(st, clusterops.PhaseOnline) + st.Muted.S(" online (leader elected)  ") + mark(st, clusterops.PhaseInSync) + st.Muted.S(" in sync (full ISR)  ") +
		mark(st, clusterops.PhaseOffline) + st.Muted.S(" no leader  ·  "+w.times)
	if cell.Width(legend) > t.w {
		legend = " " + mark(st, clusterops.PhaseNonExistent) + st.Muted.S(" not yet ") + mark(st, clusterops.PhaseNew) + st.Muted.S(" new ") +
			mark(st, clusterops.PhaseOnline) + st.Muted.S(" leader ") + mark(st, clusterops.PhaseInSync) + st.Muted.S(" full ISR ") +
			mark(st, clusterops.PhaseOffline) + st.Muted.S(" no leader · "+w.timesShort)
	}
	for p := range t.marks {
		t.marks[p] = mark(st, clusterops.Phase(p))
	}
	// The grid gets what the lines above leave (layout, recomputed per
	// frame because the waiting lines come and go).
	t.win.SetH(max(t.h-len(lines)-1, 1))
	from, to := t.win.Visible()
	for r := from; r < to; r++ {
		lines = append(lines, t.renderRow(st, r)) // fits: per = (w-2)/cellW
	}
	lines = append(lines, cell.Clip(legend, t.w))
	return lines
}

// progressWords are the words of the progress screen that differ between
// a ZooKeeper and a KRaft cluster.
type progressWords struct {
	write, took, nothing, unknown, readBack, pending string
	done, initialising, notSeen, times, timesShort   string
}

var (
	zkWords = progressWords{
		write:   "config and assignment in one multi",
		took:    "took",
		nothing: "Nothing was written: the config and the assignment go in one ZooKeeper multi, which is applied whole or not at all.",
		unknown: "The outcome is unknown: the request may have reached ZooKeeper before the connection failed, and reading it back " +
			"did not succeed in time. A multi is applied whole or not at all, so either the topic exists exactly as previewed or " +
			"nothing was written; the topics screen shows which.",
		readBack:     "once ZooKeeper is reachable: the topic exists exactly as previewed, or nothing was written …",
		pending:      "picks it up once written",
		done:         " elected a leader for every partition",
		initialising: " is initialising the partitions",
		notSeen:      "waiting for the topic znode to reach the mirror",
		times:        "times after the write (ZooKeeper's clock)",
		timesShort:   "times after the write",
	}
	kraftWords = progressWords{
		write:   "CreateTopics",
		took:    "answered in",
		nothing: "Nothing was created: the controller creates a topic, its configs and its partitions in one atomic batch of records, or not at all.",
		unknown: "The outcome is unknown: the request may have reached the controller before the connection failed, and reading it back " +
			"did not succeed in time. The controller creates a topic whole or not at all, so either the topic exists exactly as previewed " +
			"or nothing was created; the topics screen shows which.",
		readBack:     "from the brokers' metadata: the topic exists exactly as previewed, or nothing was created …",
		pending:      "creates the topic and its partitions' leaders, then answers",
		done:         " created every partition with a leader",
		initialising: " created the partitions",
		notSeen:      "the topic is created; waiting for a poll to show it",
		times:        "times: the first poll that showed it, after CreateTopics was answered",
		timesShort:   "times: polls after the answer",
	}
)

func (t *tracker) words() *progressWords {
	if t.kraft {
		return &kraftWords
	}
	return &zkWords
}

func rfOf(p *clusterops.TopicPlan) int {
	if ps := p.Result.Assignment.Partitions(); len(ps) > 0 {
		return len(p.Result.Assignment[ps[0]])
	}
	return 0
}
