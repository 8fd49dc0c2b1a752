package cluster

import (
	"fmt"
	"regexp"
	"strings"
)

// TopicFilter selects topics the way kafka-topics' --topic does: a Java
// regular expression matched against the whole name, where ',' separates
// alternatives and quotes and blanks are dropped (Kafka's IncludeList).
type TopicFilter struct {
	re              *regexp.Regexp
	excludeInternal bool
}

// NewTopicFilter compiles --topic (empty: every topic).
func NewTopicFilter(pattern string, excludeInternal bool) (TopicFilter, error) {
	f := TopicFilter{excludeInternal: excludeInternal}
	if pattern == "" {
		return f, nil
	}
	p := strings.TrimSpace(pattern)
	p = strings.ReplaceAll(p, ",", "|")
	p = strings.ReplaceAll(p, " ", "")
	p = strings.Trim(p, `"'`)
	re, err := regexp.Compile("^(?:" + p + ")$")
	if err != nil {
		return f, fmt.Errorf("invalid --topic %q: %w", pattern, err)
	}
	f.re = re
	return f, nil
}

// Match reports whether the filter selects topic t.
func (f TopicFilter) Match(t string) bool {
	if f.excludeInternal && IsInternalTopic(t) {
		return false
	}
	return f.re == nil || f.re.MatchString(t)
}

// Topics returns the matching topics of s in name order.
func (f TopicFilter) Topics(s *Snapshot) []*Topic {
	var out []*Topic
	for _, t := range s.Topics() {
		if f.Match(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// Names returns every topic name kafka-topics --list would consider: the
// topics plus deletion markers of topics already gone are not included.
func (f TopicFilter) Names(s *Snapshot) []string {
	var out []string
	for _, t := range f.Topics(s) {
		out = append(out, t.Name)
	}
	return out
}
