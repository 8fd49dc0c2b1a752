package cluster

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// ConfigType is the ConfigDef type of a topic config.
type ConfigType uint8

// Config types.
const (
	TypeBoolean ConfigType = iota
	TypeString
	TypeInt
	TypeLong
	TypeDouble
	TypeList
)

// String returns the type as Kafka's docs name it ("int", "list" …).
func (t ConfigType) String() string {
	switch t {
	case TypeBoolean:
		return "boolean"
	case TypeString:
		return "string"
	case TypeInt:
		return "int"
	case TypeLong:
		return "long"
	case TypeDouble:
		return "double"
	case TypeList:
		return "list"
	}
	return "unknown"
}

// javaTypeName is the name used in "Not a number of type INT".
func (t ConfigType) javaTypeName() string { return strings.ToUpper(t.String()) }

// TopicConfigKey describes one topic-level config of Kafka 3.9 (spec §2.8).
type TopicConfigKey struct {
	Name string
	Type ConfigType
	// Default is LogConfig's default as text ("" for an empty list). The
	// effective default of a topic is the broker's log.* setting.
	Default string
	// Doc is a one-line description.
	Doc string
	// ValidValues describes the accepted values, e.g. "[0,...]",
	// "[compact, delete]", "" when anything of the type goes.
	ValidValues string
	// Since is the first Kafka version with the key ("" = all versions
	// ktopo supports, 2.5+).
	Since string
	// Deprecated is the version that deprecated the key, or "".
	Deprecated string

	validate func(name string, parsed any) error
}

// Integer bound helpers; atLeast/between keep Kafka's rendering of the bound.
func atLeast(min int64) func(string, any) error {
	return func(name string, v any) error {
		if numberValue(v) < float64(min) {
			return configValueErr(name, formatParsed(v), "Value must be at least "+strconv.FormatInt(min, 10))
		}
		return nil
	}
}

func between(min, max int64) func(string, any) error {
	return func(name string, v any) error {
		f := numberValue(v)
		if f < float64(min) {
			return configValueErr(name, formatParsed(v), "Value must be at least "+strconv.FormatInt(min, 10))
		}
		if f > float64(max) {
			return configValueErr(name, formatParsed(v), "Value must be no more than "+strconv.FormatInt(max, 10))
		}
		return nil
	}
}

func oneOf(valid ...string) func(string, any) error {
	return func(name string, v any) error {
		s := v.(string)
		if !slices.Contains(valid, s) {
			return configValueErr(name, s, "String must be one of: "+strings.Join(valid, ", "))
		}
		return nil
	}
}

func listOf(valid ...string) func(string, any) error {
	inner := oneOf(valid...)
	return func(name string, v any) error {
		for _, s := range v.([]string) {
			if err := inner(name, s); err != nil {
				return err
			}
		}
		return nil
	}
}

// throttledReplicas is ThrottledReplicaListValidator: "*" or p:b entries.
func throttledReplicas(name string, v any) error {
	list := v.([]string)
	ok := true
	for _, e := range list {
		if !isThrottleEntry(JavaTrim(e)) {
			ok = false
			break
		}
	}
	if !ok && strings.Join(trimAll(list), "") != "*" {
		return configValueErr(name, "["+strings.Join(list, ", ")+"]",
			name+" must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...")
	}
	return nil
}

func trimAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = JavaTrim(s)
	}
	return out
}

// isThrottleEntry matches ([0-9]+:[0-9]+)? in full.
func isThrottleEntry(s string) bool {
	if s == "" {
		return true
	}
	a, b, ok := strings.Cut(s, ":")
	return ok && allASCIIDigits(a) && allASCIIDigits(b)
}

func allASCIIDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// gzipLevel is GzipCompression.LevelValidator (3.8+).
func gzipLevel(name string, v any) error {
	l := v.(int64)
	if l > 9 || (l < 1 && l != -1) {
		return configValueErr(name, formatParsed(v), "Value must be between 1 and 9 or equal to -1")
	}
	return nil
}

