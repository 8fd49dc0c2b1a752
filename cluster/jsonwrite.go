package cluster

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// JSON writing in the style of Jackson's default generator (what Kafka's
// Json.encodeAsBytes produces): no whitespace, '"' and '\\' escaped, control
// characters as \b \t \n \f \r or \u00XX (upper-case hex), everything else
// (including '/', '<', non-ASCII) written as UTF-8. encoding/json differs
// (it escapes <, >, & and U+2028/9), hence these helpers.

const hexUpper = "0123456789ABCDEF"

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if c < utf8.RuneSelf {
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				// Java strings cannot hold invalid UTF-8; Jackson would
				// have written U+FFFD.
				b = append(b, s[start:i]...)
				b = append(b, "\uFFFD"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\f':
			b = append(b, '\\', 'f')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexUpper[c>>4], hexUpper[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendKey(b []byte, k string) []byte {
	b = appendJSONString(b, k)
	return append(b, ':')
}

func appendIntList(b []byte, xs []int) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// appendReplicaMap writes {"0":[1,2],"1":[2,3]} with partition ids in
// numeric order.
func appendReplicaMap(b []byte, m map[int][]int) []byte {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, '"', ':')
		b = appendIntList(b, m[k])
	}
	return append(b, '}')
}
