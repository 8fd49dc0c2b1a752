package cmd

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/cmd/render"
	"github.com/ktopo/ktopo/internal/text"
)

type configsFlags struct {
	entityType    string
	entityName    string
	entityDefault bool
	describe      bool
	alter         bool
	addConfig     []string
	deleteConfig  []string
	validateOnly  bool
	noWait        bool
	timeout       time.Duration
}

func newConfigsCmd(cf *connFlags) *cobra.Command {
	var f configsFlags
	c := &cobra.Command{
		Use:         "configs",
		Annotations: modes(modesBoth),
		Short:       "Describe and alter topic and broker configs, on ZooKeeper or KRaft (kafka-configs.sh flags)",
		Long: `configs reads and changes Kafka's dynamic configs with kafka-configs.sh's flags, checks and
messages: on a ZooKeeper-mode cluster (--zookeeper) in ZooKeeper, as kafka-configs.sh
--zookeeper does; on a KRaft cluster (--bootstrap-server) over Kafka's Admin API, as
kafka-configs.sh --bootstrap-server does.

--alter merges --add-config and --delete-config into the entity's overrides,
validates the result with Kafka's topic config table, shows what changes
(and what it does to the topic's partitions: under-min-ISR partitions for
min.insync.replicas, the unclean leaders unclean.leader.election.enable
would elect). When unclean election is enabled on a topic with leaderless
partitions, it follows the controller's election.
  - ZooKeeper: it writes the whole override set to /config/topics/<t>, only if
    it has not changed since it was read, and the change notification that
    makes the brokers apply it, in one ZooKeeper multi (Kafka makes these two
    writes one after the other). It alters topics only: dynamic broker configs
    are validated by the running brokers (kafka-configs --bootstrap-server).
  - KRaft: it sends Kafka's IncrementalAlterConfigs: SET of each key added or
    changed, DELETE of each key removed, validateOnly first, then for real. It
    alters topics, brokers (an id) and the brokers' default (--entity-default);
    a broker config's value is checked by the brokers.

--add-config takes k=v pairs separated by commas; square brackets group a
value that holds commas: 'cleanup.policy=[compact,delete],retention.ms=1000'.

--describe prints the format of the matching kafka-configs.sh; without
--entity-name, every entity of the type.
  - ZooKeeper: kafka-configs --zookeeper's line per entity ("Configs for topic
    'orders' are k=v,…"), every entity that has a config znode; broker configs
    (--entity-type brokers, an id or --entity-default) are the dynamic ones in
    /config/brokers.
  - KRaft: Kafka 4.x's kafka-configs --bootstrap-server --describe (DescribeConfigs):
    "Dynamic configs for topic orders are:", then each dynamic config as
    "  k=v sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:k=v, …}" (a sensitive
    value is null, as Kafka sends none); every topic, or every broker then
    "Default configs for brokers in the cluster are:", in the tool's order; an
    entity that does not exist reads "The topic 'x' doesn't exist and doesn't
    have dynamic config.", exit 0, as with Kafka's tool.

--validate-only prints the multi (on KRaft, the request) without writing;
read-only mode refuses --alter.`,
		Example: `  ktopo configs --zookeeper zk1:2181/kafka --entity-type topics --entity-name orders --describe
  ktopo configs --entity-type topics --entity-name orders --alter --add-config retention.ms=86400000,min.insync.replicas=2
  ktopo configs --entity-type topics --entity-name orders --alter --delete-config retention.ms --validate-only
  ktopo configs --entity-type brokers --entity-default --describe
  ktopo configs --bootstrap-server kafka1:9092 --entity-type brokers --describe
  ktopo configs --bootstrap-server kafka1:9092 --entity-type brokers --entity-name 3 --alter --add-config 'cordoned.log.dirs=*'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runConfigs(c, cf, f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.entityType, "entity-type", "", "type of entity: topics or brokers")
	fl.StringVar(&f.entityName, "entity-name", "", "name of the entity: a topic name or a broker id")
	fl.BoolVar(&f.entityDefault, "entity-default", false, "the brokers' cluster-wide default config (in ZooKeeper /config/brokers/<default>)")
	fl.BoolVar(&f.describe, "describe", false, "list the entity's config overrides")
	fl.BoolVar(&f.alter, "alter", false, "alter the entity's config overrides")
	fl.StringArrayVar(&f.addConfig, "add-config", nil, "configs to set: k1=v1,k2=[v1,v2],k3=v3")
	fl.StringArrayVar(&f.deleteConfig, "delete-config", nil, "config keys to remove: k1,k2 (repeatable)")
	fl.BoolVar(&f.validateOnly, "validate-only", false, "run every check and print what would be written, write nothing")
	fl.BoolVar(&f.noWait, "no-wait", false, "return once the config is written, without following unclean elections it triggers")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Second, "how long to wait for the unclean elections enabling unclean.leader.election.enable triggers")
	return c
}

// checkConfigsArgs is ConfigCommandOptions.checkArgs for what ktopo takes,
// with Kafka's messages in Kafka's order; it returns the entity name
// (<default> for --entity-default).
func checkConfigsArgs(c *cobra.Command, f configsFlags, kraft bool) (string, error) {
	fl := c.Flags()
	if f.describe == f.alter {
		return "", errors.New("Command must include exactly one action: --describe, --alter")
	}
	if f.describe {
		for _, n := range []string{"add-config", "delete-config"} {
			if fl.Changed(n) {
				return "", fmt.Errorf(`Option "[describe]" can't be used with option "[%s]"`, n)
			}
		}
	}
	if !fl.Changed("entity-type") {
		return "", errors.New("At least one entity type must be specified")
	}
	if !slices.Contains(clusterops.ZooKeeperEntityTypes(), f.entityType) && !kraft {
		return "", fmt.Errorf("Invalid entity type %s, the entity type must be one of %s with a --zookeeper argument",
			f.entityType, strings.Join(clusterops.ZooKeeperEntityTypes(), ", "))
	}
	name := f.entityName
	hasName := fl.Changed("entity-name") && name != ""
	if f.entityDefault {
		if fl.Changed("entity-name") {
			return "", errors.New("--entity-name and --entity-default cannot be given together")
		}
		name = cluster.BrokerDefaultEntity
	}
	if hasName && f.entityType == cluster.EntityBrokers {
		if _, err := clusterops.ValidateBrokerEntity(name); err != nil {
			return "", err
		}
	}
	if f.alter {
		if f.entityType == cluster.EntityTopics && !hasName {
			return "", errors.New("an entity name must be specified with --alter of topics")
		}
		if f.entityType != cluster.EntityTopics && !hasName && !f.entityDefault {
			return "", errors.New("an entity-name or default entity must be specified with --alter of users, clients, brokers or ips")
		}
		if !fl.Changed("add-config") && !fl.Changed("delete-config") {
			return "", errors.New("At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter")
		}
	}
	// jopt-simple's, when the command reads the value.
	if len(f.addConfig) > 1 {
		return "", errors.New("Found multiple arguments for option add-config, but you asked for only one")
	}
	switch {
	case f.entityType == cluster.EntityTopics:
	case f.entityType == cluster.EntityBrokers && (f.describe || kraft):
	case f.entityType == cluster.EntityBrokers:
		return "", errors.New("ktopo does not alter broker configs: Kafka validates dynamic broker configs on the running brokers (kafka-configs --bootstrap-server --entity-type brokers)")
	default:
		return "", fmt.Errorf("ktopo configs handles --entity-type topics and brokers, not %s", f.entityType)
	}
	if f.entityDefault && f.entityType == cluster.EntityTopics {
		return "", errors.New("topics have no default entity: --entity-default is for brokers")
	}
	return name, nil
}

