// Package filter is the `/` filter of the list screens: a substring match
// (case-insensitive), or a regular expression when the text starts with ~.
package filter

import (
	"fmt"
	"regexp"
	"strings"
)

// Matcher reports whether a string passes the filter.
type Matcher struct {
	text string
	sub  string
	re   *regexp.Regexp
}

// Compile parses a filter. An empty filter matches everything.
func Compile(s string) (Matcher, error) {
	m := Matcher{text: s}
	if r, ok := strings.CutPrefix(s, "~"); ok {
		re, err := regexp.Compile(r)
		if err != nil {
			return Matcher{}, fmt.Errorf("bad regular expression: %v", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		m.re = re
		return m, nil
	}
	m.sub = strings.ToLower(s)
	return m, nil
}

// Empty reports a filter that matches everything.
func (m Matcher) Empty() bool { return m.text == "" }

// Text is the filter as typed.
func (m Matcher) Text() string { return m.text }

// Match tests s.
func (m Matcher) Match(s string) bool {
	switch {
	case m.re != nil:
		return m.re.MatchString(s)
	case m.sub == "":
		return true
	}
	return containsFold(s, m.sub)
}

// containsFold is strings.Contains on lower-cased ASCII without allocating.
func containsFold(s, lowerSub string) bool {
	n := len(lowerSub)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lowerSub[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}
