package cluster

import (
	"errors"
	"strconv"
)

// DecodeError reports a znode whose data could not be decoded. Raw holds the
// bytes as read so that a screen can show them next to the reason.
type DecodeError struct {
	// What names the znode kind ("broker registration", "partition state" …).
	What string
	// Reason is a short human-readable cause, e.g. `missing field "leader"`.
	Reason string
	// Offset is the byte offset in Raw where a JSON syntax error was found, or -1.
	Offset int
	// Raw is the data that failed to decode.
	Raw []byte
}

// Error renders "bad <what>: <reason>" (plus the offset of a syntax error).
func (e *DecodeError) Error() string {
	s := "bad " + e.What + ": " + e.Reason
	if e.Offset >= 0 {
		s += " (at byte " + strconv.Itoa(e.Offset) + ")"
	}
	return s
}

// wrapDecode turns a scanner/field error into a *DecodeError for what.
func wrapDecode(what string, raw []byte, err error) error {
	if err == nil {
		return nil
	}
	var se *syntaxError
	if errors.As(err, &se) {
		return &DecodeError{What: what, Reason: se.msg, Offset: se.off, Raw: raw}
	}
	return &DecodeError{What: what, Reason: err.Error(), Offset: -1, Raw: raw}
}
