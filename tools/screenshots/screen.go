package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// colorKind tells how a cell's colour is given.
type colorKind uint8

const (
	colorDefault colorKind = iota // the terminal's default foreground or background
	colorIndexed                  // one of the 256 indexed colours
	colorRGB                      // 24-bit
)

// termColor is a colour as a terminal receives it; the renderer's theme
// turns it into pixels.
type termColor struct {
	kind    colorKind
	index   uint8
	r, g, b uint8
}

// attrs are the SGR attributes the renderer draws.
type attrs struct {
	bold, faint, italic, underline, reverse, strike, hidden bool
}

// cell is one character cell of the screen. A wide character sits in its
// first cell (width 2); the cell after it is a continuation (width 0).
type cell struct {
	text   string
	width  int
	fg, bg termColor
	attrs
}

// screen is a grid of cells, as capture-pane showed it.
type screen struct {
	w, h  int
	cells [][]cell
}

// parseCapture reads the output of "tmux capture-pane -e -p" (text with SGR
// sequences, one line per row, trailing blanks left out) into a w×h grid.
// Other escape sequences are ignored; lines and rows past the grid are an
// error, so a capture of the wrong size does not pass unnoticed.
func parseCapture(data []byte, w, h int) (*screen, error) {
	s := &screen{w: w, h: h, cells: make([][]cell, h)}
	for y := range s.cells {
		s.cells[y] = make([]cell, w)
		for x := range s.cells[y] {
			s.cells[y][x] = cell{text: " ", width: 1}
		}
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) > h {
		return nil, fmt.Errorf("capture has %d lines, the screen %d rows", len(lines), h)
	}
	var pen cell // colours and attributes carry over lines, as tmux writes them
	var state byte
	for y, line := range lines {
		x := 0
		for len(line) > 0 {
			seq, width, n, newState := ansi.DecodeSequenceWc(line, state, nil)
			state = newState
			line = line[n:]
			switch {
			case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m"):
				pen.sgr(seq[2 : len(seq)-1])
			case width > 0:
				if x+width > w {
					return nil, fmt.Errorf("line %d is wider than %d columns", y+1, w)
				}
				c := pen
				c.text, c.width = seq, width
				s.cells[y][x] = c
				for i := 1; i < width; i++ {
					s.cells[y][x+i] = cell{fg: pen.fg, bg: pen.bg, attrs: pen.attrs}
				}
				x += width
			}
			// Other sequences (OSC, cursor moves) and control bytes draw nothing.
		}
	}
	return s, nil
}

// sgr applies the parameters of one "CSI … m" sequence to the pen.
func (c *cell) sgr(params string) {
	if params == "" {
		params = "0"
	}
	// Sub-parameters (38:2::r:g:b) are read like parameters (38;2;r;g;b);
	// the colour space id of the colon form is skipped below.
	colon := strings.Contains(params, ":")
	f := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	num := func(i int) int {
		if i >= len(f) {
			return 0
		}
		n, _ := strconv.Atoi(f[i])
		return n
	}
	for i := 0; i < len(f); i++ {
		p := num(i)
		switch {
		case p == 0:
			c.fg, c.bg, c.attrs = termColor{}, termColor{}, attrs{}
		case p == 1:
			c.bold = true
		case p == 2:
			c.faint = true
		case p == 3:
			c.italic = true
		case p == 4:
			c.underline = true
		case p == 7:
			c.reverse = true
		case p == 8:
			c.hidden = true
		case p == 9:
			c.strike = true
		case p == 21, p == 22:
			c.bold, c.faint = false, false
		case p == 23:
			c.italic = false
		case p == 24:
			c.underline = false
		case p == 27:
			c.reverse = false
		case p == 28:
			c.hidden = false
		case p == 29:
			c.strike = false
		case p >= 30 && p <= 37:
			c.fg = termColor{kind: colorIndexed, index: uint8(p - 30)}
		case p >= 90 && p <= 97:
			c.fg = termColor{kind: colorIndexed, index: uint8(p - 90 + 8)}
		case p >= 40 && p <= 47:
			c.bg = termColor{kind: colorIndexed, index: uint8(p - 40)}
		case p >= 100 && p <= 107:
			c.bg = termColor{kind: colorIndexed, index: uint8(p - 100 + 8)}
		case p == 39:
			c.fg = termColor{}
		case p == 49:
			c.bg = termColor{}
		case p == 38, p == 48, p == 58:
			var col termColor
			switch num(i + 1) {
			case 5:
				col = termColor{kind: colorIndexed, index: uint8(num(i + 2))}
				i += 2
			case 2:
				if colon && len(f)-i >= 6 {
					i++ // 38:2:<colour space>:r:g:b
				}
				col = termColor{kind: colorRGB, r: uint8(num(i + 2)), g: uint8(num(i + 3)), b: uint8(num(i + 4))}
				i += 4
			}
			switch p {
			case 38:
				c.fg = col
			case 48:
				c.bg = col
			}
		}
	}
}

// text returns the screen's characters, one line per row, trailing blanks
// trimmed (what "capture-pane -p" without -e prints).
func (s *screen) text() string {
	var b strings.Builder
	for _, row := range s.cells {
		var l strings.Builder
		for _, c := range row {
			l.WriteString(c.text)
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}
