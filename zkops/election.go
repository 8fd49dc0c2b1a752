package zkops

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// UncleanThroughZooKeeper explains why an unclean election cannot be
// asked for through ZooKeeper.
const UncleanThroughZooKeeper = "--election-type unclean cannot be carried out through ZooKeeper: " +
	"/admin/preferred_replica_election only starts preferred elections, and Kafka's controller elects an " +
	"out-of-sync replica only when asked through the Admin API (kafka-leader-election.sh --bootstrap-server … " +
	"--election-type unclean) or when unclean.leader.election.enable is on for the topic or the brokers " +
	"(kafka-configs.sh), which lets it elect one for each leaderless partition"

// electionOps returns the multi startPreferredElection sends: the znode's
// create, after its missing parents (none on a cluster whose brokers ran).
func electionOps(z ZK, p *clusterops.ElectionPlan) ([]any, error) {
	return createWithParentsOps(z, cluster.AdminPath, p.Path, p.JSON)
}

// startPreferredElection writes the plan's znode in one multi. When an
// election is pending it returns Kafka's refusal naming the pending
// partitions, and writes nothing.
func startPreferredElection(z ZK, p *clusterops.ElectionPlan) error {
	ops, err := electionOps(z, p)
	if err != nil {
		return err
	}
	if _, err := writeMulti(z, ops...); err != nil {
		if !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("start the preferred leader election: %w", err)
		}
		// A parent made meanwhile fails the same way; only the election
		// node itself means an election is pending.
		data, _, gerr := z.Get(p.Path)
		if gerr != nil {
			return fmt.Errorf("start the preferred leader election: %w", err)
		}
		pending, _ := cluster.DecodePreferredReplicaElection(data)
		return clusterops.ElectionInProgressError(pending.Partitions)
	}
	return nil
}
