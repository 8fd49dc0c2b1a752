package zkops

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// createTopic writes the plan: the config znode (created, or set when an
// orphan from an earlier crash exists) and the topic znode, in one
// ZooKeeper multi, so that a crash or a race never leaves half a topic.
// Missing parent containers are created in the same multi. When another
// creator wins the race, it returns Kafka's TopicExistsException ("Topic
// '<t>' already exists.") and nothing is written.
func createTopic(z ZK, p *clusterops.TopicPlan) error {
	var lastErr error
	// A concurrent writer can invalidate what we read (a config node
	// appearing, a parent created); re-read and try again a few times.
	for range 3 {
		ops, err := createOps(z, p)
		if err != nil {
			return &unsentError{err}
		}
		results, err := writeMulti(z, ops...)
		if err == nil {
			return nil
		}
		failed := failedOp(ops, results)
		if cr, ok := failed.(*zk.CreateRequest); ok && cr.Path == p.TopicPath && errors.Is(err, zk.ErrNodeExists) {
			return kafkaErr(cluster.ClassTopicExists, "Topic '"+p.Name+"' already exists.")
		}
		if !errors.Is(err, zk.ErrNodeExists) && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrBadVersion) {
			return fmt.Errorf("create topic %s: %w", p.Name, err)
		}
		lastErr = err
	}
	return fmt.Errorf("create topic %s: concurrent changes to its znodes: %w", p.Name, lastErr)
}

// createOps returns the multi that createTopic would send now (for
// --validate-only and the wizard's "what will be written" view).
func createOps(z ZK, p *clusterops.TopicPlan) ([]any, error) {
	acl := zk.WorldACL(zk.PermAll)
	var ops []any
	ok, _, err := z.Exists(p.ConfigPath)
	if err != nil {
		return nil, readErr(p.ConfigPath, err)
	}
	if ok {
		// An orphan config (a creator crashed between Kafka's two writes):
		// Kafka overwrites it unconditionally.
		ops = append(ops, &zk.SetDataRequest{Path: p.ConfigPath, Data: p.ConfigJSON, Version: -1})
	} else {
		ops = append(ops, &zk.CreateRequest{Path: p.ConfigPath, Data: p.ConfigJSON, Acl: acl})
	}
	ops = append(ops, &zk.CreateRequest{Path: p.TopicPath, Data: p.TopicJSON, Acl: acl})
	return withParents(z, ops, cluster.ConfigTopicsPath, cluster.BrokerTopicsPath)
}

// DescribeOps renders multi ops as "create PATH DATA" / "set PATH DATA"
// lines, for showing exactly what will be written.
func DescribeOps(ops []any) []string {
	out := make([]string, 0, len(ops))
	for _, op := range ops {
		switch o := op.(type) {
		case *zk.CreateRequest:
			path := o.Path
			if o.Flags&zk.FlagSequence != 0 {
				path += "<sequence number>"
			}
			out = append(out, "create "+path+" "+dataText(o.Data))
		case *zk.SetDataRequest:
			at := ""
			if o.Version >= 0 {
				at = " (at version " + strconv.Itoa(int(o.Version)) + ")"
			}
			out = append(out, "set    "+o.Path+at+" "+dataText(o.Data))
		case *zk.DeleteRequest:
			out = append(out, "delete "+o.Path)
		case *zk.CheckVersionRequest:
			out = append(out, "check  "+o.Path+" version "+strconv.Itoa(int(o.Version)))
		}
	}
	return out
}

func dataText(b []byte) string {
	if b == nil {
		return "(no data)"
	}
	return string(b)
}

// deleteTopic creates /admin/delete_topics/<t> (with missing parents) as
// kafka-topics --delete does in ZooKeeper mode, after Kafka's checks
// (ValidateTopicDelete). An existing marker gives the
// TopicAlreadyMarkedForDeletionException kafka-topics reports as
// "Topic <t> is already marked for deletion.".
func deleteTopic(z ZK, t string, existing cluster.ExistingTopics) error {
	ops, err := deleteTopicOps(z, t, existing)
	switch {
	case cluster.ErrorClass(err) != "":
		return err
	case err != nil:
		return &unsentError{err}
	}
	if _, err := writeMulti(z, ops...); err != nil {
		if errors.Is(err, zk.ErrNodeExists) {
			return kafkaErr(cluster.ClassTopicAlreadyMarkedForDeletion, "topic "+t+" is already marked for deletion")
		}
		return fmt.Errorf("mark topic %s for deletion: %w", t, err)
	}
	return nil
}
