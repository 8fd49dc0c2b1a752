package zkwatch

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

// noChroot is the error of a connect string whose chroot does not exist,
// with what does: the closest existing ancestor's children whose names are
// a typo away from the missing part ("/kafak": "did you mean /kafka?"),
// each as the connect string to use. A failed read only drops the hint.
func (c *Conn) noChroot(ctx context.Context) error {
	servers := strings.Join(c.cs.Servers, ",")
	msg := fmt.Sprintf("zookeeper %s: %v: %s", servers, ErrNoChroot, c.chroot)
	if near := c.nearChroots(ctx); len(near) > 0 {
		alts := make([]string, len(near))
		for i, n := range near {
			alts[i] = servers + n
		}
		msg += " (did you mean " + strings.Join(near, " or ") + "? It exists: connect to " + strings.Join(alts, " or ") + ")"
	}
	return &chrootError{msg: msg}
}

// chrootError is ErrNoChroot with its message.
type chrootError struct{ msg string }

func (e *chrootError) Error() string { return e.msg }
func (e *chrootError) Unwrap() error { return ErrNoChroot }

// nearChroots are the existing znodes that the chroot most likely meant:
// below its closest existing ancestor, the children within a small edit
// distance of the chroot's first missing part (a transposition counts
// one) under which the rest of the chroot exists, closest first, at most
// three.
func (c *Conn) nearChroots(ctx context.Context) []string {
	parts := strings.Split(strings.Trim(c.chroot, "/"), "/")
	parent := "/"
	for i, p := range parts {
		next := path.Join(parent, p)
		ok, _, err := deadline3(ctx, c, "exists", "/", func() (bool, *zk.Stat, error) { return c.raw.Exists(next) })
		if err != nil {
			return nil
		}
		if ok {
			parent = next
			continue
		}
		kids, _, err := deadline3(ctx, c, "children", "/", func() ([]string, *zk.Stat, error) { return c.raw.Children(parent) })
		if err != nil {
			return nil
		}
		rest := strings.Join(parts[i+1:], "/")
		type cand struct {
			name string
			d    int
		}
		var cs []cand
		for _, k := range kids {
			if k == "zookeeper" && parent == "/" {
				continue
			}
			if d := editDistance(p, k); d <= max(1, min(2, len([]rune(p))/3)) {
				cs = append(cs, cand{k, d})
			}
		}
		slices.SortStableFunc(cs, func(a, b cand) int {
			if a.d != b.d {
				return a.d - b.d
			}
			return strings.Compare(a.name, b.name)
		})
		var out []string
		for _, x := range cs {
			full := path.Join(parent, x.name, rest)
			if ok, _, err := deadline3(ctx, c, "exists", "/", func() (bool, *zk.Stat, error) { return c.raw.Exists(full) }); err == nil && ok {
				out = append(out, full)
			}
			if len(out) == 3 {
				break
			}
		}
		return out
	}
	return nil
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of two adjacent runes
// that make one the other.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
