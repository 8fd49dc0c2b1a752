package cluster

// idLists interns short broker id lists (replicas, ISRs): a cluster of
// 100,000 partitions on 30 brokers has a few thousand distinct ones, so
// each partition shares them instead of holding two slices of its own.
// The slices are never modified (Partition's are shared anyway).
type idLists struct {
	m map[idKey][]int
}

// idKey is a list of up to four ids (longer ones are not interned).
type idKey struct {
	n  uint8
	id [4]int32
}

// maxIDLists bounds the table: past it, lists are kept as they come.
const maxIDLists = 1 << 16

// of returns the interned copy of ids (ids itself the first time).
func (l *idLists) of(ids []int) []int {
	if len(ids) == 0 || len(ids) > 4 {
		return ids
	}
	k := idKey{n: uint8(len(ids))}
	for i, id := range ids {
		if id < minInt32 || id > maxInt32 {
			return ids
		}
		k.id[i] = int32(id)
	}
	if s, ok := l.m[k]; ok {
		return s
	}
	if l.m == nil {
		l.m = make(map[idKey][]int, 1024)
	}
	if len(l.m) < maxIDLists {
		l.m[k] = ids[:len(ids):len(ids)]
	}
	return ids
}
