// Package features holds a real-Kafka end-to-end scenario of ktopo on a
// KRaft cluster in the middle of a rolling upgrade: Kafka 4.4 controllers
// and brokers at metadata.version 3.9-IV0, and one broker still running
// Kafka 3.9.2, which holds the feature upgrade back. ktopo runs as a user
// runs it, a process of its own (the test binary, re-executed as ktopo),
// and Kafka's own kafka-features is the judge of what it says. It is a
// package of its own because package cmd's tests already fill CI's time
// budget.
package features
