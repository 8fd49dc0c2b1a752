package zksource

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

// fakeTree is a set of znode paths (the pure logic of CheckRoot; the
// command line's TestMissingChroot runs it on ZooKeeper).
type fakeTree []string

func (f fakeTree) Exists(p string) (bool, *zk.Stat, error) { return slices.Contains(f, p), nil, nil }

func (f fakeTree) Children(p string) ([]string, *zk.Stat, error) {
	var out []string
	for _, n := range f {
		if rest, ok := strings.CutPrefix(n, strings.TrimSuffix(p, "/")+"/"); ok && !strings.Contains(rest, "/") {
			out = append(out, rest)
		}
	}
	return out, nil, nil
}

func TestCheckRoot(t *testing.T) {
	for _, tc := range []struct {
		name, root, connect string
		tree                fakeTree
		want                string
	}{
		{"kafka here", "", "zk:2181", fakeTree{"/brokers", "/brokers/ids"}, ""},
		{"under /kafka", "", "zk:2181", fakeTree{"/zookeeper", "/kafka", "/kafka/brokers", "/kafka/brokers/ids", "/other"},
			"No Kafka cluster at zk:2181: /brokers/ids does not exist (no broker ever started there). Found a Kafka cluster under /kafka: connect to zk:2181/kafka."},
		{"two, in a chroot", "/env", "zk:2181,zk2:2181/env", fakeTree{"/b", "/b/brokers/ids", "/a", "/a/brokers/ids"},
			"No Kafka cluster at zk:2181,zk2:2181/env: /env/brokers/ids does not exist (no broker ever started there). " +
				"Found Kafka clusters under /env/a, /env/b: connect to one of zk:2181,zk2:2181/env/a, zk:2181,zk2:2181/env/b."},
		{"none", "", "zk:2181/", fakeTree{"/zookeeper", "/other"},
			"No Kafka cluster at zk:2181/: /brokers/ids does not exist (no broker ever started there). Is the chroot right?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nk, err := CheckRoot(tc.tree, tc.root)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if nk != nil {
				got = nk.Message(tc.connect)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
