package cluster

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A small JSON scanner for znode payloads.
//
// Why not encoding/json: the decoders need the members of an object in the
// order they were written (unknown fields are kept, key order matters for
// re-encoding), they must tell "missing" from "null" from "wrong type", and
// the partition-state decoder runs once per partition (100,000 times on a
// first load), so it should not allocate per field. The scanner validates the
// whole document against the JSON grammar (RFC 8259; a fuzz test checks it
// against encoding/json.Valid) and hands out raw sub-slices that the typed
// accessors below interpret.

type jsonKind uint8

const (
	kindInvalid jsonKind = iota
	kindNull
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k jsonKind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	}
	return "nothing"
}

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 512

// syntaxError is a JSON grammar violation at byte offset off.
type syntaxError struct {
	msg string
	off int
}

func (e *syntaxError) Error() string {
	return e.msg + " at byte " + strconv.Itoa(e.off)
}

// jmember is one member of a JSON object: the raw key (between the quotes,
// escapes unresolved), whether it contains escapes, and the raw value.
type jmember struct {
	key  []byte
	esc  bool
	val  []byte
	kind jsonKind
}

// is reports whether the member's key equals k.
func (m *jmember) is(k string) bool {
	if !m.esc {
		return string(m.key) == k
	}
	return m.name() == k
}

// name returns the decoded key.
func (m *jmember) name() string {
	if !m.esc && utf8.Valid(m.key) {
		return string(m.key)
	}
	q := make([]byte, 0, len(m.key)+2)
	q = append(q, '"')
	q = append(q, m.key...)
	q = append(q, '"')
	s, _ := unquoteJSON(q)
	return s
}

type jscan struct {
	d     []byte
	i     int
	depth int
}

func (s *jscan) errf(msg string) error { return &syntaxError{msg: msg, off: s.i} }

func (s *jscan) ws() {
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value starting at s.i (whitespace already skipped).
func (s *jscan) value() (jsonKind, error) {
	if s.i >= len(s.d) {
		return kindInvalid, s.errf("unexpected end of JSON")
	}
	switch c := s.d[s.i]; {
	case c == '{':
		return kindObject, s.object(nil)
	case c == '[':
		return kindArray, s.array(nil)
	case c == '"':
		_, err := s.str()
		return kindString, err
	case c == '-' || (c >= '0' && c <= '9'):
		return kindNumber, s.number()
	case c == 't':
		return kindBool, s.lit("true")
	case c == 'f':
		return kindBool, s.lit("false")
	case c == 'n':
		return kindNull, s.lit("null")
	default:
		return kindInvalid, s.errf("invalid character " + strconv.QuoteRune(rune(c)) + " looking for a value")
	}
}

func (s *jscan) lit(w string) error {
	if len(s.d)-s.i < len(w) || string(s.d[s.i:s.i+len(w)]) != w {
		return s.errf("invalid literal, expected " + w)
	}
	s.i += len(w)
	return nil
}

// str scans a string; it reports whether it contains escapes.
func (s *jscan) str() (bool, error) {
	s.i++ // opening quote
	esc := false
	for s.i < len(s.d) {
		c := s.d[s.i]
		switch {
		case c == '"':
			s.i++
			return esc, nil
		case c == '\\':
			esc = true
			if s.i+1 >= len(s.d) {
				s.i++
				return esc, s.errf("unexpected end of JSON in string escape")
			}
			switch s.d[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if len(s.d)-s.i < 6 {
					s.i = len(s.d)
					return esc, s.errf("unexpected end of JSON in \\u escape")
				}
				for k := 2; k < 6; k++ {
					if !isHex(s.d[s.i+k]) {
						s.i += k
						return esc, s.errf("invalid character in \\u escape")
					}
				}
				s.i += 6
			default:
				s.i++
				return esc, s.errf("invalid escape character in string")
			}
		case c < 0x20:
			return esc, s.errf("control character in string")
		default:
			s.i++
		}
	}
	return esc, s.errf("unexpected end of JSON in string")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *jscan) number() error {
	if s.d[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.d) || !isDigit(s.d[s.i]) {
		return s.errf("invalid number")
	}
	if s.d[s.i] == '0' {
		s.i++
	} else {
		for s.i < len(s.d) && isDigit(s.d[s.i]) {
			s.i++
		}
	}
	if s.i < len(s.d) && s.d[s.i] == '.' {
		s.i++
		if s.i >= len(s.d) || !isDigit(s.d[s.i]) {
			return s.errf("invalid number: digit expected after '.'")
		}
		for s.i < len(s.d) && isDigit(s.d[s.i]) {
			s.i++
		}
	}
	if s.i < len(s.d) && (s.d[s.i] == 'e' || s.d[s.i] == 'E') {
		s.i++
		if s.i < len(s.d) && (s.d[s.i] == '+' || s.d[s.i] == '-') {
			s.i++
		}
		if s.i >= len(s.d) || !isDigit(s.d[s.i]) {
			return s.errf("invalid number: digit expected in exponent")
		}
		for s.i < len(s.d) && isDigit(s.d[s.i]) {
			s.i++
		}
	}
	return nil
}

func (s *jscan) enter() error {
	s.depth++
	if s.depth > maxJSONDepth {
		return s.errf("JSON nested too deeply")
	}
	return nil
}

// object scans an object; when fn is non-nil it is called for each member.
func (s *jscan) object(fn func(m jmember) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.i++ // '{'
	s.ws()
	if s.i < len(s.d) && s.d[s.i] == '}' {
		s.i++
		s.depth--
		return nil
	}
	for {
		if s.i >= len(s.d) {
			return s.errf("unexpected end of JSON in object")
		}
		if s.d[s.i] != '"' {
			return s.errf("object key expected")
		}
		ks := s.i + 1
		esc, err := s.str()
		if err != nil {
			return err
		}
		key := s.d[ks : s.i-1]
		s.ws()
		if s.i >= len(s.d) || s.d[s.i] != ':' {
			return s.errf("':' expected after object key")
		}
		s.i++
		s.ws()
		vs := s.i
		kind, err := s.value()
		if err != nil {
			return err
		}
		if fn != nil {
			if err := fn(jmember{key: key, esc: esc, val: s.d[vs:s.i], kind: kind}); err != nil {
				return err
			}
		}
		s.ws()
		if s.i >= len(s.d) {
			return s.errf("unexpected end of JSON in object")
		}
		switch s.d[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			s.depth--
			return nil
		default:
			return s.errf("',' or '}' expected in object")
		}
	}
}

// array scans an array; when fn is non-nil it is called for each element.
func (s *jscan) array(fn func(kind jsonKind, v []byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.d) && s.d[s.i] == ']' {
		s.i++
		s.depth--
		return nil
	}
	for {
		vs := s.i
		kind, err := s.value()
		if err != nil {
			return err
		}
		if fn != nil {
			if err := fn(kind, s.d[vs:s.i]); err != nil {
				return err
			}
		}
		s.ws()
		if s.i >= len(s.d) {
			return s.errf("unexpected end of JSON in array")
		}
		switch s.d[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			s.depth--
			return nil
		default:
			return s.errf("',' or ']' expected in array")
		}
	}
}

// validJSON reports whether data is exactly one JSON value (with optional
// surrounding whitespace).
func validJSON(data []byte) error {
	s := jscan{d: data}
	s.ws()
	if _, err := s.value(); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.d) {
		return s.errf("unexpected data after the JSON value")
	}
	return nil
}

