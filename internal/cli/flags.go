package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// javaInt is an option Kafka's tools declare as a java.lang.Integer
// (--partitions, --replication-factor): jopt-simple refuses what does not
// parse as a 32-bit int with "Cannot parse argument '<v>' of option <name>".
// The error is kept for the command to return as Kafka prints it, without
// pflag's wording and a usage hint (it is a bad value, not a usage mistake).
type javaInt struct {
	name string
	v    *int
	err  error
}

// javaIntVar defines a javaInt flag on fl and returns it.
func javaIntVar(fl *pflag.FlagSet, p *int, name string, value int, usage string) *javaInt {
	*p = value
	f := &javaInt{name: name, v: p}
	fl.Var(f, name, usage)
	return f
}

func (f *javaInt) String() string { return strconv.Itoa(*f.v) }
func (f *javaInt) Type() string   { return "int" }

func (f *javaInt) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		f.err = fmt.Errorf("Cannot parse argument '%s' of option %s", s, f.name)
		return nil
	}
	*f.v, f.err = int(n), nil
	return nil
}

// checkJavaInts returns the first unparsable value among flags.
func checkJavaInts(flags ...*javaInt) error {
	for _, f := range flags {
		if f != nil && f.err != nil {
			return f.err
		}
	}
	return nil
}

// javaLong is an option Kafka's tools declare as a java.lang.Long
// (--throttle), refused as javaInt is.
type javaLong struct {
	name string
	v    *int64
	err  error
}

// javaLongVar defines a javaLong flag on fl and returns it.
func javaLongVar(fl *pflag.FlagSet, p *int64, name string, value int64, usage string) *javaLong {
	*p = value
	f := &javaLong{name: name, v: p}
	fl.Var(f, name, usage)
	return f
}

func (f *javaLong) String() string { return strconv.FormatInt(*f.v, 10) }
func (f *javaLong) Type() string   { return "long" }

func (f *javaLong) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		f.err = fmt.Errorf("Cannot parse argument '%s' of option %s", s, f.name)
		return nil
	}
	*f.v, f.err = n, nil
	return nil
}
