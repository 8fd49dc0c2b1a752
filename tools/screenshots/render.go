package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// theme is how the terminal shows default and indexed colours.
type theme struct {
	fg, bg  color.RGBA
	palette [16]color.RGBA // ANSI 0–15; 16–255 are xterm's cube and greys
}

// darkTheme is a dark terminal close to the one ktopo's dark palette is
// drawn for (ui/theme): its text colour on a near-black background.
var darkTheme = theme{
	fg: rgb(0xD8DEE9), bg: rgb(0x16161E),
	palette: [16]color.RGBA{
		rgb(0x1B1D23), rgb(0xFF7B72), rgb(0x56D364), rgb(0xE3B341),
		rgb(0x79C0FF), rgb(0xD2A8FF), rgb(0x76E3EA), rgb(0xD8DEE9),
		rgb(0x6E7681), rgb(0xFFA198), rgb(0x7EE787), rgb(0xF2CC60),
		rgb(0xA5D6FF), rgb(0xE2C5FF), rgb(0xB3F0FF), rgb(0xFFFFFF),
	},
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xFF}
}

func (t theme) color(c termColor, fg bool) color.RGBA {
	switch c.kind {
	case colorRGB:
		return color.RGBA{c.r, c.g, c.b, 0xFF}
	case colorIndexed:
		return t.indexed(c.index)
	}
	if fg {
		return t.fg
	}
	return t.bg
}

func (t theme) indexed(i uint8) color.RGBA {
	switch {
	case i < 16:
		return t.palette[i]
	case i < 232:
		level := func(v int) uint8 {
			if v == 0 {
				return 0
			}
			return uint8(55 + 40*v)
		}
		n := int(i) - 16
		return color.RGBA{level(n / 36), level(n / 6 % 6), level(n % 6), 0xFF}
	}
	g := uint8(8 + 10*(int(i)-232))
	return color.RGBA{g, g, g, 0xFF}
}

// fontFile is a font of the chain: a file of a Debian package, or a Go
// font compiled into the generator.
type fontFile struct {
	path string // "" for an embedded Go font
	data []byte // embedded
}

// The Debian package fonts-dejavu-core puts DejaVu Sans Mono here; it has
// every glyph ktopo's screens use. Go Mono, always at hand, lacks a few
// (★ ◐ ⟳ …): it is the last resort, and a missing glyph is an error.
const dejavuDir = "/usr/share/fonts/truetype/dejavu/"

// fontChains lists, per style, the fonts tried in order for each glyph:
// regular, bold, italic, bold italic.
var fontChains = [4][]fontFile{
	{{path: dejavuDir + "DejaVuSansMono.ttf"}, {path: dejavuDir + "DejaVuSans.ttf"}, {data: gomono.TTF}},
	{{path: dejavuDir + "DejaVuSansMono-Bold.ttf"}, {path: dejavuDir + "DejaVuSansMono.ttf"}, {path: dejavuDir + "DejaVuSans-Bold.ttf"}, {path: dejavuDir + "DejaVuSans.ttf"}, {data: gomonobold.TTF}, {data: gomono.TTF}},
	{{path: dejavuDir + "DejaVuSansMono-Oblique.ttf"}, {path: dejavuDir + "DejaVuSansMono.ttf"}, {path: dejavuDir + "DejaVuSans.ttf"}, {data: gomonoitalic.TTF}, {data: gomono.TTF}},
	{{path: dejavuDir + "DejaVuSansMono-BoldOblique.ttf"}, {path: dejavuDir + "DejaVuSansMono-Bold.ttf"}, {path: dejavuDir + "DejaVuSans-Bold.ttf"}, {path: dejavuDir + "DejaVuSans.ttf"}, {data: gomonobolditalic.TTF}, {data: gomono.TTF}},
}

// haveDejaVu reports whether DejaVu Sans Mono is installed.
func haveDejaVu() bool {
	_, err := os.Stat(dejavuDir + "DejaVuSansMono.ttf")
	return err == nil
}

type loadedFont struct {
	font *sfnt.Font
	face font.Face
	buf  sfnt.Buffer
}

// renderer draws screens as images: cells of a fixed size, text from the
// font chain, box drawing and block elements drawn as shapes so that lines
// join across cells whatever the font's line height.
type renderer struct {
	theme        theme
	cellW, cellH int
	ascent       int
	pad, radius  int
	chains       [4][]*loadedFont
	// levels is the number of steps anti-aliasing may take between a
	// colour and its background: fewer colours, so that a picture fits
	// a PNG palette.
	levels int
}

