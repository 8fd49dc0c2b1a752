package zksource

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// RootReader is what CheckRoot reads with (*zkwatch.Conn, *zk.Conn).
type RootReader interface {
	Exists(path string) (bool, *zk.Stat, error)
	Children(path string) ([]string, *zk.Stat, error)
}

// NoKafka says that the root of a connect string (its chroot, or / when it
// has none) holds no Kafka cluster: /brokers/ids, which every broker
// creates when it starts, does not exist there. Below lists the children of
// the root that hold one: the chroot the connect string probably lacks
// (a Kafka cluster is often under /kafka).
type NoKafka struct {
	// Root is the connect string's chroot ("" for none).
	Root  string
	Below []string
}

// CheckRoot looks for a Kafka cluster at the root r is rooted at: nil
// when there is one (/brokers/ids exists, even with no broker registered),
// else what it found one level down. It reads a few znodes: a command
// calls it, the TUI runs it in a command of its own (never in Update).
func CheckRoot(r RootReader, root string) (*NoKafka, error) {
	ok, _, err := r.Exists(cluster.BrokerIDsPath)
	if err != nil {
		return nil, fmt.Errorf("exists %s: %w", cluster.BrokerIDsPath, err)
	}
	if ok {
		return nil, nil
	}
	kids, _, err := r.Children("/")
	if err != nil {
		return nil, fmt.Errorf("children of /: %w", err)
	}
	slices.Sort(kids)
	out := &NoKafka{Root: root}
	for _, k := range kids {
		if k == "zookeeper" {
			continue
		}
		ok, _, err := r.Exists("/" + k + cluster.BrokerIDsPath)
		if err != nil && !errors.Is(err, zk.ErrNoAuth) {
			return nil, fmt.Errorf("exists /%s%s: %w", k, cluster.BrokerIDsPath, err)
		}
		if ok {
			out.Below = append(out.Below, path.Join(cmpRoot(root), k))
		}
	}
	return out, nil
}

func cmpRoot(root string) string {
	if root == "" {
		return "/"
	}
	return root
}

// Message says it in a sentence for the connect string connect (whose
// chroot is n.Root): where no cluster is, and where one is.
func (n *NoKafka) Message(connect string) string {
	msg := "No Kafka cluster at " + connect + ": " + path.Join(cmpRoot(n.Root), cluster.BrokerIDsPath) + " does not exist (no broker ever started there)."
	switch len(n.Below) {
	case 0:
		return msg + " Is the chroot right?"
	case 1:
		return msg + " Found a Kafka cluster under " + n.Below[0] + ": connect to " + n.Connect(connect, 0) + "."
	}
	var alts []string
	for i := range n.Below {
		alts = append(alts, n.Connect(connect, i))
	}
	return msg + " Found Kafka clusters under " + strings.Join(n.Below, ", ") + ": connect to one of " + strings.Join(alts, ", ") + "."
}

// Connect is connect with the chroot of Below[i].
func (n *NoKafka) Connect(connect string, i int) string {
	hosts := strings.TrimSuffix(connect, "/")
	if n.Root != "" {
		hosts = strings.TrimSuffix(hosts, n.Root)
	}
	return hosts + n.Below[i]
}