// metadataVersions are the MetadataVersion strings Kafka 3.9 knows (each
// "x.y-IVn" plus the release "x.y" / "0.x.y").
var metadataVersions = func() map[string]bool {
	m := map[string]bool{}
	add := func(release string, ivs ...int) {
		m[release] = true
		for _, iv := range ivs {
			m[release+"-IV"+strconv.Itoa(iv)] = true
		}
	}
	add("0.8.0")
	add("0.8.1")
	add("0.8.2")
	add("0.9.0")
	add("0.10.0", 0, 1)
	add("0.10.1", 0, 1, 2)
	add("0.10.2", 0)
	add("0.11.0", 0, 1, 2)
	add("1.0", 0)
	add("1.1", 0)
	add("2.0", 0, 1)
	add("2.1", 0, 1, 2)
	add("2.2", 0, 1)
	add("2.3", 0, 1)
	add("2.4", 0, 1)
	add("2.5", 0)
	add("2.6", 0)
	add("2.7", 0, 1, 2)
	add("2.8", 0, 1)
	add("3.0", 0, 1)
	add("3.1", 0)
	add("3.2", 0)
	add("3.3", 0, 1, 2, 3)
	add("3.4", 0)
	add("3.5", 0, 1, 2)
	add("3.6", 0, 1, 2)
	add("3.7", 0, 1, 2, 3, 4)
	add("3.8", 0)
	add("3.9", 0)
	// 3.9 also knows the unreleased 4.0 versions, by their full names only
	// (checked against a real 3.9.2: "4.0-IV1" is accepted, "4.0" refused).
	m["4.0-IV0"], m["4.0-IV1"] = true, true
	return m
}()

// messageFormatVersion is MetadataVersionValidator (3.3+ wording): the value
// is looked up by MetadataVersion.fromVersionString, which keeps only the
// first two dot-separated segments (three for "0.x" versions), so "2.8.1"
// and even "2.8.0-IV1" are accepted as 2.8.
func messageFormatVersion(name string, v any) error {
	s := v.(string)
	segs := strings.Split(s, ".")
	n := 2
	if strings.HasPrefix(s, "0.") {
		n = 3
	}
	key := s
	if n < len(segs) {
		key = strings.Join(segs[:n], ".")
	}
	if !metadataVersions[key] {
		return configValueErr(name, s, "Version "+s+" is not a valid version")
	}
	return nil
}

