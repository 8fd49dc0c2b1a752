package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cmd/render"
	"github.com/ktopo/ktopo/kafkawatch"
)

func newQuorumCmd(cf *connFlags) *cobra.Command {
	var output, controller string
	c := &cobra.Command{
		Use:         "quorum",
		Annotations: modes(modesKRaft),
		Short:       "Show a KRaft cluster's metadata quorum, feature levels and stale broker registrations",
		Long: `quorum is for KRaft clusters only (Kafka 3.x without ZooKeeper, 4.x): it reads the
cluster's metadata quorum, its feature levels and its brokers' registrations, for an
operator about to fail a controller over, upgrade a feature or clean up after a
removed broker.

  - the quorum (DescribeQuorum): the leader and its epoch, the high watermark,
    kraft.version (0: a static quorum, controller.quorum.voters; 1: a dynamic one,
    KIP-853), and every voter and observer with its directory id (Kafka 3.9+; a
    static quorum's voters have none), log end offset, lag behind the leader, last
    fetch and last caught-up times, and the voters' endpoints; then the majority's
    arithmetic: "3 voters: a majority is 2, so 1 may fail; with controller 3002
    (last fetch 41s ago) down, none may". A voter counts as down when the leader
    has not had a fetch from it for 5 s (a live one fetches every 0.5 s at most).
  - the features: every finalized level (metadata.version, kraft.version,
    eligible.leader.replicas.version, group.version, transaction.version, …), with
    the range every node's software supports (ApiVersions, asked of every
    registered broker at its endpoint and, with --bootstrap-controller, of every
    voter), the highest level all of them support and which nodes hold a feature
    below the highest any supports. Kafka's controller checks every registration
    before it raises a level, a fenced broker's too: a node ktopo could not ask is
    named, since its range still counts, and where a level could be raised, or a
    node holds it below the highest level another supports, the controller itself
    is asked, with validateOnly (kafka-features upgrade --dry-run's request, which
    writes nothing), whether it would accept it. Then the upgrade blockers, node by
    node: "broker 3 blocks metadata.version 4.4-IV2 (it supports up to 3.9-IV0, as
    Kafka 3.9 does)", from the nodes' ranges and from the controller's refusals,
    which name a fenced broker's registration too, whose ranges no API shows.
  - the registrations (DescribeCluster, fenced brokers listed from Kafka 4.0): each
    fenced broker, how long since it last fetched the metadata log (the leader
    keeps an observer five minutes), whether it answers at its endpoint, and
    whether it looks stale (fenced, not answering, not fetching): a registration
    left behind by a removed broker, which only UnregisterBroker removes.

It asks through the brokers (--bootstrap-server), which forward DescribeQuorum to
the quorum's leader, or the controllers' CONTROLLER listeners
(--bootstrap-controller, as Kafka's kafka-metadata-quorum takes them), where only
the leader answers it; with both, the controllers answer the quorum and the
brokers the registrations. --command-config secures both. A ZooKeeper-mode cluster
(--zookeeper) has no metadata quorum: ktopo migration shows one migrating to KRaft.
--output json prints the same as one object.`,
		Example: `  ktopo quorum --bootstrap-server kafka1:9092
  ktopo quorum --bootstrap-server kafka1:9092 --bootstrap-controller kraft1:9093,kraft2:9093,kraft3:9093
  ktopo quorum --bootstrap-controller kraft1:9093 --output json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			controllers, err := kafkawatch.ParseBootstrap(controller)
			if err != nil {
				return fmt.Errorf("--bootstrap-controller: %w", err)
			}
			t, err := cf.target()
			if err != nil {
				return err
			}
			var d kafkawatch.Dial
			switch {
			case t.connect != "" && !t.kraft:
				return fmt.Errorf("quorum reads a KRaft cluster's metadata quorum: a ZooKeeper-mode cluster (--zookeeper %s) has none (ktopo migration shows one migrating to KRaft); give --bootstrap-server or --bootstrap-controller", t.connect)
			case t.connect != "":
				if d, err = cf.dial(); err != nil {
					return err
				}
			case len(controllers) == 0:
				return fmt.Errorf("no cluster given: --bootstrap-server host:port[,…] (the brokers) or --bootstrap-controller host:port[,…] (the controllers' CONTROLLER listeners), or --context NAME, or set %s", envBootstrap)
			default:
				cf.kraftSide = true
				d = kafkawatch.Dial{Logger: kafkaLogger()}
				if d.Security, err = security(t.commandConfig, d.Logger); err != nil {
					return err
				}
				if cf.flags != nil && cf.flags.Changed("request-timeout") {
					d.RequestTimeout = cf.requestTimeout
				}
			}
			cf.warn(t)
			r, err := kafkawatch.ReadQuorumReport(c.Context(), d, controllers)
			if err != nil {
				return d.Diagnose(c.Context(), d.Security.Explain(err))
			}
			if output == "json" {
				return render.WriteQuorumJSON(c.OutOrStdout(), r)
			}
			return render.WriteQuorum(c.OutOrStdout(), r)
		},
	}
	c.AddCommand(newQuorumAddControllerCmd(cf), newQuorumRemoveControllerCmd(cf))
	c.Flags().StringVar(&output, "output", "text", "output format: text or json")
	c.Flags().StringVar(&controller, "bootstrap-controller", "", "the KRaft controllers' CONTROLLER listeners host:port[,…]: DescribeQuorum is asked of them (the leader answers), and every voter's supported feature ranges (with --command-config's security)")
	return c
}
