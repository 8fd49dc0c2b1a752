package wizard

import (
	"errors"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// ConfigField drives a text field of topic config overrides, key=value
// entries separated by spaces, as both wizards edit them: completion of
// the keys and of enumerated values, validation as typed with Kafka's
// messages, and the hint about the key at the cursor.
type ConfigField struct {
	keys []cluster.TopicConfigKey
}

// NewConfigField knows every topic config key.
func NewConfigField() ConfigField { return ConfigField{keys: cluster.TopicConfigKeys()} }

// Suggest offers completions for the config token being typed: the keys
// with its prefix, or the valid values of an enumerated key.
func (c ConfigField) Suggest(in *textinput.Model) {
	v := in.Value()
	if in.Position() != len([]rune(v)) {
		in.SetSuggestions(nil)
		return
	}
	start := strings.LastIndexAny(v, " \t") + 1
	prefix, tok := v[:start], v[start:]
	var out []string
	if k, val, ok := strings.Cut(tok, "="); ok {
		if ck, found := cluster.LookupTopicConfig(k); found {
			for _, e := range enumValues(ck) {
				if strings.HasPrefix(e, val) && e != val {
					out = append(out, prefix+k+"="+e)
				}
			}
		}
	} else if tok != "" {
		for _, ck := range c.keys {
			if strings.HasPrefix(ck.Name, tok) {
				out = append(out, prefix+ck.Name+"=")
			}
		}
	}
	in.SetSuggestions(out)
}

// enumValues lists the values of a key with a fixed set ("[a, b]",
// booleans), nil for others.
func enumValues(k cluster.TopicConfigKey) []string {
	if k.Type == cluster.TypeBoolean {
		return []string{"true", "false"}
	}
	v := k.ValidValues
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") || strings.Contains(v, "...") || strings.Contains(v, ":") {
		return nil
	}
	return strings.Split(v[1:len(v)-1], ", ")
}

// Complete accepts the shown completion; false when there is none.
func Complete(in *textinput.Model) bool {
	if len(in.MatchedSuggestions()) == 0 {
		return false
	}
	s := in.CurrentSuggestion()
	if s == "" || s == in.Value() {
		return false
	}
	in.SetValue(s)
	in.CursorEnd()
	return true
}

// TokenAtCursor is the config entry the cursor is in.
func TokenAtCursor(in *textinput.Model) string {
	v := []rune(in.Value())
	pos := min(in.Position(), len(v))
	i, j := pos, pos
	for i > 0 && v[i-1] != ' ' && v[i-1] != '\t' {
		i--
	}
	for j < len(v) && v[j] != ' ' && v[j] != '\t' {
		j++
	}
	return string(v[i:j])
}

// Check validates the field's entries as typed (the entry at the cursor of
// a focused field may lack its value yet), then the cross-key rules: the
// first error, else what the entries amount to, and the hint.
func (c ConfigField) Check(in *textinput.Model, focused bool) (errMsg, ok, hint string) {
	toks := strings.Fields(in.Value())
	cur := ""
	if focused {
		cur = TokenAtCursor(in)
	}
	for _, t := range toks {
		k, v, ok := strings.Cut(t, "=")
		if !ok || strings.Contains(v, "=") {
			if t == cur {
				continue // still being typed
			}
			_, err := cluster.ParseConfigArgs([]string{t})
			errMsg = err.Error()
			break
		}
		if err := cluster.ValidateTopicConfigValue(strings.TrimSpace(k), v); err != nil {
			if t == cur && v == "" {
				continue
			}
			errMsg = err.Error()
			break
		}
	}
	if errMsg == "" && len(toks) > 0 {
		if cfg, err := cluster.ParseConfigArgs(CompleteTokens(toks)); err == nil {
			ok = strconv.Itoa(len(cfg)) + text.Plural(len(cfg), " override", " overrides")
		} else if !errors.Is(err, &cluster.KafkaError{Class: cluster.ClassIllegalArgument}) {
			errMsg = err.Error()
		}
	}
	return errMsg, ok, configHint(TokenAtCursor(in), c.keys)
}

// CompleteTokens drops entries still lacking a value.
func CompleteTokens(toks []string) []string {
	out := toks[:0:0]
	for _, t := range toks {
		if k, v, ok := strings.Cut(t, "="); ok && k != "" && v != "" {
			out = append(out, t)
		}
	}
	return out
}

// configHint describes the key being typed: type, default, valid values
// and what it does, or the keys that match its prefix.
func configHint(tok string, ks []cluster.TopicConfigKey) string {
	k, _, _ := strings.Cut(tok, "=")
	if k == "" {
		return "space-separated key=value entries; tab completes keys and values, ctrl+n/ctrl+p pick another"
	}
	if ck, ok := cluster.LookupTopicConfig(k); ok {
		s := ck.Name + " (" + ck.Type.String() + ", default " + quoteEmpty(ck.Default)
		if ck.ValidValues != "" {
			s += ", valid " + ck.ValidValues
		}
		if ck.Since != "" {
			s += ", Kafka " + ck.Since + "+"
		}
		if ck.Deprecated != "" {
			s += ", deprecated in " + ck.Deprecated
		}
		return s + "): " + ck.Doc
	}
	var match []string
	for _, ck := range ks {
		if strings.HasPrefix(ck.Name, k) {
			match = append(match, ck.Name)
		}
	}
	switch {
	case len(match) == 0:
		return "no topic config starts with " + k
	case len(match) > 4:
		return strconv.Itoa(len(match)) + " keys: " + strings.Join(match[:4], ", ") + ", …"
	}
	return strings.Join(match, ", ")
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