// topicConfigKeys is the table of spec §2.8, in LogConfig's definition order
// (which decides which invalid value is reported first).
var topicConfigKeys = []TopicConfigKey{
	{Name: "segment.bytes", Type: TypeInt, Default: "1073741824", ValidValues: "[14,...]", Doc: "Size of a log segment file", validate: atLeast(14)},
	{Name: "segment.ms", Type: TypeLong, Default: "604800000", ValidValues: "[1,...]", Doc: "Time after which a segment is rolled even if not full", validate: atLeast(1)},
	{Name: "segment.jitter.ms", Type: TypeLong, Default: "0", ValidValues: "[0,...]", Doc: "Random jitter subtracted from segment.ms", validate: atLeast(0)},
	{Name: "segment.index.bytes", Type: TypeInt, Default: "10485760", ValidValues: "[4,...]", Doc: "Size of the offset index of a segment", validate: atLeast(4)},
	{Name: "flush.messages", Type: TypeLong, Default: "9223372036854775807", ValidValues: "[1,...]", Doc: "Messages written before the log is fsynced", validate: atLeast(1)},
	{Name: "flush.ms", Type: TypeLong, Default: "9223372036854775807", ValidValues: "[0,...]", Doc: "Time between forced fsyncs of the log", validate: atLeast(0)},
	{Name: "retention.bytes", Type: TypeLong, Default: "-1", Doc: "Maximum size of a partition's log before old segments are deleted (-1: no limit)"},
	{Name: "retention.ms", Type: TypeLong, Default: "604800000", ValidValues: "[-1,...]", Doc: "Time a message is kept before deletion (-1: no limit)", validate: atLeast(-1)},
	{Name: "max.message.bytes", Type: TypeInt, Default: "1048588", ValidValues: "[0,...]", Doc: "Largest record batch size accepted", validate: atLeast(0)},
	{Name: "index.interval.bytes", Type: TypeInt, Default: "4096", ValidValues: "[0,...]", Doc: "Bytes between offset index entries", validate: atLeast(0)},
	{Name: "delete.retention.ms", Type: TypeLong, Default: "86400000", ValidValues: "[0,...]", Doc: "Time delete tombstones are kept on compacted topics", validate: atLeast(0)},
	{Name: "min.compaction.lag.ms", Type: TypeLong, Default: "0", ValidValues: "[0,...]", Doc: "Minimum time a message stays uncompacted", validate: atLeast(0)},
	{Name: "max.compaction.lag.ms", Type: TypeLong, Default: "9223372036854775807", ValidValues: "[1,...]", Doc: "Maximum time a message stays uncompacted", validate: atLeast(1)},
	{Name: "file.delete.delay.ms", Type: TypeLong, Default: "60000", ValidValues: "[0,...]", Doc: "Delay before a deleted segment file is removed", validate: atLeast(0)},
	{Name: "min.cleanable.dirty.ratio", Type: TypeDouble, Default: "0.5", ValidValues: "[0,...,1]", Doc: "Dirty ratio above which the log cleaner compacts", validate: between(0, 1)},
	{Name: "cleanup.policy", Type: TypeList, Default: "delete", ValidValues: "[compact, delete]", Doc: "Retention policy for old segments: delete, compact or both", validate: listOf("compact", "delete")},
	{Name: "unclean.leader.election.enable", Type: TypeBoolean, Default: "false", Doc: "Allow out-of-sync replicas to become leader (may lose data)"},
	{Name: "min.insync.replicas", Type: TypeInt, Default: "1", ValidValues: "[1,...]", Doc: "In-sync replicas required for acks=all writes", validate: atLeast(1)},
	{Name: "compression.type", Type: TypeString, Default: "producer", ValidValues: "[uncompressed, zstd, lz4, snappy, gzip, producer]", Doc: "Compression codec of stored batches (producer: keep the producer's)", validate: oneOf("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")},
	{Name: "compression.gzip.level", Type: TypeInt, Default: "-1", ValidValues: "[1,...,9] or -1", Doc: "Gzip level when compression.type is gzip", Since: "3.8", validate: gzipLevel},
	{Name: "compression.lz4.level", Type: TypeInt, Default: "9", ValidValues: "[1,...,17]", Doc: "LZ4 level when compression.type is lz4", Since: "3.8", validate: between(1, 17)},
	{Name: "compression.zstd.level", Type: TypeInt, Default: "3", ValidValues: "[-131072,...,22]", Doc: "Zstandard level when compression.type is zstd", Since: "3.8", validate: between(-131072, 22)},
	{Name: "preallocate", Type: TypeBoolean, Default: "false", Doc: "Preallocate segment files on disk"},
	{Name: "message.format.version", Type: TypeString, Default: "3.0-IV1", ValidValues: "[0.8.0, ..., 3.9-IV0, 4.0-IV0, 4.0-IV1]", Doc: "Message format version (ignored from inter.broker.protocol.version 3.0)", Deprecated: "3.0", validate: messageFormatVersion},
	{Name: "message.timestamp.type", Type: TypeString, Default: "CreateTime", ValidValues: "[CreateTime, LogAppendTime]", Doc: "Timestamp stored in messages: producer's or broker's", validate: oneOf("CreateTime", "LogAppendTime")},
	{Name: "message.timestamp.difference.max.ms", Type: TypeLong, Default: "9223372036854775807", ValidValues: "[0,...]", Doc: "Maximum allowed gap between message and broker time", Deprecated: "3.6", validate: atLeast(0)},
	{Name: "message.timestamp.before.max.ms", Type: TypeLong, Default: "9223372036854775807", ValidValues: "[0,...]", Doc: "How far in the past a message timestamp may be", Since: "3.6", validate: atLeast(0)},
	{Name: "message.timestamp.after.max.ms", Type: TypeLong, Default: "9223372036854775807", ValidValues: "[0,...]", Doc: "How far in the future a message timestamp may be", Since: "3.6", validate: atLeast(0)},
	{Name: "leader.replication.throttled.replicas", Type: TypeList, Default: "", ValidValues: "[partitionId]:[brokerId],... or *", Doc: "Replicas whose leader-side replication is throttled", validate: throttledReplicas},
	{Name: "follower.replication.throttled.replicas", Type: TypeList, Default: "", ValidValues: "[partitionId]:[brokerId],... or *", Doc: "Replicas whose follower-side replication is throttled", validate: throttledReplicas},
	{Name: "message.downconversion.enable", Type: TypeBoolean, Default: "true", Doc: "Down-convert messages for old consumers"},
	{Name: "remote.storage.enable", Type: TypeBoolean, Default: "false", Doc: "Tiered storage for this topic (needs broker support)", Since: "3.0"},
	{Name: "local.retention.ms", Type: TypeLong, Default: "-2", ValidValues: "[-2,...]", Doc: "Local retention time with tiered storage (-2: retention.ms)", Since: "3.0", validate: atLeast(-2)},
	{Name: "local.retention.bytes", Type: TypeLong, Default: "-2", ValidValues: "[-2,...]", Doc: "Local retention size with tiered storage (-2: retention.bytes)", Since: "3.0", validate: atLeast(-2)},
	{Name: "remote.log.copy.disable", Type: TypeBoolean, Default: "false", Doc: "Stop copying segments to remote storage", Since: "3.9"},
	{Name: "remote.log.delete.on.disable", Type: TypeBoolean, Default: "false", Doc: "Delete remote data when tiered storage is disabled", Since: "3.9"},
}

