// Package theme is ktopo's palette and prebuilt styles. It is a leaf
// package: ui and every screen import it, it imports neither of them.
//
// Colours are named by role (Accent, Leader, Offline …), never by hue.
// Everything is built once per background change in New; View code only
// indexes and concatenates. Meaning is never carried by colour alone: the
// screens also mark leaders, out-of-sync replicas and offline brokers with
// text, so a NO_COLOR terminal (see Mono) stays readable.
package theme

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Ink is a text style reduced to its ANSI prefix and suffix, so that
// painting a cell costs a string concatenation instead of a lipgloss Render
// (about 40 ns against 3 µs). Only colour and attributes survive; padding,
// width and borders must not be used with an Ink.
type Ink struct{ pre, post string }

// NewInk reduces s to an Ink.
func NewInk(s lipgloss.Style) Ink {
	r := s.Render("X")
	i := strings.IndexByte(r, 'X')
	if i < 0 {
		return Ink{}
	}
	return Ink{pre: r[:i], post: r[i+1:]}
}

// S paints s.
func (k Ink) S(s string) string {
	if k.pre == "" || s == "" {
		return s
	}
	return k.pre + s + k.post
}

// Put paints s into b without building an intermediate string (for row
// renderers that paint many cells).
func (k Ink) Put(b *strings.Builder, s string) {
	if k.pre == "" || s == "" {
		b.WriteString(s)
		return
	}
	b.WriteString(k.pre)
	b.WriteString(s)
	b.WriteString(k.post)
}

// Unless is k, or no ink at all when cond holds: the cells of a selected
// row stay plain, because the row is painted whole in the selection ink.
func (k Ink) Unless(cond bool) Ink {
	if cond {
		return Ink{}
	}
	return k
}

// If is k when cond holds, no ink otherwise.
func (k Ink) If(cond bool) Ink { return k.Unless(!cond) }

// Plain reports whether the ink adds nothing.
func (k Ink) Plain() bool { return k.pre == "" }

// Palette is the set of role colours.
type Palette struct {
	Text, Muted, Subtle, Accent, AccentText color.Color
	Online, Offline, Warning, Danger        color.Color
	Leader, Controller, Flash, SelectedBg   color.Color
	Live, ReadOnly, Production, Sandbox     color.Color
	BadgeText                               color.Color
}

// FlashSteps is the length of the flash ramps.
const FlashSteps = 12

// Styles are the palette turned into styles and inks, built once.
type Styles struct {
	Dark, Mono bool
	Palette    Palette

	// Inks for cells and fragments.
	Text, Muted, Subtle, Bold, Accent, Header Ink
	Online, Offline, Warning, Danger, Leader  Ink
	Controller, Selected, SelectedMark, Key   Ink
	Error, Banner, Flash                      Ink

	// FlashRamp fades a changed cell from the flash colour to normal text,
	// FlashSteps inks long (index 0 = just changed).
	FlashRamp []Ink

	// Mode badges for the status bar.
	SandboxBadge, LiveBadge, ReadOnlyBadge, ProductionBadge lipgloss.Style

	// Boxes.
	Card, CardSelected, CardOffline lipgloss.Style
	Pane, PaneFocused               lipgloss.Style
	Modal                           lipgloss.Style
	TabActive, TabInactive          Ink

	// Help is for the bubbles help model.
	Help help.Styles
}

// New builds the styles for a dark or light terminal background.
func New(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	c := lipgloss.Color
	p := Palette{
		Text:       ld(c("#1F2328"), c("#D8DEE9")),
		Muted:      ld(c("#6E7781"), c("#8B949E")),
		Subtle:     ld(c("#C6CBD1"), c("#3B4252")),
		Accent:     ld(c("#5A56E0"), c("#8F8CF8")),
		AccentText: ld(c("#FFFFFF"), c("#16161E")),
		Online:     ld(c("#1A7F37"), c("#56D364")),
		Offline:    ld(c("#8C959F"), c("#6E7681")),
		Warning:    ld(c("#9A6700"), c("#E3B341")),
		Danger:     ld(c("#CF222E"), c("#FF7B72")),
		Leader:     ld(c("#0550AE"), c("#79C0FF")),
		Controller: ld(c("#8250DF"), c("#D2A8FF")),
		Flash:      ld(c("#BF8700"), c("#FFD33D")),
		SelectedBg: ld(c("#DDF4FF"), c("#263356")),
		Live:       ld(c("#1A7F37"), c("#2EA043")),
		ReadOnly:   ld(c("#9A6700"), c("#BB8009")),
		Production: ld(c("#CF222E"), c("#DA3633")),
		Sandbox:    ld(c("#5A56E0"), c("#6E6AF0")),
		BadgeText:  c("#FFFFFF"),
	}
	return build(p, isDark, false)
}