// parseObject validates data as one JSON object and appends its members, in
// document order, to dst. Duplicate keys are all returned; lookups take the
// last one, as Jackson does.
func parseObject(dst []jmember, data []byte) ([]jmember, error) {
	s := jscan{d: data}
	s.ws()
	if s.i >= len(s.d) {
		return dst, &syntaxError{msg: "no data", off: 0}
	}
	if s.d[s.i] != '{' {
		if _, err := s.value(); err != nil {
			return dst, err
		}
		return dst, &syntaxError{msg: "JSON object expected", off: 0}
	}
	err := s.object(func(m jmember) error {
		dst = append(dst, m)
		return nil
	})
	if err != nil {
		return dst, err
	}
	s.ws()
	if s.i != len(s.d) {
		return dst, s.errf("unexpected data after the JSON object")
	}
	return dst, nil
}

// eachMember calls fn for every member of the (already validated) object v.
func eachMember(v []byte, fn func(m jmember) error) error {
	s := jscan{d: v}
	return s.object(fn)
}

// eachElem calls fn for every element of the (already validated) array v.
func eachElem(v []byte, fn func(kind jsonKind, e []byte) error) error {
	s := jscan{d: v}
	return s.array(fn)
}

// lookup returns the last member named k.
func lookup(ms []jmember, k string) (jmember, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].is(k) {
			return ms[i], true
		}
	}
	return jmember{}, false
}

// fieldError is a typed-field problem ("field \"leader\": expected an integer, got a string").
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return "field " + strconv.Quote(e.field) + ": " + e.msg
}

func errMissing(field string) error { return &fieldError{msg: "missing field " + strconv.Quote(field)} }

func errType(field, want string, got jsonKind) error {
	return &fieldError{field: field, msg: "expected " + want + ", got " + got.String()}
}

// jsonInt parses an integral JSON number in [lo, hi]. Like Jackson's
// isInt/isLong checks, 1.0 and 1e3 are not integers.
func jsonInt(field string, kind jsonKind, v []byte, lo, hi int64) (int64, error) {
	if kind != kindNumber {
		return 0, errType(field, "an integer", kind)
	}
	for _, c := range v {
		if c == '.' || c == 'e' || c == 'E' {
			return 0, &fieldError{field: field, msg: "expected an integer, got " + string(v)}
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, &fieldError{field: field, msg: "integer out of range: " + string(v)}
	}
	return n, nil
}

const (
	minInt32 = -1 << 31
	maxInt32 = 1<<31 - 1
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

// jsonInt32 parses an int field (Kafka's Int).
func jsonInt32(field string, m jmember) (int, error) {
	n, err := jsonInt(field, m.kind, m.val, minInt32, maxInt32)
	return int(n), err
}

// jsonString decodes a JSON string value.
func jsonString(field string, kind jsonKind, v []byte) (string, error) {
	if kind != kindString {
		return "", errType(field, "a string", kind)
	}
	return unquoteJSON(v)
}

// unquoteJSON decodes a validated JSON string literal (with quotes).
func unquoteJSON(v []byte) (string, error) {
	inner := v[1 : len(v)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), nil
	}
	// Escapes and non-ASCII are rare in znodes; let encoding/json do the
	// surrogate-pair and invalid-UTF-8 handling.
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", &fieldError{msg: "bad string: " + err.Error()}
	}
	return s, nil
}

// jsonIntList decodes an array of Kafka ints.
func jsonIntList(field string, kind jsonKind, v []byte) ([]int, error) {
	if kind != kindArray {
		return nil, errType(field, "an array of integers", kind)
	}
	n := 0
	for _, c := range v {
		if c == ',' {
			n++
		}
	}
	out := make([]int, 0, n+1)
	err := eachElem(v, func(k jsonKind, e []byte) error {
		x, err := jsonInt(field, k, e, minInt32, maxInt32)
		if err != nil {
			return err
		}
		out = append(out, int(x))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
