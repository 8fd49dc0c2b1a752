package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// A capture as tmux writes it: RGB and indexed colours, attributes,
// resets, a box and a progress bar.
const sample = "\x1b[1m\x1b[38;2;143;140;248m ktopo \x1b[0m\x1b[38;5;196m\x1b[48;5;21mred\x1b[0m \x1b[7mrev\x1b[0m\n" +
	"╭──╮ \x1b[32m██░░\x1b[39m ═║\n" +
	"╰──╯ \x1b[2mdim\x1b[0m\n"

func TestParseCapture(t *testing.T) {
	s, err := parseCapture([]byte(sample), 16, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.text(), " ktopo red rev\n╭──╮ ██░░ ═║\n╰──╯ dim\n\n"; got != want {
		t.Fatalf("text %q, want %q", got, want)
	}
	k := s.cells[0][1] // "k"
	if !k.bold || k.fg != (termColor{kind: colorRGB, r: 143, g: 140, b: 248}) || k.bg.kind != colorDefault {
		t.Errorf("k: %+v", k)
	}
	r := s.cells[0][7] // "r" of red
	if r.bold || r.fg != (termColor{kind: colorIndexed, index: 196}) || r.bg != (termColor{kind: colorIndexed, index: 21}) {
		t.Errorf("r: %+v", r)
	}
	if c := s.cells[0][11]; !c.reverse || c.text != "r" {
		t.Errorf("rev: %+v", c)
	}
	if c := s.cells[1][5]; c.fg != (termColor{kind: colorIndexed, index: 2}) || c.text != "█" {
		t.Errorf("block: %+v", c)
	}
	if c := s.cells[1][10]; c.fg.kind != colorDefault {
		t.Errorf("39 did not reset the foreground: %+v", c)
	}
	if c := s.cells[2][5]; !c.faint {
		t.Errorf("dim: %+v", c)
	}
	if c := s.cells[3][0]; c.text != " " || c.width != 1 {
		t.Errorf("a row past the capture is not blank: %+v", c)
	}
	// The colon form of an RGB colour, and a capture that does not fit.
	var c cell
	c.sgr("38:2::1:2:3")
	if c.fg != (termColor{kind: colorRGB, r: 1, g: 2, b: 3}) {
		t.Errorf("38:2::1:2:3 gave %+v", c.fg)
	}
	if _, err := parseCapture([]byte(sample), 10, 4); err == nil {
		t.Error("a line wider than the screen was accepted")
	}
	if _, err := parseCapture([]byte(sample), 16, 2); err == nil {
		t.Error("more lines than rows were accepted")
	}
}

func TestRender(t *testing.T) {
	r, err := newRenderer(13, darkTheme)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseCapture([]byte(sample), 16, 4)
	if err != nil {
		t.Fatal(err)
	}
	img, err := r.render(s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := img.Bounds().Size(), r.size(16, 4); got != want || want.X != 16*r.cellW+2*r.pad {
		t.Fatalf("image %v, want %v", got, want)
	}
	// at is the pixel at (fx, fy) of the cell's width and height.
	at := func(col, row int, fx, fy float64) color.RGBA {
		return img.RGBAAt(r.pad+col*r.cellW+int(fx*float64(r.cellW-1)), r.pad+row*r.cellH+int(fy*float64(r.cellH-1)))
	}
	green := darkTheme.palette[2]
	bg := darkTheme.bg
	if got := at(0, 3, 0.5, 0.5); got != bg {
		t.Errorf("a blank cell is %v, not the background %v", got, bg)
	}
	if img.RGBAAt(0, 0).A != 0 {
		t.Error("the image's corner is not transparent")
	}
	for _, f := range [][2]float64{{0, 0}, {1, 1}, {0.5, 0.5}} {
		if got := at(5, 1, f[0], f[1]); got != green {
			t.Errorf("█ at %v is %v, not %v", f, got, green)
		}
	}
	if got, want := at(7, 1, 0.5, 0.5), mix(bg, green, 0.25); got != want {
		t.Errorf("░ is %v, want %v", got, want)
	}
	// ─ runs across its whole cell, so that borders join: some row of the
	// cell is foreground from its first pixel to its last.
	line := func(col, row int) bool {
		for y := 0; y < r.cellH; y++ {
			full := true
			for x := 0; x < r.cellW; x++ {
				full = full && img.RGBAAt(r.pad+col*r.cellW+x, r.pad+row*r.cellH+y) == darkTheme.fg
			}
			if full {
				return true
			}
		}
		return false
	}
	if !line(1, 1) || !line(2, 2) {
		t.Error("─ does not span its cell")
	}
	// Text: the background cell of "red" is indexed colour 21, its glyph
	// some other colour; "rev" is reversed (foreground as background).
	if got := at(7, 0, 0, 0); got != darkTheme.indexed(21) {
		t.Errorf("the background of red is %v", got)
	}
	if got := at(11, 0, 0, 0); got != darkTheme.fg {
		t.Errorf("the background of a reversed cell is %v, not the foreground", got)
	}
	if !inked(img, r, 7, 0, darkTheme.indexed(21)) {
		t.Error("no glyph drawn for r")
	}
	var buf bytes.Buffer
	if err := writePNG(&buf, img); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dec.(*image.Paletted); !ok || dec.Bounds() != img.Bounds() {
		t.Errorf("the PNG is a %T of %v, want a paletted %v", dec, dec.Bounds(), img.Bounds())
	}
}

// inked reports whether cell (col, row) has a pixel other than bg.
func inked(img *image.RGBA, r *renderer, col, row int, bg color.RGBA) bool {
	for y := 0; y < r.cellH; y++ {
		for x := 0; x < r.cellW; x++ {
			if img.RGBAAt(r.pad+col*r.cellW+x, r.pad+row*r.cellH+y) != bg {
				return true
			}
		}
	}
	return false
}

// TestNoTofu: every character of ktopo's screens (the non-ASCII runes of
// the UI's and the cluster package's sources, and those its libraries
// add) has a glyph or a shape.
func TestNoTofu(t *testing.T) {
	if !haveDejaVu() {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and DejaVu Sans Mono is not installed (apt-get install fonts-dejavu-core)")
		}
		t.Skip("skipping: DejaVu Sans Mono is not installed (apt-get install fonts-dejavu-core)")
	}
	runes := map[rune]bool{'•': true, '…': true} // bubbles' help separator, truncation
	for _, dir := range []string{"../../ui", "../../cluster"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			data, err := os.ReadFile(p)
			for _, c := range string(data) {
				if c > utf8.RuneSelf && c != utf8.RuneError {
					runes[c] = true
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var line []string
	for c := range runes {
		line = append(line, string(c))
	}
	slices.Sort(line)
	s, err := parseCapture([]byte(strings.Join(line, "")), len(line)*2, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRenderer(13, darkTheme)
	if err != nil {
		t.Fatal(err)
	}
	if missing := r.missingGlyphs(s); len(missing) > 0 {
		t.Fatalf("no glyph for %q", missing)
	}
}

// TestDocsShowEveryPicture: the README and docs/tui.md (the TUI's tour)
// show each picture the scenario takes, and only those; the README shows
// some of them, docs/tui.md all.
func TestDocsShowEveryPicture(t *testing.T) {
	var taken []string
	for _, st := range append(scenario(), kraftScenario()...) {
		if st.name != "" {
			taken = append(taken, st.name)
		}
	}
	slices.Sort(taken)
	shows := func(doc string) []string {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		var shown []string
		for _, m := range regexp.MustCompile(`\]\((?:docs/)?images/([a-z0-9-]+)\.png\)`).FindAllStringSubmatch(string(data), -1) {
			if !slices.Contains(shown, m[1]) {
				shown = append(shown, m[1])
			}
		}
		slices.Sort(shown)
		return shown
	}
	readme, tour := shows("../../README.md"), shows("../../docs/tui.md")
	if len(readme) == 0 {
		t.Error("the README shows no picture")
	}
	for _, name := range readme {
		if !slices.Contains(taken, name) {
			t.Errorf("the README shows %s, which the scenario does not take", name)
		}
	}
	if !slices.Equal(tour, taken) {
		t.Errorf("docs/tui.md shows %q, the scenario takes %q", tour, taken)
	}
	for _, name := range taken {
		if _, err := os.Stat("../../docs/images/" + name + ".png"); err != nil {
			t.Errorf("%s: %v (go run ./tools/screenshots)", name, err)
		}
	}
}

// TestScenario runs the generator on the real ktopo in tmux: in -short
// mode only its first picture, else the whole walk (into a temporary
// directory; docs/images is left alone).
func TestScenario(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and tmux is not installed (apt-get install tmux)")
		}
		t.Skip("skipping: tmux is not installed (apt-get install tmux)")
	}
	if !haveDejaVu() && os.Getenv("CI") != "true" {
		t.Skip("skipping: DejaVu Sans Mono is not installed (apt-get install fonts-dejavu-core)")
	}
	o := options{out: t.TempDir(), w: 100, h: 32, fontSize: 13, port: 0, kraftPort: 0}
	steps := append(scenario(), kraftScenario()...)
	if testing.Short() {
		o.only = 1
		steps = steps[:1]
	}
	var log bytes.Buffer
	if err := run(o, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	r, err := newRenderer(o.fontSize, darkTheme)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if st.name == "" {
			continue
		}
		f, err := os.Open(filepath.Join(o.out, st.name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got, want := image.Pt(cfg.Width, cfg.Height), r.size(o.w, o.h); got != want {
			t.Errorf("%s: %v, want %v", st.name, got, want)
		}
	}
}
