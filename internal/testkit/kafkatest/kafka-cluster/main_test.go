package main

import (
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestKRaftTopology: the helper's "starting …" line names the nodes it
// starts: the flags as given, the defaults only where a flag is left out
// (--controllers 1 once printed "3 controllers" and started one).
func TestKRaftTopology(t *testing.T) {
	for _, tc := range []struct {
		o    kafkatest.KRaftOptions
		want string
	}{
		{kafkatest.KRaftOptions{Controllers: 1, Brokers: 4}, "1 controller and 4 brokers"},
		{kafkatest.KRaftOptions{}, "3 controllers and 3 brokers"},
		{kafkatest.KRaftOptions{Controllers: 5, Brokers: 1}, "5 controllers and 1 broker"},
		{kafkatest.KRaftOptions{Combined: true}, "1 combined node"},
		{kafkatest.KRaftOptions{Combined: true, Brokers: 3}, "3 combined nodes"},
	} {
		if got := kraftTopology(tc.o); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.o, got, tc.want)
		}
	}
}
