package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/internal/text"
)

// The JSON files of kafka-reassign-partitions.sh, parsed with the checks
// and messages of its parser (Kafka 3.x's wording: Kafka's JsonValue and
// DecodeJson classes, whose Scala versions in 2.8 differ only in type
// names: "Expected `Int` value" there, "Expected `Integer` value" in 3.x).

// Kafka exception classes of the reassignment tool.
const (
	ClassAdminCommandFailed  = "AdminCommandFailedException"
	ClassJSONMapping         = "JsonMappingException"
	ClassJSONParse           = "JsonParseException"
	ClassReassignmentRunning = "TerseReassignmentFailureException"
)

// Reassignment is one partition of a reassignment JSON file: its target
// replicas (the first is the preferred leader) and, when the file names
// them, their log directories ("any": the broker chooses).
type Reassignment struct {
	TopicPartition
	Replicas []int
	LogDirs  []string
}

// AnyLogDir is the log directory that leaves the choice to the broker.
const AnyLogDir = "any"

// MovesLogDirs reports whether the entry names a log directory other than
// "any" (a move between the directories of one broker).
func (r Reassignment) MovesLogDirs() bool {
	for _, d := range r.LogDirs {
		if d != AnyLogDir {
			return true
		}
	}
	return false
}

// jsonDoc is a parsed file: the raw value and its kind, with Kafka's
// accessors.
type jsonNode struct {
	kind jsonKind
	raw  []byte
}

