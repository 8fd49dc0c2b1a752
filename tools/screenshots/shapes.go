package main

import (
	"image"
	"image/color"
	"image/draw"
	"math"
)

// Box drawing (U+2500…) and block elements (U+2580…) are drawn as shapes
// filling the cell exactly, as terminals do, so that borders join from
// cell to cell and the progress bar has no seams.

// Line weights of a box-drawing arm.
const (
	none = iota
	light
	heavy
	double
)

// arms are the weights of a character's arms: up, right, down, left.
type arms [4]uint8

var boxArms = map[rune]arms{
	'─': {0, light, 0, light}, '━': {0, heavy, 0, heavy},
	'│': {light, 0, light, 0}, '┃': {heavy, 0, heavy, 0},
	'┌': {0, light, light, 0}, '┐': {0, 0, light, light},
	'└': {light, light, 0, 0}, '┘': {light, 0, 0, light},
	'├': {light, light, light, 0}, '┤': {light, 0, light, light},
	'┬': {0, light, light, light}, '┴': {light, light, 0, light},
	'┼': {light, light, light, light},
	'┏': {0, heavy, heavy, 0}, '┓': {0, 0, heavy, heavy},
	'┗': {heavy, heavy, 0, 0}, '┛': {heavy, 0, 0, heavy},
	'┣': {heavy, heavy, heavy, 0}, '┫': {heavy, 0, heavy, heavy},
	'┳': {0, heavy, heavy, heavy}, '┻': {heavy, heavy, 0, heavy},
	'╋': {heavy, heavy, heavy, heavy},
	'╴': {0, 0, 0, light}, '╵': {light, 0, 0, 0}, '╶': {0, light, 0, 0}, '╷': {0, 0, light, 0},
	'╸': {0, 0, 0, heavy}, '╹': {heavy, 0, 0, 0}, '╺': {0, heavy, 0, 0}, '╻': {0, 0, heavy, 0},
	'═': {0, double, 0, double}, '║': {double, 0, double, 0},
	'╔': {0, double, double, 0}, '╗': {0, 0, double, double},
	'╚': {double, double, 0, 0}, '╝': {double, 0, 0, double},
}

// Rounded corners: the directions their two arms go (x, y).
var arcs = map[rune][2]int{'╭': {1, 1}, '╮': {-1, 1}, '╯': {-1, -1}, '╰': {1, -1}}

