// Package text holds the small formatting helpers that the model, the
// sandbox, the CLI and the screens share, so that a list of ids or a
// missing broker reads the same everywhere: id lists, "none" for no
// broker, and singular or plural words.
package text

import (
	"strconv"
	"strings"
)

// Join renders ids separated by sep: Join([]int{1, 2}, ", ") is "1, 2".
func Join(ids []int, sep string) string {
	if len(ids) == 0 {
		return ""
	}
	b := make([]byte, 0, (3+len(sep))*len(ids))
	for i, id := range ids {
		if i > 0 {
			b = append(b, sep...)
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(b)
}

// Ints renders ids separated by bare commas, "1,2,3", as Kafka's tools
// print replica lists and ISRs.
func Ints(ids []int) string { return Join(ids, ",") }

// List renders ids in brackets, "[1,2,3]".
func List(ids []int) string { return "[" + Ints(ids) + "]" }

// Broker renders a broker id; a negative one (no leader, no controller)
// is "none".
func Broker(id int) string {
	if id < 0 {
		return "none"
	}
	return strconv.Itoa(id)
}

// Plural returns one when n is 1 and many otherwise, so that a caller
// chooses both forms ("is"/"are", "its partition"/"all 3 partitions").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count renders n and a regular noun: "1 broker", "0 brokers", "12 brokers".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Plural(n, noun, noun+"s")
}

// CompareNatural orders numeric strings by value, before every other
// string, and those by bytes: broker ids and partition numbers as an
// operator reads them ("2" before "10", "<default>" last).
func CompareNatural(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return x - y
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// Range is "lo" when hi is lo, else "lo–hi".
func Range(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return strconv.Itoa(lo) + "–" + strconv.Itoa(hi)
}