// TopicConfigKeys returns the Kafka 3.9 topic configs sorted by name, for
// key completion and defaults in forms. The slice is a copy.
func TopicConfigKeys() []TopicConfigKey {
	ks := slices.Clone(topicConfigKeys)
	slices.SortFunc(ks, func(a, b TopicConfigKey) int { return strings.Compare(a.Name, b.Name) })
	return ks
}

// LookupTopicConfig returns the description of key name.
func LookupTopicConfig(name string) (TopicConfigKey, bool) {
	for _, k := range topicConfigKeys {
		if k.Name == name {
			return k, true
		}
	}
	return TopicConfigKey{}, false
}

// Config keys read by the model.
const (
	ConfigMinInsyncReplicas           = "min.insync.replicas"
	ConfigUncleanLeaderElectionEnable = "unclean.leader.election.enable"

	configMinCompactionLag = "min.compaction.lag.ms"
	configMaxCompactionLag = "max.compaction.lag.ms"
)

// ValidateTopicConfig is LogConfig.validate for topic creation from a tool
// (spec §2.8): unknown names (InvalidConfigurationException "Unknown topic
// config name: <k>", keys checked in sorted order), then every value in
// LogConfig's definition order (ConfigException "Invalid value <v> for
// configuration <k>: <reason>"), then min.compaction.lag.ms ≤
// max.compaction.lag.ms (defaults filled in). Values are trimmed as
// ConfigDef does. Broker-side tiered-storage rules are not checked.
func ValidateTopicConfig(config map[string]string) error {
	return validateTopicConfig(config, false)
}

// ValidateKnownTopicConfig is ValidateTopicConfig for a KRaft cluster:
// keys ktopo's table does not know (topic configs of Kafka versions after
// it) are left to the brokers, which check them when the write is sent
// (validateOnly first).
func ValidateKnownTopicConfig(config map[string]string) error {
	return validateTopicConfig(config, true)
}

func validateTopicConfig(config map[string]string, lenient bool) error {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range config {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		if _, ok := LookupTopicConfig(k); !ok && !lenient {
			return kafkaErr(ClassInvalidConfiguration, "Unknown topic config name: "+k)
		}
	}
	minLag, maxLag := int64(0), int64(math.MaxInt64)
	for _, key := range topicConfigKeys {
		v, ok := config[key.Name]
		if !ok {
			continue
		}
		parsed, err := parseConfigValue(key, v)
		if err != nil {
			return err
		}
		switch key.Name {
		case configMinCompactionLag:
			minLag = parsed.(int64)
		case configMaxCompactionLag:
			maxLag = parsed.(int64)
		}
	}
	if minLag > maxLag {
		return kafkaErr(ClassInvalidConfiguration, "conflict topic config setting min.compaction.lag.ms ("+
			strconv.FormatInt(minLag, 10)+") > max.compaction.lag.ms ("+strconv.FormatInt(maxLag, 10)+")")
	}
	return nil
}

// ValidateTopicConfigValue checks one key/value pair as ValidateTopicConfig
// would (unknown name, type, validator), for live feedback in a form.
func ValidateTopicConfigValue(name, value string) error {
	key, ok := LookupTopicConfig(name)
	if !ok {
		return kafkaErr(ClassInvalidConfiguration, "Unknown topic config name: "+name)
	}
	_, err := parseConfigValue(key, value)
	return err
}

func configValueErr(name, value, reason string) error {
	return kafkaErr(ClassConfig, "Invalid value "+value+" for configuration "+name+": "+reason)
}