// newRenderer loads the fonts at size pixels. Fonts of the chain that are
// not installed are left out.
func newRenderer(size float64, th theme) (*renderer, error) {
	r := &renderer{theme: th, levels: 16}
	for style, chain := range fontChains {
		for _, ff := range chain {
			data := ff.data
			if ff.path != "" {
				var err error
				if data, err = os.ReadFile(ff.path); err != nil {
					continue
				}
			}
			f, err := opentype.Parse(data)
			if err != nil {
				return nil, fmt.Errorf("font %s: %w", ff.path, err)
			}
			face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
			if err != nil {
				return nil, err
			}
			r.chains[style] = append(r.chains[style], &loadedFont{font: f, face: face})
		}
	}
	// The cell is the first regular font's: its advance, and its ascent plus
	// descent for the line height.
	main := r.chains[0][0].face
	adv, _ := main.GlyphAdvance('M')
	m := main.Metrics()
	r.cellW = adv.Round()
	r.ascent = m.Ascent.Ceil()
	r.cellH = r.ascent + m.Descent.Ceil()
	r.pad = r.cellW * 3 / 2
	r.radius = r.cellW
	return r, nil
}

// size is the image size of a w×h screen.
func (r *renderer) size(w, h int) image.Point {
	return image.Pt(w*r.cellW+2*r.pad, h*r.cellH+2*r.pad)
}

// missingGlyphs lists the characters of s that no font of the chain has
// and that are not drawn as shapes: they would show as tofu.
func (r *renderer) missingGlyphs(s *screen) []string {
	var missing []string
	for _, row := range s.cells {
		for _, c := range row {
			if c.width == 0 || c.text == " " {
				continue
			}
			if _, _, ok := r.glyphFont(c); !ok && !slices.Contains(missing, c.text) {
				missing = append(missing, c.text)
			}
		}
	}
	return missing
}

// glyphFont finds the font that draws c's first rune (combining marks of
// a cluster are not drawn).
func (r *renderer) glyphFont(c cell) (*loadedFont, rune, bool) {
	ch, _ := utf8.DecodeRuneInString(c.text)
	if isShape(ch) {
		return nil, ch, true
	}
	style := 0
	if c.bold {
		style |= 1
	}
	if c.italic {
		style |= 2
	}
	for _, f := range r.chains[style] {
		if i, err := f.font.GlyphIndex(&f.buf, ch); err == nil && i != 0 {
			return f, ch, true
		}
	}
	return nil, ch, false
}

// render draws s. It fails when a character has no glyph.
func (r *renderer) render(s *screen) (*image.RGBA, error) {
	if missing := r.missingGlyphs(s); len(missing) > 0 {
		hint := ""
		if !haveDejaVu() {
			hint = " (install DejaVu Sans Mono: apt-get install fonts-dejavu-core)"
		}
		return nil, fmt.Errorf("no font has a glyph for %q%s", strings.Join(missing, ""), hint)
	}
	sz := r.size(s.w, s.h)
	img := image.NewRGBA(image.Rectangle{Max: sz})
	draw.Draw(img, img.Bounds(), &image.Uniform{r.theme.bg}, image.Point{}, draw.Src)
	for y, row := range s.cells {
		for x, c := range row {
			if c.width == 0 {
				continue
			}
			fg, bg := r.theme.color(c.fg, true), r.theme.color(c.bg, false)
			if c.reverse {
				fg, bg = bg, fg
			}
			if c.faint {
				fg = mix(fg, bg, 0.5)
			}
			box := image.Rect(0, 0, c.width*r.cellW, r.cellH).Add(image.Pt(r.pad+x*r.cellW, r.pad+y*r.cellH))
			draw.Draw(img, box, &image.Uniform{bg}, image.Point{}, draw.Src)
			if c.hidden || c.text == " " {
				continue
			}
			r.drawCell(img, box, c, fg, bg)
			if c.underline {
				line := image.Rect(box.Min.X, box.Min.Y+r.ascent+1, box.Max.X, box.Min.Y+r.ascent+2)
				draw.Draw(img, line, &image.Uniform{fg}, image.Point{}, draw.Src)
			}
			if c.strike {
				mid := box.Min.Y + r.cellH/2
				draw.Draw(img, image.Rect(box.Min.X, mid, box.Max.X, mid+1), &image.Uniform{fg}, image.Point{}, draw.Src)
			}
		}
	}
	r.roundCorners(img)
	return img, nil
}

