package cmd

import (
	"context"
	"errors"

	"github.com/ktopo/ktopo/internal/peer"
)

// notZooKeeper is zkwatch's Options.Probe for --zookeeper: asked about a
// server that closed the session handshake (or never answered it), it
// says what the server is when that is not ZooKeeper, and which flag
// takes it. A server that may be ZooKeeper (one without quorum closes
// handshakes; a silent one may be loading its database) gets nil: the
// connection goes on trying it.
func notZooKeeper(ctx context.Context, addr string) error {
	p := peer.Identify(ctx, addr, peer.Options{})
	it := addr + " is " + p.What() + " (" + p.Evidence + "), not a ZooKeeper server"
	switch p.Kind {
	case peer.KafkaBroker:
		if p.ZooKeeperMode {
			return errors.New(it + ": give --zookeeper the ZooKeeper of the broker's zookeeper.connect (in its server.properties)")
		}
		return errors.New(it + ": for a KRaft cluster give --bootstrap-server " + addr + " instead")
	case peer.KafkaController:
		return errors.New(it + ": for a KRaft cluster give --bootstrap-server its brokers' listeners (ktopo migration takes controllers with --bootstrap-controller)")
	case peer.HTTP, peer.Unknown:
		return errors.New(it + ": --zookeeper takes ZooKeeper's client port (clientPort, 2181 by default)")
	case peer.TLS:
		return errors.New(addr + " answered a plaintext request with a TLS alert: if it is ZooKeeper's secureClientPort, connect with TLS: --zk-tls-ca, --zk-tls-cert, --zk-tls-key")
	}
	return nil
}
