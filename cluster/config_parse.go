package cluster

import (
	"maps"
	"slices"
	"strings"
)

// kafka-configs' --add-config and --delete-config, parsed as ConfigCommand
// parses them.

// ParseAddConfig parses kafka-configs' --add-config value as ConfigCommand
// does: pairs separated by commas that are not inside square brackets,
// each split on an '=' (with the blanks around it) that is not inside
// brackets, keeping an empty value ("k="); anything but exactly one '='
// fails with "requirement failed: Invalid entity config: all configs to be
// added must be in the format "key=val"."; keys are trimmed, values lose
// every '[' and ']' and are trimmed, a later key wins; then a key with a
// character outside [a-zA-Z0-9._-] fails with "Invalid character found for
// config key: <k>" (3.x). "k1=v1,k2=[a,b],k3=v3" gives k2 = "a,b".
func ParseAddConfig(s string) (map[string]string, error) {
	pairs := bracketSplit(s, ',', false, 0)
	split := make([][]string, len(pairs))
	for i, p := range pairs {
		split[i] = bracketSplit(p, '=', true, -1)
		if len(split[i]) != 2 {
			return nil, kafkaErr(ClassIllegalArgument, `requirement failed: Invalid entity config: all configs to be added must be in the format "key=val".`)
		}
	}
	out := make(map[string]string, len(split))
	for _, kv := range split {
		v := strings.NewReplacer("[", "", "]", "").Replace(kv[1])
		out[JavaTrim(kv[0])] = JavaTrim(v)
	}
	// The characters of a config key are those of a topic name.
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if !legalTopicChars(k) {
			return nil, kafkaErr(ClassIllegalArgument, "Invalid character found for config key: "+k)
		}
	}
	return out, nil
}

// bracketSplit is Java's String.split with ConfigCommand's patterns,
// `<sep>(?=[^\]]*(?:\[|$))` (with `\s*` on both sides when blanks is set):
// a separator counts only where the text after it reaches a '[' or the end
// before any ']', i.e. outside brackets. limit is Java's: 0 drops trailing
// empty pieces, -1 keeps them.
func bracketSplit(s string, sep byte, blanks bool, limit int) []string {
	outside := func(pos int) bool {
		for i := pos; i < len(s); i++ {
			switch s[i] {
			case '[':
				return true
			case ']':
				return false
			}
		}
		return true
	}
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != sep {
			continue
		}
		ms, me := i, i+1
		if blanks {
			for ms > start && isJavaSpace(s[ms-1]) {
				ms--
			}
			for me < len(s) && isJavaSpace(s[me]) {
				me++
			}
		}
		if !outside(me) {
			continue
		}
		out = append(out, s[start:ms])
		start = me
		i = me - 1
	}
	out = append(out, s[start:])
	if limit == 0 && s != "" {
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
	}
	return out
}

// ParseDeleteConfig is kafka-configs' --delete-config: every value (the
// flag repeats) split on ',' and trimmed.
func ParseDeleteConfig(values []string) []string {
	var out []string
	for _, v := range values {
		for _, k := range strings.Split(v, ",") {
			out = append(out, JavaTrim(k))
		}
	}
	return out
}
