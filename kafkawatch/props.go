package kafkawatch

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Properties are a Java .properties file's keys and values, in file order
// of first appearance (a later line with the same key wins, as in Java).
type Properties struct {
	keys []string
	vals map[string]string
	line map[string]int
	// Path names the file in errors ("" for none).
	Path string
}

// Get returns a key's value.
func (p *Properties) Get(k string) (string, bool) {
	v, ok := p.vals[k]
	return v, ok
}

// Keys returns the keys in order of first appearance.
func (p *Properties) Keys() []string { return p.keys }

// where names a key's line for messages ("client.properties:4").
func (p *Properties) where(k string) string {
	if p.Path == "" {
		return k
	}
	return p.Path + ":" + strconv.Itoa(p.line[k]) + ": " + k
}

// ReadProperties reads a Java .properties file (Kafka's --command-config).
func ReadProperties(path string) (*Properties, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := ParseProperties(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.Path = path
	return p, nil
}

// ParseProperties parses the .properties format as java.util.Properties
// does: "key=value", "key: value" or "key value"; lines starting with # or
// ! are comments; a line ending in an odd number of backslashes continues
// on the next (whose leading blanks are dropped); \t \n \r \f \uXXXX and
// \<char> escapes. sasl.jaas.config is usually written over several lines
// this way. The file is UTF-8 (Java 9+ reads properties files so).
func ParseProperties(data []byte) (*Properties, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("not UTF-8 text")
	}
	p := &Properties{vals: map[string]string{}, line: map[string]int{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		first := n
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		for continues(line) && sc.Scan() {
			n++
			line = line[:len(line)-1] + strings.TrimLeft(sc.Text(), " \t\f")
		}
		if continues(line) {
			line = line[:len(line)-1]
		}
		k, v, err := splitProperty(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", first, err)
		}
		if _, seen := p.vals[k]; !seen {
			p.keys = append(p.keys, k)
		}
		p.vals[k], p.line[k] = v, first
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// continues reports a logical line that goes on: an odd number of
// trailing backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty splits a logical line at the first unescaped '=', ':' or
// blank (blanks around the separator dropped) and unescapes both parts.
func splitProperty(line string) (string, string, error) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			end = i
			break
		}
	}
	key, rest := line[:end], line[end:]
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	k, err := unescape(key)
	if err != nil {
		return "", "", err
	}
	v, err := unescape(rest)
	return k, v, err
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i == len(s)-1 {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`malformed \uxxxx encoding`)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", fmt.Errorf(`malformed \uxxxx encoding`)
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