func (r *renderer) drawCell(img *image.RGBA, box image.Rectangle, c cell, fg, bg color.RGBA) {
	f, ch, _ := r.glyphFont(c)
	if f == nil {
		drawShape(img, box, ch, fg, r.levels)
		return
	}
	adv, _ := f.face.GlyphAdvance(ch)
	// Centre glyphs whose advance is not the cell's (fallback fonts).
	dx := (fixed.I(box.Dx()) - adv) / 2
	dot := fixed.Point26_6{X: fixed.I(box.Min.X) + dx, Y: fixed.I(box.Min.Y + r.ascent)}
	dr, mask, mp, _, ok := f.face.Glyph(dot, ch)
	if !ok {
		return
	}
	// Glyphs stay inside their row, as a terminal clips them.
	clip := image.Rect(box.Min.X-r.cellW/2, box.Min.Y, box.Max.X+r.cellW/2, box.Max.Y)
	dr2 := dr.Intersect(clip)
	mp = mp.Add(dr2.Min.Sub(dr.Min))
	draw.DrawMask(img, dr2, &image.Uniform{fg}, image.Point{}, stepMask{mask, r.levels}, mp, draw.Over)
}

// stepMask rounds a glyph's coverage to a number of steps.
type stepMask struct {
	image.Image
	levels int
}

func (m stepMask) ColorModel() color.Model { return color.AlphaModel }

func (m stepMask) At(x, y int) color.Color {
	_, _, _, a := m.Image.At(x, y).RGBA()
	return color.Alpha{uint8(math.Round(quantize(float64(a)/0xFFFF, m.levels) * 0xFF))}
}

// quantize rounds a coverage in [0, 1] to one of levels+1 values.
func quantize(cover float64, levels int) float64 {
	return math.Round(cover*float64(levels)) / float64(levels)
}

// mix returns a·(1-t) + b·t.
func mix(a, b color.RGBA, t float64) color.RGBA {
	l := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-t) + float64(y)*t)) }
	return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 0xFF}
}

// roundCorners makes the image's corners transparent outside a quarter
// circle, like a terminal window's.
func (r *renderer) roundCorners(img *image.RGBA) {
	b := img.Bounds()
	rad := float64(r.radius)
	for _, corner := range []image.Point{b.Min, {b.Max.X - r.radius, b.Min.Y}, {b.Min.X, b.Max.Y - r.radius}, {b.Max.X - r.radius, b.Max.Y - r.radius}} {
		// The circle's centre, in the corner square's coordinates.
		cx, cy := rad, rad
		if corner.X != b.Min.X {
			cx = 0
		}
		if corner.Y != b.Min.Y {
			cy = 0
		}
		for y := 0; y < r.radius; y++ {
			for x := 0; x < r.radius; x++ {
				d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
				cover := quantize(math.Max(0, math.Min(1, rad-d+0.5)), r.levels)
				p := img.RGBAAt(corner.X+x, corner.Y+y)
				// Premultiplied: scale every channel.
				a := func(v uint8) uint8 { return uint8(math.Round(float64(v) * cover)) }
				img.SetRGBA(corner.X+x, corner.Y+y, color.RGBA{a(p.R), a(p.G), a(p.B), a(p.A)})
			}
		}
	}
}

// encode renders s as a PNG: paletted, several times smaller than RGBA,
// with fewer anti-aliasing steps if that is what it takes to fit 256
// colours; RGBA as the last resort.
func (r *renderer) encode(s *screen) ([]byte, error) {
	defer func(levels int) { r.levels = levels }(r.levels)
	for _, levels := range []int{r.levels, 8, 4} {
		r.levels = levels
		img, err := r.render(s)
		if err != nil {
			return nil, err
		}
		if levels > 4 && paletted(img) == nil {
			continue // too many colours: try fewer steps
		}
		var buf bytes.Buffer
		err = writePNG(&buf, img)
		return buf.Bytes(), err
	}
	return nil, nil // not reached: the last try always returns
}

// writePNG encodes img as a paletted PNG when it has at most 256 colours,
// as terminal screens nearly always do (a few colours and the steps of
// their anti-aliasing), else as RGBA.
func writePNG(w io.Writer, img *image.RGBA) error {
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if p := paletted(img); p != nil {
		return enc.Encode(w, p)
	}
	return enc.Encode(w, img)
}

// paletted converts img to a paletted image, or nil above 256 colours.
func paletted(img *image.RGBA) *image.Paletted {
	index := map[color.RGBA]uint8{}
	var pal color.Palette
	b := img.Bounds()
	out := image.NewPaletted(b, nil)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := img.RGBAAt(x, y)
			i, ok := index[p]
			if !ok {
				if len(pal) == 256 {
					return nil
				}
				i = uint8(len(pal))
				index[p] = i
				pal = append(pal, p)
			}
			out.Pix[out.PixOffset(x, y)] = i
		}
	}
	out.Palette = pal
	return out
}
