package zkops

import "github.com/ktopo/ktopo/cluster"

// kafkaErr is Kafka's refusal of class with its message.
func kafkaErr(class, msg string) *cluster.KafkaError {
	return &cluster.KafkaError{Class: class, Message: msg}
}