func isShape(r rune) bool {
	if _, ok := boxArms[r]; ok {
		return true
	}
	if _, ok := arcs[r]; ok {
		return true
	}
	return r >= 0x2580 && r <= 0x2595
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

// drawShape draws ch into the cell box in colour fg over the cell's
// background.
func drawShape(img *image.RGBA, box image.Rectangle, ch rune, fg color.RGBA, levels int) {
	w, h := box.Dx(), box.Dy()
	t := max(1, int(math.Round(float64(w)/8))) // a light line
	cx, cy := box.Min.X+(w-t)/2, box.Min.Y+(h-t)/2
	if a, ok := boxArms[ch]; ok {
		drawArms(img, box, a, t, cx, cy, fg)
		return
	}
	if d, ok := arcs[ch]; ok {
		drawArc(img, box, d, t, cx, cy, fg, levels)
		return
	}
	drawBlock(img, box, ch, fg)
}

func drawArms(img *image.RGBA, box image.Rectangle, a arms, t, cx, cy int, fg color.RGBA) {
	up, right, down, left := a[0], a[1], a[2], a[3]
	if up == double || right == double || down == double || left == double {
		drawDouble(img, box, a, t, cx, cy, fg)
		return
	}
	thick := func(weight uint8) int {
		if weight == heavy {
			return 2 * t
		}
		return t
	}
	// Each arm runs from the cell's edge to the far side of the crossing
	// line, so that corners and junctions are closed.
	hw := max(thick(left), thick(right)) // the horizontal line's thickness
	vw := max(thick(up), thick(down))
	if left == none && right == none {
		hw = 0
	}
	if up == none && down == none {
		vw = 0
	}
	hx0, hx1 := cx-(vw-t)/2, cx-(vw-t)/2+max(vw, t)
	vy0, vy1 := cy-(hw-t)/2, cy-(hw-t)/2+max(hw, t)
	if left != none {
		th := thick(left)
		y := cy - (th-t)/2
		fill(img, image.Rect(box.Min.X, y, hx1, y+th), fg)
	}
	if right != none {
		th := thick(right)
		y := cy - (th-t)/2
		fill(img, image.Rect(hx0, y, box.Max.X, y+th), fg)
	}
	if up != none {
		th := thick(up)
		x := cx - (th-t)/2
		fill(img, image.Rect(x, box.Min.Y, x+th, vy1), fg)
	}
	if down != none {
		th := thick(down)
		x := cx - (th-t)/2
		fill(img, image.Rect(x, vy0, x+th, box.Max.Y), fg)
	}
}

// drawDouble draws the double lines and corners (═ ║ ╔ ╗ ╚ ╝): two light
// lines g pixels either side of the centre line.
func drawDouble(img *image.RGBA, box image.Rectangle, a arms, t, cx, cy int, fg color.RGBA) {
	g := t + 1
	up, right, down, left := a[0] != none, a[1] != none, a[2] != none, a[3] != none
	switch {
	case left && right:
		fill(img, image.Rect(box.Min.X, cy-g, box.Max.X, cy-g+t), fg)
		fill(img, image.Rect(box.Min.X, cy+g, box.Max.X, cy+g+t), fg)
		return
	case up && down:
		fill(img, image.Rect(cx-g, box.Min.Y, cx-g+t, box.Max.Y), fg)
		fill(img, image.Rect(cx+g, box.Min.Y, cx+g+t, box.Max.Y), fg)
		return
	}
	hd, vd := 1, 1 // the corner's arms go right and down …
	if left {
		hd = -1
	}
	if up {
		vd = -1
	}
	// … the outer line turns on the far side of the centre, the inner one
	// on the near side.
	for _, off := range []int{-g, g} {
		x := cx - hd*off // the vertical arm's x
		y := cy - vd*off // the horizontal arm's y
		var hr, vr image.Rectangle
		if hd > 0 {
			hr = image.Rect(x, y, box.Max.X, y+t)
		} else {
			hr = image.Rect(box.Min.X, y, x+t, y+t)
		}
		if vd > 0 {
			vr = image.Rect(x, y, x+t, box.Max.Y)
		} else {
			vr = image.Rect(x, box.Min.Y, x+t, y+t)
		}
		fill(img, hr, fg)
		fill(img, vr, fg)
	}
}

// drawArc draws a rounded corner: a quarter circle joining the centre of
// the cell's edge in direction d[0] (horizontal) to the centre of its edge
// in direction d[1] (vertical), anti-aliased.
func drawArc(img *image.RGBA, box image.Rectangle, d [2]int, t, cx, cy int, fg color.RGBA, levels int) {
	// Line centres in pixel coordinates.
	lx, ly := float64(cx)+float64(t)/2, float64(cy)+float64(t)/2
	rad := math.Min(float64(box.Dx())/2, float64(box.Dy())/2)
	ox, oy := lx+float64(d[0])*rad, ly+float64(d[1])*rad // the circle's centre
	// Straight parts from the arc's ends to the edges.
	if d[0] > 0 {
		fill(img, image.Rect(int(math.Round(ox)), cy, box.Max.X, cy+t), fg)
	} else {
		fill(img, image.Rect(box.Min.X, cy, int(math.Round(ox)), cy+t), fg)
	}
	if d[1] > 0 {
		fill(img, image.Rect(cx, int(math.Round(oy)), cx+t, box.Max.Y), fg)
	} else {
		fill(img, image.Rect(cx, box.Min.Y, cx+t, int(math.Round(oy))), fg)
	}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			// Only the quadrant facing away from the arm directions.
			if float64(d[0])*(px-ox) > 0.5 || float64(d[1])*(py-oy) > 0.5 {
				continue
			}
			dist := math.Abs(math.Hypot(px-ox, py-oy) - rad)
			cover := quantize(math.Max(0, math.Min(1, float64(t)/2+0.5-dist)), levels)
			if cover > 0 {
				bg := img.RGBAAt(x, y)
				img.SetRGBA(x, y, mix(bg, fg, cover))
			}
		}
	}
}

// drawBlock draws the block elements U+2580–U+2595.
func drawBlock(img *image.RGBA, box image.Rectangle, ch rune, fg color.RGBA) {
	w, h := box.Dx(), box.Dy()
	eighthsUp := func(n int) image.Rectangle { // lower n/8
		return image.Rect(box.Min.X, box.Max.Y-h*n/8, box.Max.X, box.Max.Y)
	}
	eighthsLeft := func(n int) image.Rectangle {
		return image.Rect(box.Min.X, box.Min.Y, box.Min.X+w*n/8, box.Max.Y)
	}
	shade := func(t float64) {
		bg := img.RGBAAt(box.Min.X, box.Min.Y)
		fill(img, box, mix(bg, fg, t))
	}
	switch {
	case ch == '▀':
		fill(img, image.Rect(box.Min.X, box.Min.Y, box.Max.X, box.Min.Y+h/2), fg)
	case ch >= '▁' && ch <= '█':
		fill(img, eighthsUp(int(ch-'▁')+1), fg)
	case ch >= '▉' && ch <= '▏':
		fill(img, eighthsLeft(8-int(ch-'▉')-1), fg)
	case ch == '▐':
		fill(img, image.Rect(box.Min.X+w/2, box.Min.Y, box.Max.X, box.Max.Y), fg)
	case ch == '░':
		shade(0.25)
	case ch == '▒':
		shade(0.5)
	case ch == '▓':
		shade(0.75)
	case ch == '▔':
		fill(img, image.Rect(box.Min.X, box.Min.Y, box.Max.X, box.Min.Y+max(1, h/8)), fg)
	case ch == '▕':
		fill(img, image.Rect(box.Max.X-max(1, w/8), box.Min.Y, box.Max.X, box.Max.Y), fg)
	}
}
