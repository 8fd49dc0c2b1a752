package heat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/ui/theme"
)

func sample(after bool) []Rack {
	racks := []Rack{
		{Label: "rack-a", Brokers: []Broker{{ID: 1, Live: true, Load: Load{48, 31}}, {ID: 4, Live: true, Load: Load{52, 12}, Note: "8/16 not led: 50% › rebalance moves 8"}}},
		{Label: "rack-b", Brokers: []Broker{{ID: 2, Live: true, Load: Load{52, 17}}, {ID: 5, Live: true, Load: Load{48, 17}}}},
		{Label: "rack-c", Brokers: []Broker{{ID: 3, Live: true, Load: Load{50, 16}}, {ID: 6, Load: Load{50, 0}, Note: "16/16 not led: 100% (down)"}}},
	}
	if after {
		// broker 6 drained onto the others of its rack and the rest.
		racks[2].Brokers[1].After = &Load{0, 0}
		racks[2].Brokers[0].After = &Load{70, 24}
		racks[0].Brokers[0].After = &Load{58, 31}
		racks[1].Brokers[0].After = &Load{72, 18}
	}
	return racks
}

func TestLines(t *testing.T) {
	st := theme.New(true)
	for _, w := range []int{80, 200} {
		for _, c := range []struct {
			name  string
			racks []Rack
		}{
			{"racks", sample(false)},
			{"after", sample(true)},
			{"one-rack", []Rack{{Label: "(no rack)", Brokers: []Broker{{ID: 1, Live: true, Load: Load{3, 1}}, {ID: 2, Live: true, Load: Load{1, 0}}}}}},
		} {
			t.Run(fmt.Sprintf("%d/%s", w, c.name), func(t *testing.T) {
				lines := Lines(&st, c.racks, w, "preferred leaders")
				if len(lines) != Height(c.racks) {
					t.Fatalf("%d lines, Height says %d", len(lines), Height(c.racks))
				}
				for i, l := range lines {
					if n := ansi.StringWidth(l); n > w {
						t.Errorf("line %d is %d columns wide:\n%s", i, n, ansi.Strip(l))
					}
				}
				golden.RequireEqual(t, ansi.Strip(strings.Join(lines, "\n")))
			})
		}
	}
}

func TestBar(t *testing.T) {
	for _, c := range []struct {
		v, most, w int
		want       string
	}{
		{10, 10, 4, "████"},
		{5, 10, 4, "██  "},
		{1, 10, 4, "▍   "},
		{1, 1000, 4, "▏   "},
		{0, 10, 4, "    "},
		{3, 0, 2, "  "},
	} {
		if got := bar(c.v, c.most, c.w); got != c.want {
			t.Errorf("bar(%d, %d, %d) = %q, want %q", c.v, c.most, c.w, got, c.want)
		}
	}
}
