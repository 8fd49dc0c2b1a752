package cluster

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Java's parsing and printing of config values, as Kafka's ConfigDef and
// tools do them (Integer.parseInt, Double.parseDouble and toString,
// String.trim and split with a regular expression): ktopo accepts and
// renders exactly what Kafka does.

// javaDoubleString renders f like Java's Double.toString (shortest digits):
// plain notation with at least one fractional digit for 1e-3 ≤ |f| < 1e7,
// "d.dddE±n" otherwise.
func javaDoubleString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // e.g. -1.5e+07
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// JavaTrim is String.trim: strip characters ≤ U+0020 at both ends.
func JavaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// javaParseInteger is Integer.parseInt / Long.parseLong: optional sign and
// decimal digits, where Java also accepts non-ASCII Unicode decimal digits.
func javaParseInteger(s string, bits int) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	body := s
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		body = s[1:]
	}
	if body == "" {
		return 0, false
	}
	var ascii strings.Builder
	if neg {
		ascii.WriteByte('-')
	}
	for _, r := range body {
		d, ok := unicodeDigit(r)
		if !ok {
			return 0, false
		}
		ascii.WriteByte(byte('0' + d))
	}
	n, err := strconv.ParseInt(ascii.String(), 10, bits)
	if err != nil {
		return 0, false
	}
	return n, true
}

// unicodeDigit is Character.digit(r, 10) for decimal digits (category Nd,
// whose ranges are runs of 0–9).
func unicodeDigit(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) && rg.Stride == 1 {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) && rg.Stride == 1 {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	return 0, false
}

// javaParseDouble is Double.parseDouble on a trimmed string: optional sign,
// then NaN, Infinity, a decimal (digits with optional '.', exponent) or a
// hexadecimal float (0x…p…), and for the numeric forms an optional f/F/d/D
// suffix.
func javaParseDouble(s string) (float64, bool) {
	body := s
	sign := ""
	if body != "" && (body[0] == '+' || body[0] == '-') {
		sign, body = body[:1], body[1:]
	}
	switch body {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if sign == "-" {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(body); n > 0 && strings.ContainsRune("fFdD", rune(body[n-1])) {
		body = body[:n-1]
	}
	var ok bool
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		ok = hexFloatSyntax(body[2:])
	} else {
		ok = decimalFloatSyntax(body)
	}
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(sign+body, 64)
	if err != nil {
		// Out of range: Java rounds to ±Infinity or ±0; ParseFloat returns
		// the same values with ErrRange.
		if errors.Is(err, strconv.ErrRange) {
			return f, true
		}
		return 0, false
	}
	return f, true
}

func decimalFloatSyntax(s string) bool {
	i, ok := mantissa(s, isDigit)
	if !ok {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		return exponent(s, i+1)
	}
	return i == len(s)
}

func hexFloatSyntax(s string) bool {
	i, ok := mantissa(s, isHex)
	if !ok || i >= len(s) || (s[i] != 'p' && s[i] != 'P') {
		return false
	}
	return exponent(s, i+1)
}

// mantissa reads digits[.digits] at the start of s (digits as isDig says),
// returning where it ends and whether it had a digit.
func mantissa(s string, isDig func(byte) bool) (int, bool) {
	i, digits := 0, 0
	for i < len(s) && isDig(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDig(s[i]) {
			i++
			digits++
		}
	}
	return i, digits > 0
}

// exponent reports whether s from i is a signed decimal exponent and
// nothing after it.
func exponent(s string, i int) bool {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return false
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i == len(s)
}

// isJavaSpace is regex \s: [ \t\n\x0B\f\r].
func isJavaSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r'
}

// splitCommaWithWhitespace is trimmed.split("\\s*,\\s*", -1): keeps empty pieces.
func splitCommaWithWhitespace(s string) []string {
	return javaRegexSplit(s, ',', -1)
}

// javaRegexSplit is String.split(`\s*<sep>\s*`, limit) for limit -1 (keep
// trailing empty strings) or 0 (drop them). A match at position 0 has
// positive width, so a leading empty string is kept, as in Java 8+.
func javaRegexSplit(s string, sep byte, limit int) []string {
	var out []string
	start := 0 // start of the current piece
	i := 0
	for i < len(s) {
		if s[i] != sep {
			i++
			continue
		}
		ms := i
		for ms > start && isJavaSpace(s[ms-1]) {
			ms--
		}
		me := i + 1
		for me < len(s) && isJavaSpace(s[me]) {
			me++
		}
		out = append(out, s[start:ms])
		start, i = me, me
	}
	out = append(out, s[start:])
	if limit == 0 {
		for len(out) > 1 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		// Java returns [""] for "" but drops all-empty results of a
		// non-empty input ("=" splits to []).
		if len(out) == 1 && out[0] == "" && s != "" {
			out = out[:0]
		}
	}
	return out
}
