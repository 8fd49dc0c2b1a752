package cluster

import (
	"maps"
	"slices"
	"strconv"
)

// ConfigEntry is one config override; values are always strings in ZooKeeper.
type ConfigEntry struct {
	Key   string
	Value string
}

// EntityConfig is the JSON of /config/topics/<t> (and the other entity types):
// {"version":1,"config":{...}}.
type EntityConfig struct {
	Version int
	// Config holds the overrides in document order (a duplicated key keeps
	// its first position and its last value).
	Config []ConfigEntry
	Extra  []RawField
}

// Get returns the value of key k.
func (c *EntityConfig) Get(k string) (string, bool) {
	for _, e := range c.Config {
		if e.Key == k {
			return e.Value, true
		}
	}
	return "", false
}

// Map returns the overrides as a map.
func (c *EntityConfig) Map() map[string]string {
	m := make(map[string]string, len(c.Config))
	for _, e := range c.Config {
		m[e.Key] = e.Value
	}
	return m
}

// EncodeEntityConfig writes {"version":1,"config":{...}} with keys in
// lexicographic order. (Kafka writes a java.util.Properties, whose order is
// its hash order; order is not significant to Kafka's reader.) An empty or
// nil map gives {"version":1,"config":{}}, which Kafka writes at every topic
// creation.
func EncodeEntityConfig(config map[string]string) []byte {
	keys := slices.Sorted(maps.Keys(config))
	entries := make([]ConfigEntry, len(keys))
	for i, k := range keys {
		entries[i] = ConfigEntry{k, config[k]}
	}
	return EncodeEntityConfigEntries(entries)
}

// EncodeEntityConfigEntries is EncodeEntityConfig keeping the given order.
func EncodeEntityConfigEntries(entries []ConfigEntry) []byte {
	out := make([]byte, 0, 32+32*len(entries))
	out = append(out, `{"version":1,"config":{`...)
	for i, e := range entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendKey(out, e.Key)
		out = appendJSONString(out, e.Value)
	}
	return append(out, "}}"...)
}

const whatConfig = "config"

// DecodeEntityConfig decodes a config znode like Kafka's
// ConfigEntityZNode.decode: no data or no "config" member is an empty
// config; every value must be a string.
func DecodeEntityConfig(data []byte) (EntityConfig, error) {
	var c EntityConfig
	if len(data) == 0 {
		return c, nil
	}
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return c, wrapDecode(whatConfig, data, err)
	}
	var firstErr error
	if m, ok := lookup(ms, "version"); ok && m.kind == kindNumber {
		c.Version, _ = jsonInt32("version", m)
	}
	if m, ok := lookup(ms, "config"); ok && m.kind != kindNull {
		if m.kind != kindObject {
			firstErr = errType("config", "an object", m.kind)
		} else {
			firstErr = eachMember(m.val, func(e jmember) error {
				k := e.name()
				v, err := jsonString(k, e.kind, e.val)
				if err != nil {
					return err
				}
				for i := range c.Config {
					if c.Config[i].Key == k {
						c.Config[i].Value = v
						return nil
					}
				}
				c.Config = append(c.Config, ConfigEntry{k, v})
				return nil
			})
		}
	}
	c.Extra = extras(ms, "version", "config")
	if firstErr != nil {
		return c, wrapDecode(whatConfig, data, firstErr)
	}
	return c, nil
}

// ConfigChangeNotification is the JSON of a config change notification:
// v2 {"version":2,"entity_path":"topics/<t>"} or
// v1 {"version":1,"entity_type":"topics","entity_name":"<t>"}.
type ConfigChangeNotification struct {
	Version    int
	EntityPath string // v2
	EntityType string // v1
	EntityName string // v1
}

// Path returns the entity path ("topics/<t>"), also for v1 notifications.
func (n ConfigChangeNotification) Path() string {
	if n.EntityPath != "" {
		return n.EntityPath
	}
	if n.EntityType == "" {
		return ""
	}
	return n.EntityType + "/" + n.EntityName
}

// EncodeConfigChangeNotification writes the v2 form Kafka writes.
func EncodeConfigChangeNotification(entityPath string) []byte {
	out := append([]byte(nil), `{"version":2,"entity_path":`...)
	out = appendJSONString(out, entityPath)
	return append(out, '}')
}

// DecodeConfigChangeNotification decodes v1 and v2 notifications.
func DecodeConfigChangeNotification(data []byte) (ConfigChangeNotification, error) {
	const what = "config change notification"
	var n ConfigChangeNotification
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return n, wrapDecode(what, data, err)
	}
	m, ok := lookup(ms, "version")
	if !ok {
		return n, wrapDecode(what, data, errMissing("version"))
	}
	if n.Version, err = jsonInt32("version", m); err != nil {
		return n, wrapDecode(what, data, err)
	}
	str := func(k string) (string, error) {
		m, ok := lookup(ms, k)
		if !ok {
			return "", errMissing(k)
		}
		return jsonString(k, m.kind, m.val)
	}
	switch n.Version {
	case 1:
		if n.EntityType, err = str("entity_type"); err == nil {
			n.EntityName, err = str("entity_name")
		}
	case 2:
		n.EntityPath, err = str("entity_path")
	default:
		err = &fieldError{msg: "Unsupported version " + strconv.Itoa(n.Version) + " of config change notification"}
	}
	if err != nil {
		return n, wrapDecode(what, data, err)
	}
	return n, nil
}
