package ui

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// plainScreen is the least a screen is.
type plainScreen struct{ w, h int }

func (p *plainScreen) ShortHelp() []key.Binding              { return nil }
func (p *plainScreen) FullHelp() [][]key.Binding             { return nil }
func (p *plainScreen) Title() string                         { return "Brokers" }
func (p *plainScreen) Update(tea.Msg) (tea.Cmd, nav.Request) { return nil, nil }
func (p *plainScreen) View() string                          { return "the brokers screen" }
func (p *plainScreen) SetSize(w, h int)                      { p.w, p.h = w, h }
func (p *plainScreen) SetStyles(theme.Styles)                {}

// TestNewTabIsOneRow: a row added to the tab table is a tab everywhere:
// the header, its number key, its `:` commands and their completion, the
// "unknown command" hint, the help page and its legend.
func TestNewTabIsOneRow(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	n := strconv.Itoa(len(a.newTabs()) + 1)
	a.setTabs(append(a.newTabs(), tab{screen: &plainScreen{}, label: "Brokers", keyHelp: "broker list", commands: []string{"brokers-list", "bl"}, about: "every broker"}))
	a.update(tea.WindowSizeMsg{Width: 120, Height: 30})
	load(a, fixture.Small())
	if !strings.Contains(strings.Split(screen(a), "\n")[0], " "+n+" Brokers ") {
		t.Fatalf("header:\n%s", screen(a))
	}
	press(a, n)
	if a.Active() != "brokers-list" || !strings.Contains(screen(a), "the brokers screen") {
		t.Fatalf("%s: %s\n%s", n, a.Active(), screen(a))
	}
	press(a, "1", ":", "b", "l", "enter")
	if a.Active() != "brokers-list" {
		t.Fatalf(":bl: %s", a.Active())
	}
	if !slices.Contains(a.completions("b"), "brokers-list") {
		t.Fatalf("completion %v", a.completions("b"))
	}
	press(a, ":", "x", "enter")
	if s, _ := a.Status(); !strings.Contains(s, ":brokers-list") {
		t.Fatalf("unknown: %q", s)
	}
	press(a, "?")
	if out := screen(a); !strings.Contains(out, n+" broker list") || !strings.Contains(out, ":brokers-list") {
		t.Fatalf("help:\n%s", out)
	}
}
