package cmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/cluster"
)

// TestSizesSeeds: the listener a ZooKeeper-mode cluster's sizes are read
// through: the one named, else the brokers' only one, else the one whose
// security protocol is --command-config's (PLAINTEXT without one); a
// clear refusal naming the listeners when none fits.
func TestSizesSeeds(t *testing.T) {
	ep := func(l, proto, host string) cluster.BrokerEndpoint {
		return cluster.BrokerEndpoint{Listener: l, SecurityProtocol: proto, Host: host, Port: 9092}
	}
	broker := func(id int, live bool, eps ...cluster.BrokerEndpoint) cluster.Broker {
		return cluster.Broker{ID: id, Live: live, Registration: cluster.BrokerRegistration{Endpoints: eps}}
	}
	one := []cluster.Broker{broker(1, true, ep("INTERNAL", "SSL", "a")), broker(2, true, ep("INTERNAL", "SSL", "b")), broker(3, false, ep("INTERNAL", "SSL", "c"))}
	two := []cluster.Broker{
		broker(1, true, ep("INTERNAL", "SASL_SSL", "a"), ep("REPLICATION", "PLAINTEXT", "a-r")),
		broker(2, true, ep("INTERNAL", "SASL_SSL", "b"), ep("REPLICATION", "PLAINTEXT", "b-r")),
	}
	twoPlain := []cluster.Broker{broker(1, true, ep("A", "PLAINTEXT", "a"), ep("B", "PLAINTEXT", "a-b"))}
	for _, tc := range []struct {
		name     string
		brokers  []cluster.Broker
		listener string
		protocol string
		given    bool
		want     []string
		err      string
	}{
		{"the only listener, whatever the protocol", one, "", "PLAINTEXT", false, []string{"a:9092", "b:9092"}, ""},
		{"named", two, "internal", "PLAINTEXT", false, []string{"a:9092", "b:9092"}, ""},
		{"by --command-config's protocol", two, "", "SASL_SSL", true, []string{"a:9092", "b:9092"}, ""},
		{"PLAINTEXT without --command-config", two, "", "PLAINTEXT", false, []string{"a-r:9092", "b-r:9092"}, ""},
		{"no such listener", two, "EXTERNAL", "PLAINTEXT", false, nil,
			"no broker has a listener EXTERNAL (--sizes-listener): the brokers' listeners are INTERNAL (SASL_SSL), REPLICATION (PLAINTEXT)"},
		{"none fits", two, "", "SSL", true, nil, "no listener fits security.protocol SSL of --command-config"},
		{"two fit", twoPlain, "", "PLAINTEXT", false, nil, "several listeners fit PLAINTEXT (no --command-config)"},
		{"no broker", nil, "", "PLAINTEXT", false, nil, "no live broker registered a listener"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sizesSeeds(tc.brokers, tc.listener, tc.protocol, tc.given)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			case tc.err == "" && (err != nil || !slices.Equal(got, tc.want)):
				t.Errorf("seeds %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}
