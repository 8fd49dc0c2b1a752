package filter

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/theme"
)

func TestField(t *testing.T) {
	km := keys.Default().Input
	f := NewField(theme.New(true), km, "")
	f.Start()
	var typed Typed
	for _, k := range []string{"o", "r"} {
		_, typed = f.Update(fixture.Key(k))
	}
	if !typed.Changed || f.Matcher().Text() != "or" || !f.Typing() {
		t.Fatalf("typed %+v %q", typed, f.Matcher().Text())
	}
	if _, typed = f.Update(fixture.Key("enter")); typed.Changed || f.Typing() || !f.Active() {
		t.Fatalf("accept keeps the filter: %+v", typed)
	}
	f.Start()
	if _, typed = f.Update(fixture.Key("down")); !typed.HandBack || f.Typing() {
		t.Fatalf("leave hands the key back: %+v", typed)
	}
	f.Set("~o")
	f.Start()
	f.Update(fixture.Key("["))
	if f.Err() == "" || f.Matcher().Text() != "~o" {
		t.Fatalf("a bad regex keeps the filter in force: %q %q", f.Err(), f.Matcher().Text())
	}
	st := theme.New(true)
	if title := ansi.Strip(f.Title(&st, "")); title != "   /~o[   bad regular expression: missing closing ]: `[`" {
		t.Fatalf("the error is not shown as typed, after the text: %q", title)
	}
	if _, typed = f.Update(fixture.Key("esc")); !typed.Changed || f.Active() || f.Typing() {
		t.Fatalf("cancel clears: %+v", typed)
	}
	// A screen that keeps the arrows in the field.
	km.Leave.SetEnabled(false)
	g := NewField(theme.New(true), km, "")
	g.Start()
	if _, typed = g.Update(fixture.Key("down")); typed.HandBack || !g.Typing() {
		t.Fatalf("leave disabled: %+v", typed)
	}
}
