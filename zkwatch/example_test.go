package zkwatch_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/ktopo/ktopo/zkwatch"
)

// A Kafka-like mirror: brokers, topics with their partition states derived
// from the assignments, the controller. The consumer applies batches.
func Example() {
	conn, err := zkwatch.Connect(context.Background(), "zk1:2181,zk2:2181/kafka", zkwatch.Options{
		ReadOnly: true,
		Logger:   log.New(os.Stderr, "zookeeper: ", log.LstdFlags),
	})
	if err != nil {
		log.Fatal(err) // e.g. "zookeeper 10.0.0.1:2181: connect: connection refused"
	}
	defer conn.Close()

	m, err := zkwatch.NewMirror(conn, zkwatch.Shape{
		Lists: []zkwatch.List{
			{Path: "/brokers/ids", ReadChildren: true},
			{Path: "/brokers/topics", ReadChildren: true},
		},
		Reads: []string{"/controller"},
		Derive: func(path string, data []byte) []string {
			if !strings.HasPrefix(path, "/brokers/topics/") || strings.Count(path, "/") != 3 {
				return nil
			}
			return []string{path + "/partitions/0/state"} // decode the assignment here
		},
	}, zkwatch.MirrorOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	tree := map[string]zkwatch.Node{}
	for b := range m.Batches() {
		if len(b.States) > 0 {
			fmt.Println("connection:", b.States[len(b.States)-1])
		}
		if b.Reset {
			clear(tree)
		}
		for _, ev := range b.Events {
			switch ev.Type {
			case zkwatch.Created, zkwatch.Changed:
				tree[ev.Path] = zkwatch.Node{Data: ev.Data, Stat: ev.Stat}
			case zkwatch.Deleted:
				delete(tree, ev.Path)
			}
		}
	}
}
