package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// javaNum is an option Kafka's tools declare as a java.lang.Integer
// (--partitions, --replication-factor: javaInt) or java.lang.Long
// (--throttle: javaLong): jopt-simple refuses what does not parse as a
// 32- or 64-bit integer with "Cannot parse argument '<v>' of option
// <name>". The error is kept for the command to return as Kafka prints it,
// without pflag's wording and a usage hint (it is a bad value, not a usage
// mistake).
type javaNum[T int | int64] struct {
	name string
	v    *T
	bits int
	err  error
}

type (
	javaInt  = javaNum[int]
	javaLong = javaNum[int64]
)

// javaIntVar defines a javaInt flag on fl and returns it.
func javaIntVar(fl *pflag.FlagSet, p *int, name string, value int, usage string) *javaInt {
	return javaNumVar(fl, p, name, value, usage, 32)
}

// javaLongVar defines a javaLong flag on fl and returns it.
func javaLongVar(fl *pflag.FlagSet, p *int64, name string, value int64, usage string) *javaLong {
	return javaNumVar(fl, p, name, value, usage, 64)
}

func javaNumVar[T int | int64](fl *pflag.FlagSet, p *T, name string, value T, usage string, bits int) *javaNum[T] {
	*p = value
	f := &javaNum[T]{name: name, v: p, bits: bits}
	fl.Var(f, name, usage)
	return f
}

func (f *javaNum[T]) String() string { return strconv.FormatInt(int64(*f.v), 10) }

func (f *javaNum[T]) Type() string {
	if f.bits == 32 {
		return "int"
	}
	return "long"
}

func (f *javaNum[T]) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, f.bits)
	if err != nil {
		f.err = fmt.Errorf("Cannot parse argument '%s' of option %s", s, f.name)
		return nil
	}
	*f.v, f.err = T(n), nil
	return nil
}

// checkJavaInts returns the first unparsable value among flags.
func checkJavaInts[T int | int64](flags ...*javaNum[T]) error {
	for _, f := range flags {
		if f != nil && f.err != nil {
			return f.err
		}
	}
	return nil
}
