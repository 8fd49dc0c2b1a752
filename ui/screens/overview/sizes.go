package overview

import (
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/theme"
)

// The overview's bytes: a line under the cluster's counts (the sizes'
// summary, or why they are unknown), each card's bytes held and its log
// directories' disks as bars, each rack's bytes and disk under its
// heading. Everything but the bars' drawing is computed when a reading
// or a snapshot arrives (SetSizes, SetSnapshot), never per frame.

const (
	// maxDirLines bounds the log directories a card draws; a broker with
	// more says how many more on the last line.
	maxDirLines = 3
	// Disk use above warnPct is drawn in the warning colour, above
	// dangerPct in the danger colour.
	warnPct, dangerPct = 80, 90
	// A broker holding at least heavyRatio times the brokers' mean bytes,
	// and heavyMin bytes more than the mean, stands out: it fills first
	// and a failure there moves the most bytes. heavyMin keeps a young
	// cluster's few megabytes from lighting up.
	heavyRatio = 1.5
	heavyMin   = 100 << 20
)

// brokerSizes is what a card shows of one broker's sizes.
type brokerSizes struct {
	known     bool   // the broker answered
	unreached string // why it did not ("" when it did or was not asked)
	bytes     int64
	heavy     float64 // bytes over the mean when it stands out (0: it does not)
	dirs      []cluster.LogDir
}

// rackSizes is what a rack's heading shows.
type rackSizes struct {
	known         bool
	bytes         int64
	total, usable int64
	diskOK        bool
}

// SetSizes implements ui.SizesSetter.
func (m *Model) SetSizes(s *cluster.Sizes) {
	if s == m.sizes {
		return
	}
	m.sizes = s
	m.buildSizes()
	m.clamp()
}

// SetClock sets the clock the sizes' age is told by (nil: the age is not
// said).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// showSizes reports whether the cards carry sizes: known sizes were
// given. Unknown ones are one line in the header, the cards as without.
func (m *Model) showSizes() bool { return m.sizes.Known() }

// buildSizes recomputes the per-broker and per-rack sizes and the
// header's line from the sizes and the snapshot.
func (m *Model) buildSizes() {
	s := m.sizes
	m.sizeLine = ""
	m.brokerSizes = nil
	m.rackSizes = nil
	m.dirLines = 0
	if s == nil {
		return
	}
	st := &m.st
	if !s.Known() {
		m.sizeLine = " " + st.Muted.S(s.Why())
		return
	}
	var now time.Time
	if m.now != nil {
		now = m.now()
	} else {
		now = s.At
	}
	if s.StaleWhy != "" {
		m.sizeLine = " " + st.Warning.S("stale "+s.Summary(now))
	} else {
		m.sizeLine = " " + st.Muted.S(s.Summary(now))
	}
	ids := s.BrokerIDs()
	m.brokerSizes = make(map[int]brokerSizes, len(ids)+len(s.Unreached))
	var sum int64
	for _, id := range ids {
		d, _ := s.Broker(id)
		sum += d.Bytes
		m.brokerSizes[id] = brokerSizes{known: true, bytes: d.Bytes, dirs: d.Dirs}
		m.dirLines = max(m.dirLines, min(len(d.Dirs), maxDirLines))
	}
	m.dirLines = max(m.dirLines, 1)
	m.oneDir = true
	for _, id := range ids {
		if d, _ := s.Broker(id); len(d.Dirs) > 1 {
			m.oneDir = false
		}
	}
	for id, why := range s.Unreached {
		if _, ok := m.brokerSizes[id]; !ok {
			m.brokerSizes[id] = brokerSizes{unreached: why}
		}
	}
	if len(ids) >= 2 {
		mean := float64(sum) / float64(len(ids))
		for _, id := range ids {
			b := m.brokerSizes[id]
			if float64(b.bytes) >= heavyRatio*mean && float64(b.bytes)-mean >= heavyMin {
				b.heavy = float64(b.bytes) / mean
				m.brokerSizes[id] = b
			}
		}
	}
	m.rackSizes = make([]rackSizes, len(m.racks))
	for i, r := range m.racks {
		rs := rackSizes{diskOK: true}
		for _, id := range r.Brokers {
			d, ok := s.Broker(id)
			if !ok {
				continue
			}
			rs.known = true
			rs.bytes += d.Bytes
			if t, u, ok := d.Disk(); ok {
				rs.total += t
				rs.usable += u
			} else {
				rs.diskOK = false
			}
		}
		rs.diskOK = rs.diskOK && rs.known && rs.total > 0
		m.rackSizes[i] = rs
	}
}

// cardHeight is a card's height: its sizes' lines when sizes are known
// (one when every broker has one log directory: the bytes held and its
// disk on one line).
func (m *Model) cardHeight() int {
	switch {
	case !m.showSizes():
		return cardH
	case m.oneDir:
		return cardH + 1
	}
	return cardH + 1 + m.dirLines
}

