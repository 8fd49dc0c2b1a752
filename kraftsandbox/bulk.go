package kraftsandbox

import (
	"fmt"
	"strconv"
)

// CreateTopicsBulk creates topics named prefix followed by a number of at
// least five digits (prefix00000, prefix00001, …), each of partitions
// partitions of rf replicas placed by the controller's placer as
// CreateTopics without an assignment places them (every topic on its
// own, as the controller places each topic of a request), with the
// records the controller would append. Names that exist are skipped. It
// is how a large sandbox is filled fast (100,000 topics × 10 partitions
// in a few seconds), without a CreateTopics request per 200 topics.
func (c *Cluster) CreateTopicsBulk(prefix string, topics, partitions, rf int) error {
	if topics < 0 || partitions <= 0 || rf <= 0 {
		return fmt.Errorf("bulk topics: %d topics × %d partitions × %d replicas", topics, partitions, rf)
	}
	width := max(5, len(strconv.Itoa(topics-1)))
	if err := validTopicName(fmt.Sprintf("%s%0*d", prefix, width, max(topics-1, 0))); err != nil {
		return err
	}
	// A thousand topics at a time: the simulation and the requests go on
	// between.
	for from := 0; from < topics; from += 1000 {
		if err := c.createBulk(prefix, width, from, min(from+1000, topics), partitions, rf); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) createBulk(prefix string, width, from, to, partitions, rf int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := from; i < to; i++ {
		name := fmt.Sprintf("%s%0*d", prefix, width, i)
		if c.topics[name] != nil {
			continue
		}
		a, err := c.place(0, partitions, rf)
		if err != nil {
			return fmt.Errorf("topic %s: %w", name, err)
		}
		c.addTopic(name, a, nil)
	}
	return nil
}
