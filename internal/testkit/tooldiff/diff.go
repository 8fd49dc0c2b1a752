package tooldiff

import (
	"fmt"
	"strings"
)

// Unified returns a unified diff of two texts, line by line, with three
// lines of context ("" when they are equal). aName and bName head it.
func Unified(aName, bName, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	ops := lcsOps(al, bl)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", aName, bName)
	const ctx = 3
	// Group the edit script into hunks: runs of changes with up to 2*ctx
	// equal lines between them.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			j := end
			for j < len(ops) && ops[j].kind == ' ' {
				j++
			}
			if j == len(ops) || j-end > 2*ctx {
				end = min(len(ops), end+ctx)
				break
			}
			end = j
		}
		aStart, bStart, aN, bN := -1, -1, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				if aStart < 0 {
					aStart = o.a
				}
				aN++
			}
			if o.kind != '-' {
				if bStart < 0 {
					bStart = o.b
				}
				bN++
			}
		}
		if aStart < 0 {
			aStart = ops[start].a - 1
		}
		if bStart < 0 {
			bStart = ops[start].b - 1
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", aStart+1, aN, bStart+1, bN)
		for _, o := range ops[start:end] {
			line := ""
			if o.kind == '+' {
				line = bl[o.b]
			} else {
				line = al[o.a]
			}
			sb.WriteByte(o.kind)
			sb.WriteString(line)
			sb.WriteByte('\n')
		}
		i = end
	}
	return sb.String()
}

// op is one line of an edit script: ' ' kept, '-' only in a, '+' only in
// b; a and b are the line's index in each text (the next line's where it
// is not in that text).
type op struct {
	kind byte
	a, b int
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// lcsOps is the edit script of a longest common subsequence (the outputs
// compared are a few dozen lines: quadratic is fine).
func lcsOps(a, b []string) []op {
	n, m := len(a), len(b)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', i, j})
			i++
			j++
		case i < n && (j == m || l[i+1][j] >= l[i][j+1]):
			ops = append(ops, op{'-', i, j})
			i++
		default:
			ops = append(ops, op{'+', i, j})
			j++
		}
	}
	return ops
}
