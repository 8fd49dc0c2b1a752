package cluster

import (
	"strconv"
	"strings"
	"testing"
)

// TestTopicConfigBounds reads each key's documented range ("[14,...]",
// "[0,...,1]", "[1,...,9] or -1") and checks that the bounds themselves are
// accepted and the values just outside them are not: Kafka's Range
// validator is inclusive at both ends.
func TestTopicConfigBounds(t *testing.T) {
	checked := 0
	for _, key := range topicConfigKeys {
		rng, extra, _ := strings.Cut(key.ValidValues, " or ")
		if !strings.HasPrefix(rng, "[") || !strings.HasSuffix(rng, "]") || (key.Type != TypeInt && key.Type != TypeLong && key.Type != TypeDouble) {
			continue
		}
		ends := strings.Split(strings.Trim(rng, "[]"), ",...")
		lo, err := strconv.ParseInt(ends[0], 10, 64)
		if err != nil {
			t.Fatalf("%s: range %q", key.Name, key.ValidValues)
		}
		// Just outside: the next integer, or half a unit for doubles.
		out := func(v int64, dir int64) string {
			if key.Type == TypeDouble {
				return strconv.FormatFloat(float64(v)+float64(dir)/2, 'g', -1, 64)
			}
			return strconv.FormatInt(v+dir, 10)
		}
		accept := []string{ends[0]}
		reject := []string{out(lo, -1)}
		if hi := strings.TrimPrefix(ends[1], ","); hi != "" {
			h, err := strconv.ParseInt(hi, 10, 64)
			if err != nil {
				t.Fatalf("%s: range %q", key.Name, key.ValidValues)
			}
			accept = append(accept, hi)
			reject = append(reject, out(h, 1))
		}
		if extra != "" {
			accept = append(accept, extra)
		}
		for _, v := range accept {
			if err := ValidateTopicConfig(map[string]string{key.Name: v}); err != nil {
				t.Errorf("%s=%s (range %s): %v", key.Name, v, key.ValidValues, err)
			}
		}
		for _, v := range reject {
			if err := ValidateTopicConfig(map[string]string{key.Name: v}); err == nil {
				t.Errorf("%s=%s (range %s) accepted", key.Name, v, key.ValidValues)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d ranged keys found", checked)
	}
}

// TestCompactionLagsMayBeEqual: Kafka rejects min.compaction.lag.ms only
// when it is greater than max.compaction.lag.ms, not when they are equal.
func TestCompactionLagsMayBeEqual(t *testing.T) {
	for _, tc := range []struct {
		min, max string
		ok       bool
	}{
		{"1000", "1000", true},
		{"1", "1", true},
		{"999", "1000", true},
		{"1001", "1000", false},
	} {
		err := ValidateTopicConfig(map[string]string{"min.compaction.lag.ms": tc.min, "max.compaction.lag.ms": tc.max})
		if (err == nil) != tc.ok {
			t.Errorf("min %s, max %s: %v, want ok %v", tc.min, tc.max, err, tc.ok)
		}
	}
	// The default max (Long.MAX_VALUE) against an equal min.
	if err := ValidateTopicConfig(map[string]string{"min.compaction.lag.ms": "9223372036854775807"}); err != nil {
		t.Errorf("min.compaction.lag.ms = Long.MAX_VALUE: %v", err)
	}
}

// TestBooleansIgnoreCase: ConfigDef parses booleans case-insensitively
// after trimming.
func TestBooleansIgnoreCase(t *testing.T) {
	for _, v := range []string{"true", "TRUE", "True", " tRuE ", "false", "FALSE", "False"} {
		for _, key := range []string{"unclean.leader.election.enable", "preallocate", "message.downconversion.enable"} {
			if err := ValidateTopicConfig(map[string]string{key: v}); err != nil {
				t.Errorf("%s=%q: %v", key, v, err)
			}
		}
	}
	for _, v := range []string{"yes", "1", "t", ""} {
		if err := ValidateTopicConfig(map[string]string{"unclean.leader.election.enable": v}); err == nil {
			t.Errorf("unclean.leader.election.enable=%q accepted", v)
		}
	}
}
