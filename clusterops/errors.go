package clusterops

import (
	"slices"

	"github.com/ktopo/ktopo/cluster"
)

// kafkaErr is the error Kafka would raise: its exception class and its
// exact message.
func kafkaErr(class, msg string) *cluster.KafkaError {
	return &cluster.KafkaError{Class: class, Message: msg}
}

// minus returns the ids of a not in b, in a's order, each once.
func minus(a, b []int) []int {
	var out []int
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
