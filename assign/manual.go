package assign

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/internal/text"
)

// ParseReplicaAssignment parses kafka-topics' --replica-assignment value
// ("0:1,1:2,2:0": partition i is the i-th comma-separated list of
// colon-separated broker ids) with TopicCommand's rules and messages:
// Java's String.split semantics (trailing empty pieces dropped, inner ones
// kept), each id trimmed and parsed as a 32-bit int, no duplicate within a
// list, every list as long as partition 0's.
func ParseReplicaAssignment(s string) (Assignment, error) {
	parts := javaSplit(s, ",")
	out := make(Assignment, len(parts))
	for i, part := range parts {
		pieces := javaSplit(part, ":")
		brokers := make([]int, 0, len(pieces))
		for _, piece := range pieces {
			piece = javaTrim(piece)
			id, err := strconv.ParseInt(piece, 10, 32)
			if err != nil {
				return nil, errorf(NumberFormat, "For input string: %q", piece)
			}
			brokers = append(brokers, int(id))
		}
		if dups := duplicates(brokers); len(dups) > 0 {
			return nil, errorf(AdminCommandFailed, "Partition replica lists may not contain duplicate entries: %s", text.Join(dups, ","))
		}
		out[i] = brokers
		if len(brokers) != len(out[0]) {
			return nil, errorf(AdminOperation, "Partition %d has different replication factor: [%s]", i, text.Join(brokers, ", "))
		}
	}
	return out, nil
}

// ValidateManual runs AdminZkClient.validateTopicCreate's assignment checks
// (items 5–7 of the spec's §2.2), in Kafka's order:
//   - every partition has the same number of replicas (an empty assignment fails here);
//   - no replica list names a broker twice;
//   - partition ids are 0..n−1, checked as Kafka does, by comparing the sum of
//     the non-negative ids with n(n−1)/2 (so negative ids slip through, as in Kafka).
//
// Broker ids are not checked against registered brokers: Kafka does not either.
func ValidateManual(a Assignment) error {
	sizes := map[int]bool{}
	for _, rs := range a {
		sizes[len(rs)] = true
	}
	if len(sizes) != 1 {
		return &Error{InvalidReplicaAssignment, MessageSameNumberOfReplicas}
	}
	for _, p := range a.Partitions() {
		if len(duplicates(a[p])) > 0 {
			return &Error{InvalidReplicaAssignment, messageDuplicateReplicaAssignment + ScalaString(a)}
		}
	}
	sum := 0
	for p := range a {
		if p >= 0 {
			sum += p
		}
	}
	n := len(a)
	if sum != n*(n-1)/2 {
		return &Error{InvalidReplicaAssignment, MessagePartitionsNotConsecutive}
	}
	return nil
}

// ScalaString renders an assignment the way Kafka's messages print a Scala
// Map[Int, Seq[Int]]: "Map(0 -> List(1, 2), 1 -> List(2, 3))". Kafka's own
// order is hash order; ktopo prints partitions in ascending order.
func ScalaString(a Assignment) string {
	var b strings.Builder
	b.WriteString("Map(")
	for i, p := range a.Partitions() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d -> List(%s)", p, text.Join(a[p], ", "))
	}
	b.WriteByte(')')
	return b.String()
}

// duplicates returns the values that occur more than once, in the iteration
// order of the java.util.HashSet<Integer> that Kafka's ToolsUtils.duplicates
// returns (so messages name them in Kafka's order).
func duplicates(ids []int) []int {
	seen := make(map[int]bool, len(ids))
	var dups []int
	for _, id := range ids {
		if seen[id] && !slices.Contains(dups, id) {
			dups = append(dups, id)
		}
		seen[id] = true
	}
	return javaHashSetOrder(dups)
}

// javaHashSetOrder orders distinct ints (given in insertion order) as a
// java.util.HashSet<Integer> iterates them: by bucket index in a table whose
// capacity starts at 16 and doubles past 75 % load, insertion order within a
// bucket.
func javaHashSetOrder(ids []int) []int {
	capacity := 16
	for float64(len(ids)) > 0.75*float64(capacity) {
		capacity *= 2
	}
	bucket := func(v int) int {
		h := uint32(int32(v))
		return int((h ^ h>>16) & uint32(capacity-1))
	}
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b int) int { return bucket(a) - bucket(b) })
	return out
}

// javaSplit is String.split(sep) for a literal one-character separator:
// trailing empty strings are removed; an input without the separator comes
// back whole (so "" gives [""]).
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	if len(parts) == 1 {
		return parts
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// javaTrim is String.trim: it removes leading and trailing characters ≤ U+0020.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