// compact renders a node as Jackson's JsonNode.toString does: the value
// without insignificant whitespace.
func (n jsonNode) compact() string {
	var b strings.Builder
	inString, esc := false, false
	for _, c := range n.raw {
		switch {
		case inString:
			b.WriteByte(c)
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			b.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func mappingErr(format string, args ...any) error {
	return kafkaErr(ClassJSONMapping, fmt.Sprintf(format, args...))
}

// object is JsonValue.asJsonObject: its members, or "Expected JSON
// object, received <node>".
func (n jsonNode) object() ([]jmember, error) {
	if n.kind != kindObject {
		return nil, mappingErr("Expected JSON object, received %s", n.compact())
	}
	var ms []jmember
	err := eachMember(n.raw, func(m jmember) error { ms = append(ms, m); return nil })
	return ms, err
}

// array is JsonValue.asJsonArray: "Expected JSON array, received <node>".
func (n jsonNode) array() ([]jsonNode, error) {
	if n.kind != kindArray {
		return nil, mappingErr("Expected JSON array, received %s", n.compact())
	}
	var es []jsonNode
	err := eachElem(n.raw, func(k jsonKind, v []byte) error { es = append(es, jsonNode{k, v}); return nil })
	return es, err
}

// integer is DecodeJson.DecodeInteger: a JSON number that Jackson reads
// as an int (no fraction or exponent, within 32 bits).
func (n jsonNode) integer() (int, error) {
	if v, err := jsonInt("", n.kind, n.raw, minInt32, maxInt32); err == nil {
		return int(v), nil
	}
	return 0, mappingErr("Expected `Integer` value, received %s", n.compact())
}

// str is DecodeJson.DecodeString.
func (n jsonNode) str() (string, error) {
	if n.kind == kindString {
		if s, err := unquoteJSON(n.raw); err == nil {
			return s, nil
		}
	}
	return "", mappingErr("Expected `String` value, received %s", n.compact())
}

// list is DecodeJson.decodeList: "Expected `JSON array` value" (3.x).
func (n jsonNode) list(elem func(jsonNode) error) error {
	if n.kind != kindArray {
		return mappingErr("Expected `JSON array` value, received %s", n.compact())
	}
	return eachElem(n.raw, func(k jsonKind, v []byte) error { return elem(jsonNode{k, v}) })
}

// field is JsonObject.apply: "No such field exists: `name`".
func field(ms []jmember, name string) (jsonNode, error) {
	m, ok := lookup(ms, name)
	if !ok {
		return jsonNode{}, mappingErr("No such field exists: `%s`", name)
	}
	return jsonNode{m.kind, m.val}, nil
}

// parseJSONFile is Kafka's Json.tryParseFull: the document's value, an
// empty input refused with Kafka's message. A syntax error names the line
// and column (Kafka prints Jackson's parser message there).
func parseJSONFile(data []byte) (jsonNode, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return jsonNode{}, kafkaErr(ClassJSONParse, "The input string shouldn't be empty")
	}
	if err := validJSON(data); err != nil {
		return jsonNode{}, kafkaErr(ClassJSONParse, "The input string is not a valid JSON: "+syntaxWhere(data, err))
	}
	s := jscan{d: data}
	s.ws()
	from := s.i
	kind, _ := s.value()
	return jsonNode{kind, data[from:s.i]}, nil
}

// syntaxWhere renders a syntax error with its line and column.
func syntaxWhere(data []byte, err error) string {
	var se *syntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	off := min(se.off, len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%s (line %d, column %d)", se.msg, line, col)
}

// version reads a file's optional "version" (default 1) and refuses any
// other as Kafka does: "Not supported version field value N".
func fileVersion(ms []jmember) error {
	v := 1
	if m, ok := lookup(ms, "version"); ok {
		n, err := jsonNode{m.kind, m.val}.integer()
		if err != nil {
			return err
		}
		v = n
	}
	if v != 1 {
		return kafkaErr(ClassAdminOperation, "Not supported version field value "+strconv.Itoa(v))
	}
	return nil
}

// ParseReassignmentJSON parses a --reassignment-json-file as
// kafka-reassign-partitions' parsePartitionReassignmentData does:
//
//	{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[1,2,3],"log_dirs":["any","any","any"]}]}
//
// "version" defaults to 1 (the only one), a missing "partitions" is an
// empty list, "log_dirs" is optional and must have one entry per replica.
// Entries are returned in file order, duplicates included (CheckExecute
// refuses them). Errors are Kafka's messages.
func ParseReassignmentJSON(data []byte) ([]Reassignment, error) {
	doc, err := parseJSONFile(data)
	if err != nil {
		return nil, err
	}
	top, err := doc.object()
	if err != nil {
		return nil, err
	}
	if err := fileVersion(top); err != nil {
		return nil, err
	}
	pm, ok := lookup(top, "partitions")
	if !ok {
		return nil, nil
	}
	elems, err := jsonNode{pm.kind, pm.val}.array()
	if err != nil {
		return nil, err
	}
	out := make([]Reassignment, 0, len(elems))
	for _, e := range elems {
		ms, err := e.object()
		if err != nil {
			return nil, err
		}
		var r Reassignment
		// Kafka reads topic, partition, replicas, then log_dirs.
		n, err := field(ms, "topic")
		if err != nil {
			return nil, err
		}
		if r.Topic, err = n.str(); err != nil {
			return nil, err
		}
		if n, err = field(ms, "partition"); err != nil {
			return nil, err
		}
		if r.Partition, err = n.integer(); err != nil {
			return nil, err
		}
		if n, err = field(ms, "replicas"); err != nil {
			return nil, err
		}
		r.Replicas = []int{}
		err = n.list(func(e jsonNode) error {
			id, err := e.integer()
			r.Replicas = append(r.Replicas, id)
			return err
		})
		if err != nil {
			return nil, err
		}
		if m, ok := lookup(ms, "log_dirs"); ok {
			r.LogDirs = []string{}
			err := jsonNode{m.kind, m.val}.list(func(e jsonNode) error {
				d, err := e.str()
				r.LogDirs = append(r.LogDirs, d)
				return err
			})
			if err != nil {
				return nil, err
			}
			if len(r.LogDirs) != len(r.Replicas) {
				return nil, kafkaErr(ClassAdminCommandFailed, fmt.Sprintf(
					"Size of replicas list %s is different from size of log dirs list %s for partition %s",
					javaList(intStrings(r.Replicas)), javaList(r.LogDirs), r.TopicPartition))
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// CheckExecute runs the checks kafka-reassign-partitions --execute makes
// on the file before it looks at the cluster (parseExecuteAssignmentArgs),
// in its order and with its messages: an empty list, an empty replica
// list, a partition listed twice, a broker listed twice in one partition.
// ktopo then refuses log directory moves, which need Kafka's Admin API.
func CheckExecute(rs []Reassignment) error {
	if len(rs) == 0 {
		return kafkaErr(ClassAdminCommandFailed, "Partition reassignment list cannot be empty")
	}
	for _, r := range rs {
		if len(r.Replicas) == 0 {
			return kafkaErr(ClassAdminCommandFailed, "Partition replica list cannot be empty")
		}
	}
	seen := make(map[TopicPartition]int, len(rs))
	var dups []TopicPartition
	for _, r := range rs {
		if seen[r.TopicPartition]++; seen[r.TopicPartition] == 2 {
			dups = append(dups, r.TopicPartition)
		}
	}
	if len(dups) > 0 {
		slices.SortFunc(dups, CompareTopicPartitions)
		return kafkaErr(ClassAdminCommandFailed, "Partition reassignment contains duplicate topic partitions: "+JoinPartitions(dups, ","))
	}
	var msgs []string
	for _, r := range rs {
		if d := duplicateInts(r.Replicas); len(d) > 0 {
			msgs = append(msgs, r.String()+" contains multiple entries for "+text.Join(d, ","))
		}
	}
	if len(msgs) > 0 {
		return kafkaErr(ClassAdminCommandFailed, "Partition replica lists may not contain duplicate entries: "+strings.Join(msgs, ". "))
	}
	for _, r := range rs {
		if r.MovesLogDirs() {
			return kafkaErr(ClassAdminCommandFailed, fmt.Sprintf(
				"Partition %s names log directories (log_dirs other than \"any\"): moving replicas between the log directories of a broker needs Kafka's Admin API (kafka-reassign-partitions.sh --bootstrap-server); ktopo works through ZooKeeper, which cannot ask for it",
				r.TopicPartition))
		}
	}
	return nil
}

// ParseTopicsToMoveJSON parses a --topics-to-move-json-file as
// kafka-reassign-partitions' parseTopicsData does:
// {"topics":[{"topic":"foo"},{"topic":"foo1"}],"version":1}. A malformed
// file is "The input string is not a valid JSON"; topics listed twice are
// refused as in parseGenerateAssignmentArgs.
func ParseTopicsToMoveJSON(data []byte) ([]string, error) {
	if validJSON(data) != nil {
		return nil, kafkaErr(ClassAdminOperation, "The input string is not a valid JSON")
	}
	doc, _ := parseJSONFile(data)
	top, err := doc.object()
	if err != nil {
		return nil, err
	}
	if err := fileVersion(top); err != nil {
		return nil, err
	}
	var topics []string
	if m, ok := lookup(top, "topics"); ok {
		elems, err := jsonNode{m.kind, m.val}.array()
		if err != nil {
			return nil, err
		}
		for _, e := range elems {
			ms, err := e.object()
			if err != nil {
				return nil, err
			}
			n, err := field(ms, "topic")
			if err != nil {
				return nil, err
			}
			t, err := n.str()
			if err != nil {
				return nil, err
			}
			topics = append(topics, t)
		}
	}
	seen := map[string]int{}
	var dups []string
	for _, t := range topics {
		if seen[t]++; seen[t] == 2 {
			dups = append(dups, t)
		}
	}
	if len(dups) > 0 {
		slices.Sort(dups)
		return nil, kafkaErr(ClassAdminCommandFailed, "List of topics to reassign contains duplicate entries: "+javaList(dups))
	}
	return topics, nil
}

// ParseBrokerList parses --broker-list "1,2,3" as Kafka does: each entry
// through Integer.parseInt ("For input string: \"x\""), duplicates refused.
func ParseBrokerList(s string) ([]int, error) {
	parts := strings.Split(s, ",")
	// Java's String.split drops trailing empty strings ("1,2," is 1 and 2),
	// but not a lone one ("" is [""]).
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	ids := make([]int, 0, len(parts))
	for _, p := range parts {
		id, ok := javaParseInt(p)
		if !ok {
			return nil, kafkaErr("NumberFormatException", "For input string: "+strconv.Quote(p))
		}
		ids = append(ids, id)
	}
	if d := duplicateInts(ids); len(d) > 0 {
		return nil, kafkaErr(ClassAdminCommandFailed, "Broker list contains duplicate entries: "+javaList(intStrings(d)))
	}
	return ids, nil
}

// FormatReassignmentJSON writes partitions as kafka-reassign-partitions'
// formatAsReassignmentJson does (the file --execute, --verify and
// --generate read and print): partitions sorted by topic then partition,
// every replica's log directory "any".
//
//	{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}]}
func FormatReassignmentJSON(parts map[TopicPartition][]int) []byte {
	keys := make([]TopicPartition, 0, len(parts))
	n := 32
	for tp, r := range parts {
		keys = append(keys, tp)
		n += 64 + len(tp.Topic) + 10*len(r)
	}
	slices.SortFunc(keys, CompareTopicPartitions)
	w := NewReassignmentWriter(n)
	for _, tp := range keys {
		w.Add(tp.Topic, tp.Partition, parts[tp])
	}
	return w.Bytes()
}

// ReassignmentWriter writes the file format entry by entry, in the order
// given (sorted by topic, then partition), without collecting the
// partitions in a map first (100,000 partitions are common).
type ReassignmentWriter struct {
	out []byte
	n   int
}

// NewReassignmentWriter starts a document with room for about size bytes.
func NewReassignmentWriter(size int) *ReassignmentWriter {
	return &ReassignmentWriter{out: make([]byte, 0, size)}
}

// Add writes one partition's entry.
func (w *ReassignmentWriter) Add(topic string, partition int, replicas []int) {
	if w.n == 0 {
		w.out = append(w.out, `{"version":1,"partitions":[`...)
	} else {
		w.out = append(w.out, ',')
	}
	w.n++
	w.out = append(w.out, `{"topic":`...)
	w.out = appendJSONString(w.out, topic)
	w.out = append(w.out, `,"partition":`...)
	w.out = strconv.AppendInt(w.out, int64(partition), 10)
	w.out = append(w.out, `,"replicas":`...)
	w.out = appendIntList(w.out, replicas)
	w.out = append(w.out, `,"log_dirs":[`...)
	for j := range replicas {
		if j > 0 {
			w.out = append(w.out, ',')
		}
		w.out = append(w.out, `"any"`...)
	}
	w.out = append(w.out, "]}"...)
}

// Bytes ends the document and returns it.
func (w *ReassignmentWriter) Bytes() []byte {
	if w.n == 0 {
		w.out = append(w.out, `{"version":1,"partitions":[`...)
	}
	return append(w.out, "]}"...)
}

// CompareTopicPartitions orders partitions by topic (Java's String order)
// then partition, as the tool's CompareTopicPartitions does.
func CompareTopicPartitions(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return a.Partition - b.Partition
}

// duplicateInts returns the values that occur more than once, ascending
// (the order of the small-integer HashSet Kafka collects them in).
func duplicateInts(xs []int) []int {
	seen := make(map[int]int, len(xs))
	var d []int
	for _, x := range xs {
		if seen[x]++; seen[x] == 2 {
			d = append(d, x)
		}
	}
	slices.Sort(d)
	return d
}

func intStrings(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return out
}

// javaList renders a list as Java's List.toString does: "[a, b]".
func javaList(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }
