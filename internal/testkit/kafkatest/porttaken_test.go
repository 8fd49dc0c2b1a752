package kafkatest

import (
	"errors"
	"testing"
)

// TestPortTaken: a start that lost its port to another server, as the
// node's JVM says it, is told from any other failure.
func TestPortTaken(t *testing.T) {
	lost := errors.New("kafkatest: broker-1 exited\nCaused by: org.apache.kafka.common.KafkaException: Socket server failed to bind to 127.0.0.1:26609: Address already in use.")
	if !portTaken(lost) {
		t.Errorf("not taken for a lost port: %v", lost)
	}
	if portTaken(errors.New("kafkatest: broker-1 exited\nCaused by: java.lang.OutOfMemoryError")) {
		t.Error("an out-of-memory broker taken for a lost port")
	}
}