// Mono builds styles for NO_COLOR: attributes only (bold, faint, reverse,
// underline), no colour at all.
func Mono() Styles {
	return build(Palette{}, true, true)
}

func build(p Palette, dark, mono bool) Styles {
	st := lipgloss.NewStyle
	fg := func(c color.Color) lipgloss.Style {
		if mono || c == nil {
			return st()
		}
		return st().Foreground(c)
	}
	s := Styles{Dark: dark, Mono: mono, Palette: p}
	s.Text = NewInk(fg(p.Text))
	s.Muted = NewInk(fg(p.Muted).Faint(mono))
	s.Subtle = NewInk(fg(p.Subtle).Faint(mono))
	s.Bold = NewInk(st().Bold(true))
	s.Accent = NewInk(fg(p.Accent).Bold(true))
	s.Header = NewInk(fg(p.Muted).Bold(true))
	s.Online = NewInk(fg(p.Online))
	s.Offline = NewInk(fg(p.Offline).Faint(mono))
	s.Warning = NewInk(fg(p.Warning).Bold(mono))
	s.Danger = NewInk(fg(p.Danger).Bold(true))
	s.Leader = NewInk(fg(p.Leader).Bold(true))
	s.Controller = NewInk(fg(p.Controller).Bold(true))
	s.Key = NewInk(fg(p.Accent))
	s.Error = NewInk(fg(p.Danger).Bold(true))
	s.Flash = NewInk(fg(p.Flash).Bold(true))
	if mono {
		s.Selected = NewInk(st().Reverse(true))
		s.Banner = NewInk(st().Reverse(true).Bold(true))
		s.TabActive = NewInk(st().Reverse(true).Bold(true))
		s.TabInactive = Ink{}
	} else {
		s.Selected = NewInk(st().Background(p.SelectedBg).Foreground(p.Text))
		s.Banner = NewInk(st().Background(p.Warning).Foreground(p.AccentText).Bold(true))
		s.TabActive = NewInk(st().Background(p.Accent).Foreground(p.AccentText).Bold(true))
		s.TabInactive = NewInk(fg(p.Muted))
	}
	s.SelectedMark = NewInk(fg(p.Accent).Bold(true))

	s.FlashRamp = make([]Ink, FlashSteps)
	if mono {
		for i := range s.FlashRamp {
			if i < FlashSteps/2 {
				s.FlashRamp[i] = NewInk(st().Bold(true).Underline(true))
			} else {
				s.FlashRamp[i] = NewInk(st().Bold(true))
			}
		}
	} else {
		for i, col := range lipgloss.Blend1D(FlashSteps, p.Flash, p.Text) {
			s.FlashRamp[i] = NewInk(st().Foreground(col).Bold(i < FlashSteps-2))
		}
	}

	badge := func(bg color.Color) lipgloss.Style {
		b := st().Bold(true).Padding(0, 1)
		if mono {
			return b.Reverse(true)
		}
		return b.Background(bg).Foreground(p.BadgeText)
	}
	s.SandboxBadge = badge(p.Sandbox)
	s.LiveBadge = badge(p.Live)
	s.ReadOnlyBadge = badge(p.ReadOnly)
	s.ProductionBadge = badge(p.Production)

	border := func(c color.Color) lipgloss.Style {
		b := st().Border(lipgloss.RoundedBorder())
		if !mono && c != nil {
			b = b.BorderForeground(c)
		}
		return b
	}
	s.Card = border(p.Subtle)
	s.CardSelected = border(p.Accent)
	if mono {
		s.CardSelected = st().Border(lipgloss.DoubleBorder())
	}
	s.CardOffline = border(p.Danger)
	if mono {
		s.CardOffline = st().Border(lipgloss.NormalBorder())
	}
	s.Pane = border(p.Subtle)
	s.PaneFocused = border(p.Accent)
	s.Modal = border(p.Accent).Padding(0, 1)

	s.Help = help.DefaultStyles(dark)
	if mono {
		s.Help = help.Styles{}
	}
	return s
}
