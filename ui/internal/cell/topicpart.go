package cell

import "strconv"

// TopicPartition renders topic-partition in at most w columns. When it does
// not fit, the topic is shortened (an ellipsis where it is cut), never the
// partition number: __consumer_offsets-12 in 18 columns reads
// __consumer_off…-12, so that partitions 2 and 22 never look alike. Every
// screen that shows a topic-partition in a bounded space uses it.
func TopicPartition(topic string, partition, w int) string {
	suffix := "-" + strconv.Itoa(partition)
	if Width(topic)+len(suffix) <= w {
		return topic + suffix
	}
	if room := w - len(suffix); room >= 1 {
		return Fit(topic, room) + suffix
	}
	return Fit(suffix, w) // not even the partition fits: at least its start
}

// FitTopicPartition is TopicPartition padded to exactly w columns.
func FitTopicPartition(topic string, partition, w int) string {
	return Fit(TopicPartition(topic, partition, w), w)
}
