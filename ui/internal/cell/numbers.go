package cell

import (
	"strconv"
	"strings"
)

// Ints joins ids with commas: "1,2,3".
func Ints(xs []int) string {
	if len(xs) == 0 {
		return ""
	}
	b := make([]byte, 0, 3*len(xs))
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(b)
}

// Broker renders a broker id, "none" for -1.
func Broker(id int) string {
	if id < 0 {
		return "none"
	}
	return strconv.Itoa(id)
}

// Count renders n with thousands separators: 12,345.
func Count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
