// Package proto holds ZooKeeper's wire format: the jute encoding, opcodes,
// error codes and the records the embedded server and its tests exchange.
//
// Encoding follows zookeeper.jute (spec zookeeper-server.md §2, §6): big-endian
// integers, length-prefixed strings and buffers where -1 means null.
package proto

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrShort means a record ended before all its fields were read.
var ErrShort = errors.New("jute: record truncated")

// Decoder reads jute fields from a byte slice. The first error sticks: later
// reads return zero values, so callers check Err once at the end.
type Decoder struct {
	b   []byte
	off int
	err error
}

// NewDecoder returns a decoder over b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Err returns the first decoding error.
func (d *Decoder) Err() error { return d.err }

// Remaining is the number of unread bytes.
func (d *Decoder) Remaining() int { return len(d.b) - d.off }

// Skip consumes n bytes.
func (d *Decoder) Skip(n int) { d.take(n) }

// Rest returns the unread bytes without consuming them.
func (d *Decoder) Rest() []byte { return d.b[d.off:] }

func (d *Decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.err = ErrShort
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

// Int reads a jute int.
func (d *Decoder) Int() int32 {
	p := d.take(4)
	if p == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(p))
}

// Long reads a jute long.
func (d *Decoder) Long() int64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(p))
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	p := d.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

// Bool reads a jute boolean (non-zero is true).
func (d *Decoder) Bool() bool {
	p := d.take(1)
	return p != nil && p[0] != 0
}

// Buffer reads a jute buffer; -1 gives nil, 0 gives an empty non-nil slice.
// The result aliases the decoder's input.
func (d *Decoder) Buffer() []byte {
	p, _ := d.field()
	if p == nil {
		return nil
	}
	return p[:len(p):len(p)]
}

// field reads a length-prefixed jute field (buffer or ustring) without
// copying it; null (-1) gives nil and ok=false.
func (d *Decoder) field() (p []byte, ok bool) {
	n := d.Int()
	if d.err != nil || n == -1 {
		return nil, false
	}
	if n < -1 {
		d.err = fmt.Errorf("jute: negative length %d", n)
		return nil, false
	}
	p = d.take(int(n))
	return p, p != nil
}

// NullableString reads a jute ustring, reporting null (-1) as ok=false.
func (d *Decoder) NullableString() (s string, ok bool) {
	p, ok := d.field()
	return string(p), ok
}

// StringBytes reads a jute ustring without copying it: the result aliases
// the decoder's input (nil for null). Map lookups with string(b) do not
// allocate.
func (d *Decoder) StringBytes() []byte {
	p, _ := d.field()
	return p
}

// String reads a jute ustring; null reads as "".
func (d *Decoder) String() string {
	s, _ := d.NullableString()
	return s
}

// vectorLen reads a vector count; -1 (null) is returned as -1. Each element
// needs at least min bytes, which bounds the count by the remaining input so
// a hostile count cannot make us allocate.
func (d *Decoder) vectorLen(min int) int {
	n := d.Int()
	if d.err != nil {
		return 0
	}
	if n == -1 {
		return -1
	}
	if n < -1 || int(n) > d.Remaining()/min {
		d.err = fmt.Errorf("jute: bad vector length %d", n)
		return 0
	}
	return int(n)
}

// Strings reads a vector<ustring>; null reads as nil.
func (d *Decoder) Strings() []string {
	n := d.vectorLen(4)
	if n <= 0 {
		if n == 0 {
			return []string{}
		}
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.String()
	}
	return out
}

// ACLs reads a vector<ACL>; null reads as nil (distinct from empty).
func (d *Decoder) ACLs() []ACL {
	n := d.vectorLen(12)
	if n <= 0 {
		if n == 0 {
			return []ACL{}
		}
		return nil
	}
	out := make([]ACL, n)
	for i := range out {
		out[i].Perms = d.Int()
		out[i].Scheme = d.String()
		out[i].ID = d.String()
	}
	return out
}

// Stat reads a Stat record.
func (d *Decoder) Stat() Stat {
	var s Stat
	s.Czxid = d.Long()
	s.Mzxid = d.Long()
	s.Ctime = d.Long()
	s.Mtime = d.Long()
	s.Version = d.Int()
	s.Cversion = d.Int()
	s.Aversion = d.Int()
	s.EphemeralOwner = d.Long()
	s.DataLength = d.Int()
	s.NumChildren = d.Int()
	s.Pzxid = d.Long()
	return s
}

// Encoder appends jute fields to a byte slice.
type Encoder struct{ B []byte }

// Int appends a jute int.
func (e *Encoder) Int(v int32) { e.B = binary.BigEndian.AppendUint32(e.B, uint32(v)) }

// Long appends a jute long.
func (e *Encoder) Long(v int64) { e.B = binary.BigEndian.AppendUint64(e.B, uint64(v)) }

// Byte appends one byte.
func (e *Encoder) Byte(v byte) { e.B = append(e.B, v) }

// Bool appends a jute boolean.
func (e *Encoder) Bool(v bool) {
	if v {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

// Buffer appends a jute buffer; nil is written as null (-1).
func (e *Encoder) Buffer(p []byte) {
	if p == nil {
		e.Int(-1)
		return
	}
	e.Int(int32(len(p)))
	e.B = append(e.B, p...)
}

// String appends a jute ustring.
func (e *Encoder) String(s string) {
	e.Int(int32(len(s)))
	e.B = append(e.B, s...)
}

// Strings appends a vector<ustring>; nil is written as null.
func (e *Encoder) Strings(v []string) {
	if v == nil {
		e.Int(-1)
		return
	}
	e.Int(int32(len(v)))
	for _, s := range v {
		e.String(s)
	}
}

// ACLs appends a vector<ACL>; nil is written as null.
func (e *Encoder) ACLs(v []ACL) {
	if v == nil {
		e.Int(-1)
		return
	}
	e.Int(int32(len(v)))
	for _, a := range v {
		e.Int(a.Perms)
		e.String(a.Scheme)
		e.String(a.ID)
	}
}

// Stat appends a Stat record (68 bytes).
func (e *Encoder) Stat(s *Stat) {
	e.Long(s.Czxid)
	e.Long(s.Mzxid)
	e.Long(s.Ctime)
	e.Long(s.Mtime)
	e.Int(s.Version)
	e.Int(s.Cversion)
	e.Int(s.Aversion)
	e.Long(s.EphemeralOwner)
	e.Int(s.DataLength)
	e.Int(s.NumChildren)
	e.Long(s.Pzxid)
}

// BeginFrame appends a placeholder frame length and returns its offset.
func (e *Encoder) BeginFrame() int {
	off := len(e.B)
	e.B = append(e.B, 0, 0, 0, 0)
	return off
}

// EndFrame fills in the length of the frame started at off.
func (e *Encoder) EndFrame(off int) {
	binary.BigEndian.PutUint32(e.B[off:], uint32(len(e.B)-off-4))
}
