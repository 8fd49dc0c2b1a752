package cluster

import "slices"

// topicTrack keeps a value computed from each topic of the last snapshot
// it saw (a contribution to running sums), so that the next snapshot
// costs what changed: a *Topic in a snapshot never changes, and an
// unchanged topic is the same pointer in the next one. Not safe for
// concurrent use.
type topicTrack[C any] struct {
	topics []*Topic // the last snapshot's topics (a copy: updated in place)
	memo   []C      // what of each
}

// update brings the memo to s's topics: of for every topic not seen
// before or changed, and drop called with what the memo held for every
// topic changed or gone, add with what it now holds for every topic new
// or changed (in no particular order). When the set of topics is the
// same (their names), the lists are compared pointer by pointer; else
// they are merged (both are sorted by name), the memos of the topics
// unchanged kept.
func (tm *topicTrack[C]) update(s *Snapshot, of func(*Topic) C, drop, add func(C)) {
	cur := s.topics
	if sameTopics(tm.topics, cur) {
		for i, t := range cur {
			if tm.topics[i] == t {
				continue
			}
			drop(tm.memo[i])
			tm.topics[i], tm.memo[i] = t, of(t)
			add(tm.memo[i])
		}
		return
	}
	memo := make([]C, len(cur))
	j := 0
	for i, t := range cur {
		for j < len(tm.topics) && tm.topics[j].Name < t.Name {
			drop(tm.memo[j])
			j++
		}
		if j < len(tm.topics) && tm.topics[j].Name == t.Name {
			if tm.topics[j] == t {
				memo[i] = tm.memo[j]
				j++
				continue
			}
			drop(tm.memo[j])
			j++
		}
		memo[i] = of(t)
		add(memo[i])
	}
	for ; j < len(tm.topics); j++ {
		drop(tm.memo[j])
	}
	tm.topics, tm.memo = slices.Clone(cur), memo
}

// reset forgets every memo: the next update computes them all again.
func (tm *topicTrack[C]) reset() { tm.topics, tm.memo = nil, nil }

// sameTopics reports that two sorted topic lists name the same topics.
func sameTopics(a, b []*Topic) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}
