package cmd

import (
	"context"
	"fmt"
	"log"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/zkwatch"
)

// The replicas' sizes are what each broker's DescribeLogDirs reports, over
// the Kafka protocol, whichever way the cluster is read: a KRaft
// cluster's through its bootstrap servers; a ZooKeeper-mode cluster's
// through the addresses its brokers registered in ZooKeeper, on the
// listener --sizes-listener names (else the one that fits
// --command-config's security), with --command-config's security.

// sizesTimeout bounds a command's reading of the sizes.
const sizesTimeout = 15 * time.Second

// readSizes reads the cluster's sizes once, for a command (never an
// error: unknown sizes say why).
func (s *session) readSizes(ctx context.Context) *cluster.Sizes {
	d, err := s.f.sizesDial(s.snap)
	if err != nil {
		return cluster.UnknownSizes(time.Now(), err.Error())
	}
	cl, err := kafkawatch.NewSizesClient(d)
	if err != nil {
		return cluster.UnknownSizes(time.Now(), err.Error())
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, max(sizesTimeout, s.f.requestTimeout))
	defer cancel()
	sz := kafkawatch.ReadSizes(ctx, cl)
	if sz.Err == "no answer in time" {
		sz.Err = "brokers not reachable at " + strings.Join(d.Bootstrap, ",") + ": no answer in time"
	}
	return sz
}

// sizesDial is how a command reaches the brokers for their sizes: a KRaft
// cluster's dial, or, in ZooKeeper mode, the brokers of s on the chosen
// listener with --command-config's security.
func (f *connFlags) sizesDial(s *cluster.Snapshot) (kafkawatch.Dial, error) {
	t, err := f.target()
	if err != nil {
		return kafkawatch.Dial{}, err
	}
	if t.kraft {
		return f.dial()
	}
	d, err := f.zkSizesDial()
	if err != nil {
		return d, err
	}
	d.Bootstrap, err = sizesSeeds(s.Brokers(), f.sizesListener, d.Security.Protocol, f.commandConfig != "")
	return d, err
}

// zkSizesDial is a ZooKeeper-mode cluster's Kafka-protocol security
// (--command-config), without the brokers' addresses.
func (f *connFlags) zkSizesDial() (kafkawatch.Dial, error) {
	d := kafkawatch.Dial{Logger: kafkaLogger()}
	var err error
	if d.Security, err = security(f.commandConfig, d.Logger); err != nil {
		return d, err
	}
	if d.Security.Protocol == "" {
		d.Security.Protocol = "PLAINTEXT"
	}
	return d, nil
}

// zkSizesSeeds reads the brokers' registrations from ZooKeeper each time
// it is called, for a ZooKeeper-mode SizePoller: before any broker is
// registered it says so, and the poller asks again at its next reading.
func (f *connFlags) zkSizesSeeds(conn *zkwatch.Conn, protocol string, logger *log.Logger) func() ([]string, error) {
	listener, given := f.sizesListener, f.commandConfig != ""
	return func() ([]string, error) {
		ids, _, err := conn.Children(cluster.BrokerIDsPath)
		if err != nil {
			return nil, fmt.Errorf("the brokers' registrations in ZooKeeper: %w", err)
		}
		var brokers []cluster.Broker
		for _, name := range ids {
			id, err := strconv.Atoi(name)
			if err != nil {
				continue
			}
			data, _, err := conn.Get(cluster.BrokerIDsPath + "/" + name)
			if err != nil {
				continue // gone since the listing
			}
			reg, err := cluster.DecodeBroker(data)
			if err != nil {
				logger.Printf("sizes: broker %d's registration: %v", id, err)
				continue
			}
			brokers = append(brokers, cluster.Broker{ID: id, Live: true, Registration: reg})
		}
		if len(brokers) == 0 {
			return nil, fmt.Errorf("no broker is registered in ZooKeeper yet")
		}
		return sizesSeeds(brokers, listener, protocol, given)
	}
}

// sizesSeeds are the live brokers' addresses on the listener to read the
// sizes through: the one named (--sizes-listener), else the brokers'
// only listener, else the one speaking protocol (--command-config's
// security.protocol, PLAINTEXT without one: given says which).
func sizesSeeds(brokers []cluster.Broker, listener, protocol string, given bool) ([]string, error) {
	type lst struct{ name, protocol string }
	var all []lst
	for _, b := range brokers {
		if !b.Live {
			continue
		}
		for _, e := range b.Registration.Endpoints {
			if !slices.Contains(all, lst{e.Listener, e.SecurityProtocol}) {
				all = append(all, lst{e.Listener, e.SecurityProtocol})
			}
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no live broker registered a listener")
	}
	slices.SortFunc(all, func(a, b lst) int { return strings.Compare(a.name, b.name) })
	var names []string
	for _, l := range all {
		names = append(names, l.name+" ("+l.protocol+")")
	}
	listed := strings.Join(names, ", ")
	var chosen lst
	switch {
	case listener != "":
		i := slices.IndexFunc(all, func(l lst) bool { return strings.EqualFold(l.name, listener) })
		if i < 0 {
			return nil, fmt.Errorf("no broker has a listener %s (--sizes-listener): the brokers' listeners are %s", listener, listed)
		}
		chosen = all[i]
	case len(all) == 1:
		chosen = all[0]
	default:
		var fit []lst
		for _, l := range all {
			if l.protocol == protocol {
				fit = append(fit, l)
			}
		}
		from := "security.protocol " + protocol + " of --command-config"
		if !given {
			from = "PLAINTEXT (no --command-config)"
		}
		switch i := slices.IndexFunc(fit, func(l lst) bool { return l.name == protocol }); {
		case len(fit) == 1:
			chosen = fit[0]
		case i >= 0:
			chosen = fit[i]
		case len(fit) == 0:
			return nil, fmt.Errorf("no listener fits %s: the brokers' listeners are %s; name one with --sizes-listener (and its security in --command-config)", from, listed)
		default:
			return nil, fmt.Errorf("several listeners fit %s: the brokers' listeners are %s; name one with --sizes-listener", from, listed)
		}
	}
	var seeds []string
	for _, b := range brokers {
		if !b.Live {
			continue
		}
		for _, e := range b.Registration.Endpoints {
			if e.Listener == chosen.name && e.Host != "" {
				seeds = append(seeds, e.Addr())
			}
		}
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no live broker has an address on listener %s", chosen.name)
	}
	return seeds, nil
}