// parseConfigValue is ConfigDef.parseType followed by the key's validator.
// Parsed values are bool, string, int64 (INT and LONG), float64 or []string.
func parseConfigValue(key TopicConfigKey, raw string) (any, error) {
	trimmed := JavaTrim(raw)
	var parsed any
	switch key.Type {
	case TypeBoolean:
		switch strings.ToLower(trimmed) {
		case "true":
			parsed = true
		case "false":
			parsed = false
		default:
			return nil, configValueErr(key.Name, raw, "Expected value to be either true or false")
		}
	case TypeString:
		parsed = trimmed
	case TypeInt, TypeLong:
		bits := 32
		if key.Type == TypeLong {
			bits = 64
		}
		n, ok := javaParseInteger(trimmed, bits)
		if !ok {
			return nil, configValueErr(key.Name, raw, "Not a number of type "+key.Type.javaTypeName())
		}
		parsed = n
	case TypeDouble:
		f, ok := javaParseDouble(trimmed)
		if !ok {
			return nil, configValueErr(key.Name, raw, "Not a number of type DOUBLE")
		}
		parsed = f
	case TypeList:
		if trimmed == "" {
			parsed = []string{}
		} else {
			parsed = splitCommaWithWhitespace(trimmed)
		}
	}
	if key.validate != nil {
		if err := key.validate(key.Name, parsed); err != nil {
			return nil, err
		}
	}
	return parsed, nil
}

func numberValue(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// formatParsed renders a parsed number as Java's toString would.
func formatParsed(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return javaDoubleString(x)
	}
	return ""
}

// ParseConfigArgs parses kafka-topics' --config values ("key=value", one per
// flag) as TopicCommand.parseTopicConfigsToBeAdded does: each is split on
// `\s*=\s*` (Java split: trailing empty pieces dropped), anything but exactly
// two pieces fails with IllegalArgumentException "requirement failed: Invalid
// topic config: all configs to be added must be in the format "key=val".";
// keys and values are trimmed, a later key wins, and the result goes through
// ValidateTopicConfig.
func ParseConfigArgs(args []string) (map[string]string, error) {
	out := make(map[string]string, len(args))
	pairs := make([][]string, 0, len(args))
	for _, a := range args {
		pairs = append(pairs, javaRegexSplit(a, '=', 0))
	}
	for _, p := range pairs {
		if len(p) != 2 {
			return nil, kafkaErr(ClassIllegalArgument, `requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".`)
		}
	}
	for _, p := range pairs {
		out[JavaTrim(p[0])] = JavaTrim(p[1])
	}
	if err := ValidateTopicConfig(out); err != nil {
		return nil, err
	}
	return out, nil
}

// EffectiveMinISR returns the min.insync.replicas override in config if it
// parses as a valid value, else def.
func EffectiveMinISR(config map[string]string, def int) int {
	v, ok := config[ConfigMinInsyncReplicas]
	if !ok {
		return def
	}
	return parseMinISR(v, def)
}

func parseMinISR(v string, def int) int {
	n, ok := javaParseInteger(JavaTrim(v), 32)
	if !ok || n < 1 {
		return def
	}
	return int(n)
}

// The throttle configs Kafka's tool sets and clears.
const (
	ConfigLeaderThrottledReplicas   = "leader.replication.throttled.replicas"
	ConfigFollowerThrottledReplicas = "follower.replication.throttled.replicas"
	ConfigLeaderThrottledRate       = "leader.replication.throttled.rate"
	ConfigFollowerThrottledRate     = "follower.replication.throttled.rate"
	ConfigLogDirsThrottledRate      = "replica.alter.log.dirs.io.max.bytes.per.second"
)

// TopicThrottleKeys are the topic throttle configs --verify clears;
// BrokerThrottleKeys the broker ones.
var (
	TopicThrottleKeys  = []string{ConfigLeaderThrottledReplicas, ConfigFollowerThrottledReplicas}
	BrokerThrottleKeys = []string{ConfigLeaderThrottledRate, ConfigFollowerThrottledRate, ConfigLogDirsThrottledRate}
)

// hasConfigKey reports whether entries set one of keys.
func hasConfigKey(entries []ConfigEntry, keys []string) bool {
	for _, e := range entries {
		if slices.Contains(keys, e.Key) {
			return true
		}
	}
	return false
}
