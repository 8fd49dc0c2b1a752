package cluster

import (
	"maps"
	"slices"
	"strconv"
)

// brokerConfig is the model's copy of /config/brokers/<entity>.
type brokerConfig struct {
	entries []ConfigEntry
	mzxid   int64
}

// minISRDefault is the min.insync.replicas of topics without an override:
// the cluster's dynamic default, else the model's default.
func (m *Model) minISRDefault() int {
	if m.clusterMinISR > 0 {
		return m.clusterMinISR
	}
	return m.defMinISR
}

// applyEntityConfig follows the dynamic broker configs (other entity types
// are not followed): Kafka resolves a partition's min.insync.replicas from
// the topic, then its leader's /config/brokers/<id>, then <default>.
func (m *Model) applyEntityConfig(info PathInfo, ev *NodeEvent, del bool) {
	if info.EntityType != "brokers" {
		return
	}
	cur := m.brokerConfigs[info.Entity]
	var next *brokerConfig
	if !del {
		if cur != nil && unchanged(true, cur.mzxid, ev) {
			return
		}
		c, err := DecodeEntityConfig(ev.Data)
		m.noteErr(ev.Path, err, ev)
		next = &brokerConfig{entries: c.Config, mzxid: ev.Stat.Mzxid}
	} else {
		if cur == nil {
			return
		}
		m.clearErr(ev.Path)
	}
	if next == nil {
		delete(m.brokerConfigs, info.Entity)
	} else {
		m.brokerConfigs[info.Entity] = next
	}
	m.brokerCfgDirty, m.changed = true, true
	oldVal, newVal := minISROf(cur), minISROf(next)
	if oldVal == newVal {
		return
	}
	// Every partition's health may depend on it: take every contribution
	// out with the old values, change them, put them back. Rare (an
	// operator's config change), O(partitions).
	for _, ts := range m.topics {
		t := m.mutable(ts)
		for _, p := range t.Partitions {
			m.account(t, p, -1, ts.hasNode)
		}
	}
	if info.Entity == BrokerDefaultEntity {
		m.clusterMinISR = newVal
	} else if id, err := strconv.Atoi(info.Entity); err == nil {
		bm := maps.Clone(m.brokerMinISR) // snapshots share the old map
		if newVal > 0 {
			bm[id] = newVal
		} else {
			delete(bm, id)
		}
		m.brokerMinISR = bm
	}
	for _, ts := range m.topics {
		t := ts.t
		if !t.minISRSet {
			t.MinISR = m.minISRDefault()
		}
		for _, p := range t.Partitions {
			m.account(t, p, 1, ts.hasNode)
		}
	}
}

// minISROf is a broker config's valid min.insync.replicas, 0 when unset.
func minISROf(c *brokerConfig) int {
	if c == nil {
		return 0
	}
	for _, e := range c.entries {
		if e.Key == ConfigMinInsyncReplicas {
			return parseMinISR(e.Value, 0)
		}
	}
	return 0
}

// snapshotBrokerConfigs copies the broker configs for a snapshot.
func (m *Model) snapshotBrokerConfigs() map[string][]ConfigEntry {
	out := make(map[string][]ConfigEntry, len(m.brokerConfigs))
	for _, e := range slices.Sorted(maps.Keys(m.brokerConfigs)) {
		out[e] = m.brokerConfigs[e].entries
	}
	return out
}
