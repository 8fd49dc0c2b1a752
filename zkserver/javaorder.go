package zkserver

import (
	"slices"
	"unicode/utf16"
)

// ZooKeeper 3.8 deletes a closing session's ephemerals in the iteration order
// of a java.util.HashSet (a clone of the session's set), so watchers see the
// events in that order. The functions below reproduce it, which keeps event
// order identical to the real server's.

// javaStringHash is java.lang.String.hashCode.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// javaBucket is HashMap's bucket index for a String key in a table of size n.
func javaBucket(s string, n int) int { return bucketOf(javaStringHash(s), n) }

// bucketOf spreads a Java hash code as HashMap and ConcurrentHashMap do and
// returns its bucket in a table of size n.
func bucketOf(hash int32, n int) int {
	h := uint32(hash)
	return int((h ^ h>>16) & uint32(n-1))
}

// javaIDHash is the jute-generated hashCode of an Id{scheme, id} record.
func javaIDHash(scheme, id string) int32 {
	r := int32(17)
	r = 37*r + javaStringHash(scheme)
	r = 37*r + javaStringHash(id)
	return r
}

// authOrder returns a connection's auth ids in the iteration order of 3.8's
// ServerCnxn.authInfo (a set backed by a ConcurrentHashMap): whoAmI lists
// them, and an "auth" ACL expands to them, in this order.
func authOrder(ids []authID) []authID {
	out := slices.Clone(ids)
	n := setCapacity(len(ids))
	slices.SortStableFunc(out, func(a, b authID) int {
		return bucketOf(javaIDHash(a.scheme, a.id), n) - bucketOf(javaIDHash(b.scheme, b.id), n)
	})
	return out
}

// tableSizeFor is HashMap.tableSizeFor: the next power of two ≥ c.
func tableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}

// setCapacity is the table size of a HashSet that once held peak elements
// (default 16, doubling when size exceeds 0.75 × capacity; never shrinks).
func setCapacity(peak int) int {
	c := 16
	for peak > c*3/4 {
		c *= 2
	}
	return c
}

// javaCloseOrder returns a session's ephemeral paths in the order 3.8
// deletes them: the set's own iteration order (bucket, then insertion order
// within a bucket), re-bucketed by HashSet.clone into a table pre-sized for
// its element count.
func javaCloseOrder(ephemerals map[string]uint64, peak int) []string {
	paths := make([]string, 0, len(ephemerals))
	for p := range ephemerals {
		paths = append(paths, p)
	}
	byBucket := func(n int, tie func(a, b string) int) func(a, b string) int {
		return func(a, b string) int {
			if d := javaBucket(a, n) - javaBucket(b, n); d != 0 {
				return d
			}
			return tie(a, b)
		}
	}
	original := setCapacity(peak)
	slices.SortStableFunc(paths, byBucket(original, func(a, b string) int {
		switch x, y := ephemerals[a], ephemerals[b]; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}))
	clone := tableSizeFor(int(float32(len(paths))/0.75 + 1))
	slices.SortStableFunc(paths, byBucket(clone, func(string, string) int { return 0 }))
	return paths
}
