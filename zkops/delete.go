package zkops

import "github.com/ktopo/ktopo/cluster"

// deleteTopicOps is the multi deleteTopic writes to mark topic t for
// deletion, after Kafka's checks (ValidateTopicDelete): the create of
// /admin/delete_topics/<t>, preceded by those of its parents that are
// missing. For --validate-only, and deleteTopic itself, so that what a dry
// run shows is what a run writes.
func deleteTopicOps(z ZK, t string, existing cluster.ExistingTopics) ([]any, error) {
	if err := cluster.ValidateTopicDelete(t, existing); err != nil {
		return nil, err
	}
	return createWithParentsOps(z, cluster.DeleteTopicsPath, cluster.DeleteTopicPath(t), nil)
}