func runConfigs(c *cobra.Command, cf *connFlags, f configsFlags) error {
	t, err := cf.target()
	if err != nil {
		return err
	}
	name, err := checkConfigsArgs(c, f, t.kraft)
	if err != nil {
		return err
	}
	if f.describe {
		return describeConfigs(c, cf, f.entityType, name)
	}
	return alterConfig(c, cf, f, name)
}

// describeConfigs prints kafka-configs --describe through the session's
// writer (clusterops.ConfigDescriber), as the cluster's own tool prints
// it: --zookeeper's one line per entity (every entity with a config znode
// when name is ""), or Kafka 4.x's --bootstrap-server lines, each config
// with its sensitivity and synonyms. A named entity that does not exist
// on a KRaft cluster is Kafka's line on standard output, not an error, as
// with its tool.
func describeConfigs(c *cobra.Command, cf *connFlags, entityType, name string) error {
	ses, err := cf.reach(c)
	if err != nil {
		return err
	}
	defer ses.close()
	w, err := ses.Writer()
	if err != nil {
		return err
	}
	d, ok := w.(clusterops.ConfigDescriber)
	if !ok {
		return errors.New("this cluster's writer cannot describe configs") // both writers can
	}
	es, err := d.DescribeConfigs(c.Context(), entityType, name)
	if clusterops.IsNoEntity(err) {
		fmt.Fprintln(c.OutOrStdout(), err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	if ses.kraft() {
		return render.WriteConfigsDescribe(c.OutOrStdout(), entityType, es)
	}
	for _, e := range es {
		entries := make([]cluster.ConfigEntry, len(e.Configs))
		for i, dc := range e.Configs {
			entries[i] = cluster.ConfigEntry{Key: dc.Name, Value: *dc.Value}
		}
		fmt.Fprintln(c.OutOrStdout(), clusterops.ConfigsDescribeLine(entityType, e.Name, entries))
	}
	return nil
}

// alterConfig is --alter of a topic's overrides (or, on a KRaft cluster,
// a broker's dynamic configs, or the brokers' default).
func alterConfig(c *cobra.Command, cf *connFlags, f configsFlags, entity string) error {
	out := c.OutOrStdout()
	add := map[string]string{}
	if len(f.addConfig) == 1 {
		var err error
		if add, err = cluster.ParseAddConfig(f.addConfig[0]); err != nil {
			return err
		}
	}
	topic := f.entityType == cluster.EntityTopics
	if w := cluster.ConfigWarning(add); w != "" && topic {
		fmt.Fprintln(out, w)
	}
	del := cluster.ParseDeleteConfig(f.deleteConfig)
	what := "alter the config of " + strings.TrimSuffix(f.entityType, "s") + " " + entity
	if entity == cluster.BrokerDefaultEntity {
		what = "alter the default config of the " + f.entityType
	}

	ctx := c.Context()
	ws, err := cf.openLive(c)
	if err != nil {
		return err
	}
	defer ws.close()
	if err := cf.refuseEarly(c, ws.writer, what); err != nil {
		return err
	}
	if !f.validateOnly {
		if err := cf.writable(what, "--validate-only checks it without writing"); err != nil {
			return err
		}
	}
	entries, version, err := ws.writer.ReadConfig(ctx, f.entityType, entity)
	if err != nil {
		return err
	}
	var alt *clusterops.ConfigAlteration
	if topic {
		alt, err = clusterops.PlanTopicConfigAlteration(entity, entries, version, add, del, ws.snap)
	} else {
		alt, err = clusterops.PlanBrokerConfigAlteration(entity, entries, add, del)
	}
	if err != nil {
		return err
	}
	writeConfigPreview(out, alt, ws.kraft())
	var effects clusterops.ConfigEffects
	if topic {
		effects = clusterops.TopicConfigEffects(ws.snap, entity, alt.Change.Config)
		for _, e := range effects.Lines {
			fmt.Fprintln(out, e)
		}
	}
	alts := []*clusterops.ConfigAlteration{alt}
	if f.validateOnly {
		writes, err := ws.writer.AlterConfigs(ctx, alts, clusterops.Validate)
		if err != nil {
			return err
		}
		writeWouldWrite(out, writes)
		return noteWrite(c, ws.writer)
	}
	w, err := cf.confirmWrite(c, ws.writer, what)
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := w.AlterConfigs(ctx, alts, clusterops.Apply); err != nil {
		return err
	}
	fmt.Fprintln(out, "\n"+configsDone(f.entityType, entity, ws.kraft()))
	if f.noWait || len(effects.UncleanLeaders) == 0 {
		return nil
	}
	fmt.Fprintln(out, "Waiting for the controller's unclean elections:")
	ctx, stop := interruptible(ctx)
	defer stop()
	return interrupted(waitOnline(ctx, ws.watch, entity, effects.UncleanLeaders, f.timeout, start, out), c.ErrOrStderr(),
		fmt.Sprintf("the config is changed; the controller carries out its unclean elections without ktopo (ktopo topics describe --topic %s shows the leaders).", entity))
}

// configsDone is kafka-configs' line once the config is changed: 2.8's
// with --zookeeper ("Completed updating config for entity: topic
// 'orders'."), 3.x's and 4.x's with --bootstrap-server ("Completed
// updating config for topic orders.", "Completed updating default config
// for brokers in the cluster.").
func configsDone(entityType, entity string, kraft bool) string {
	if !kraft {
		return "Completed updating config for entity: " + clusterops.EntityDescription(entityType, entity) + "."
	}
	if entity == cluster.BrokerDefaultEntity {
		return "Completed updating default config for " + entityType + " in the cluster."
	}
	return "Completed updating config for " + clusterops.AdminEntityDescription(entityType, entity) + "."
}

// writeConfigPreview prints the overrides before and after: "+" added,
// "~" changed (old -> new), "-" deleted.
func writeConfigPreview(out io.Writer, a *clusterops.ConfigAlteration, kraft bool) {
	if kraft {
		fmt.Fprintf(out, "Config overrides of %s:\n", clusterops.AdminEntityDescription(a.Change.EntityType, a.Change.Entity))
	} else {
		path := a.Change.Path()
		at := "absent: it will be created"
		if a.Change.Version >= 0 {
			at = fmt.Sprintf("version %d", a.Change.Version)
		}
		fmt.Fprintf(out, "Config overrides of %s (%s, %s):\n", clusterops.EntityDescription(a.Change.EntityType, a.Change.Entity), path, at)
	}
	before := map[string]string{}
	for _, e := range a.Before {
		before[e.Key] = e.Value
	}
	width := 0
	for _, k := range append(append([]string{}, a.Set...), a.Deleted...) {
		width = max(width, len(k))
	}
	for _, k := range a.Set {
		if old, ok := before[k]; ok {
			fmt.Fprintf(out, "  ~ %-*s  %s -> %s\n", width, k, old, a.Change.Config[k])
		} else {
			fmt.Fprintf(out, "  + %-*s  %s\n", width, k, a.Change.Config[k])
		}
	}
	for _, k := range a.Deleted {
		fmt.Fprintf(out, "  - %-*s  %s (back to the broker's default)\n", width, k, before[k])
	}
	if len(a.Set)+len(a.Deleted) == 0 {
		if kraft {
			fmt.Fprintln(out, "  no change")
		} else {
			fmt.Fprintln(out, "  no change (the brokers are notified all the same, as kafka-configs does)")
		}
	}
	fmt.Fprintf(out, "After: %s\n", text.Count(len(a.Change.Config), "override"))
}
