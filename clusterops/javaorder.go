package clusterops

import (
	"slices"
	"unicode/utf16"
)

// javaHashSetOrder returns items (distinct, in insertion order) in the
// iteration order of a java.util.HashSet they were added to one by one:
// by bucket (the spread hash h ^ h>>>16 masked to the table size, which
// starts at 16 and doubles once the set is three quarters full), then by
// insertion within a bucket. Kafka's tools print sets of broker ids and
// topic names in this order ("Clearing broker-level throttles on brokers
// 1,2,3").
func javaHashSetOrder[T comparable](items []T, hash func(T) int32) []T {
	capacity := 16
	for len(items) > capacity*3/4 {
		capacity *= 2
	}
	type entry struct {
		bucket int
		at     int
		v      T
	}
	es := make([]entry, len(items))
	for i, v := range items {
		h := uint32(hash(v))
		es[i] = entry{bucket: int((h ^ h>>16) & uint32(capacity-1)), at: i, v: v}
	}
	slices.SortStableFunc(es, func(a, b entry) int { return a.bucket - b.bucket })
	out := make([]T, len(es))
	for i, e := range es {
		out[i] = e.v
	}
	return out
}

// javaIntHash is Integer.hashCode.
func javaIntHash(v int) int32 { return int32(v) }

// javaStringHash is String.hashCode: s[0]*31^(n-1) + … over UTF-16 code
// units.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// JavaStringSetOrder is the iteration order of a java.util.HashSet (or a
// HashMap's keys) of names added in the given order: how Kafka's tools
// list topics they read into one (kafka-configs --describe of every
// topic).
func JavaStringSetOrder(names []string) []string { return javaHashSetOrder(names, javaStringHash) }

// JavaIntSetOrder is JavaStringSetOrder for integers (broker ids).
func JavaIntSetOrder(ids []int) []int { return javaHashSetOrder(ids, javaIntHash) }