// diskBar draws "▕████░░░░▏ 62%" of a volume, width w in all (at least
// 9), in the warning colour above 80 % used and the danger colour above
// 90 %.
func diskBar(st *theme.Styles, total, usable int64, w int) (string, int) {
	used := total - usable
	pct := 0
	if total > 0 {
		pct = int(used * 100 / total)
	}
	ink := st.Online
	switch {
	case pct > dangerPct:
		ink = st.Danger
	case pct > warnPct:
		ink = st.Warning
	}
	label := " " + strconv.Itoa(pct) + "%"
	n := max(w-2-len(label), 1)
	full := 0
	if total > 0 {
		full = int((used*int64(n) + total/2) / total)
	}
	full = min(max(full, 0), n)
	if full == 0 && used > 0 {
		full = 1 // some use is never drawn as none
	}
	bar := st.Subtle.S("▕") + ink.S(strings.Repeat("█", full)) + st.Subtle.S(strings.Repeat("░", n-full)+"▏") + ink.S(label)
	return bar, n + 2 + len(label)
}

// sizeLines are a card's lines of sizes: the bytes held, then a bar per
// log directory (iw wide, the card's inside).
func (m *Model) sizeLines(id int, iw int) []string {
	st := &m.st
	out := make([]string, 0, 1+m.dirLines)
	bs, ok := m.brokerSizes[id]
	text := st.Text
	if m.sizes.StaleWhy != "" {
		text = st.Muted // kept from an older reading
	}
	switch {
	case !ok:
		out = append(out, st.Muted.S(cell.Fit("no sizes reported", iw)))
	case !bs.known:
		out = append(out, st.Warning.S(cell.Fit("sizes: not reached ("+bs.unreached+")", iw)))
	default:
		held := cluster.FormatBytes(bs.bytes) + " held"
		if bs.heavy > 0 {
			mark := " ▲ " + strconv.FormatFloat(bs.heavy, 'f', 1, 64) + "× mean"
			if cell.Width(held+mark) > iw {
				mark = " ▲"
			}
			out = append(out, st.Warning.S(cell.Fit(held+mark, iw)))
		} else {
			out = append(out, text.S(cell.Fit(held, iw)))
		}
	}
	dirs := bs.dirs
	if m.oneDir {
		if len(dirs) == 1 && ok && bs.known && dirs[0].Err == "" && dirs[0].Total >= 0 && dirs[0].Usable >= 0 {
			// "5.12 GiB ▕█░░░░▏ 5% 94.9 GiB free": the bytes held, then
			// the directory's disk (a heavy broker's bytes marked).
			held := cluster.FormatBytes(bs.bytes) + " "
			ink := text
			if bs.heavy > 0 {
				held = cluster.FormatBytes(bs.bytes) + " ▲" + strconv.FormatFloat(bs.heavy, 'f', 1, 64) + "× "
				ink = st.Warning
			}
			return []string{ink.S(held) + dirLine(st, dirs[0], iw-cell.Width(held))}
		}
		return out[:1]
	}
	for i := 0; i < m.dirLines; i++ {
		switch {
		case i >= len(dirs):
			out = append(out, cell.Spaces(iw))
		case i == m.dirLines-1 && len(dirs) > m.dirLines:
			out = append(out, st.Muted.S(cell.Fit("+"+cell.Count(len(dirs)-i, "more log dir"), iw)))
		default:
			out = append(out, dirLine(st, dirs[i], iw))
		}
	}
	return out
}

// dirLine is one log directory on a card: its disk's bar, its free bytes
// and its path.
func dirLine(st *theme.Styles, d cluster.LogDir, iw int) string {
	switch {
	case d.Err != "":
		return st.Danger.S(cell.Fit("✗ "+d.Path+": "+d.Err, iw))
	case d.Total < 0 || d.Usable < 0:
		// Before Kafka 3.3 a broker does not report its volume (KIP-827).
		return st.Muted.S(cell.Fit(cluster.FormatBytes(d.Bytes)+" "+d.Path+" (disk not reported)", iw))
	}
	bw := min(max(iw/3, 9), 16)
	if iw < 30 {
		bw = min(max(iw/2, 9), 12) // a narrow card: the bar and the path
	}
	bar, w := diskBar(st, d.Total, d.Usable, bw)
	rest := iw - w
	// What is left usable, then the path, as far as they fit (the free
	// bytes first: what an operator asks of a disk).
	free := " " + cluster.FormatBytes(d.Usable) + " free"
	switch {
	case rest >= cell.Width(free)+5:
		return bar + st.Muted.S(free) + " " + st.Muted.S(cell.Fit(d.Path, rest-cell.Width(free)-1))
	case rest >= cell.Width(free):
		return bar + st.Muted.S(cell.Fit(free, rest))
	case rest >= 3:
		return bar + " " + st.Muted.S(cell.Fit(d.Path, rest-1))
	}
	return cell.PadStyled(bar, w, iw)
}

// rackSizeLine is the second line of a rack's heading: its bytes held and
// its brokers' disks together.
func (m *Model) rackSizeLine(ri, cw int) string {
	st := &m.st
	if ri >= len(m.rackSizes) || !m.rackSizes[ri].known {
		return st.Muted.S(cell.Fit("no sizes reported", cw))
	}
	rs := m.rackSizes[ri]
	held := cluster.FormatBytes(rs.bytes) + " held"
	if !rs.diskOK || cw-cell.Width(held)-1 < 9 {
		return st.Muted.S(cell.Fit(held, cw))
	}
	bar, w := diskBar(st, rs.total, rs.usable, min(cw-cell.Width(held)-1, 20))
	return cell.PadStyled(st.Muted.S(held)+" "+bar, cell.Width(held)+1+w, cw)
}
