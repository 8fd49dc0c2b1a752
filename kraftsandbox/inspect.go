package kraftsandbox

import (
	"fmt"
	"slices"
)

// RecoveringPartitions lists the partitions ("topic-p") whose leader
// recovery state is RECOVERING: what a real controller's metadata log
// holds (kafka-dump-log shows it) and no client API does. For tests.
func (c *Cluster) RecoveringPartitions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	c.forEachPartition(func(t *topic, p *partition) {
		if p.recovering {
			out = append(out, fmt.Sprintf("%s-%d", t.name, slices.Index(t.parts, p)))
		}
	})
	return out
}
