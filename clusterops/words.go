package clusterops

import (
	"strconv"

	"github.com/ktopo/ktopo/cluster"
)

// Words are how a backend's writes read in the wizards: for each
// operation what is sent (a confirmation's lines), what the cluster does
// once it is (the exact writes' heading), what the progress says while it
// is sent. Each writer words its own (Writer.Words: ZooKeeperWords for
// ZooKeeper's multis and znodes, KafkaWords for the Admin API's requests),
// so that a screen asks its writer instead of testing which backend it
// writes to.
type Words struct {
	// AppliedOnAnswer: the cluster has applied a write when it answers
	// (Kafka's controller: a config is set, a reorder done). Through
	// ZooKeeper a write is a request the controller or the brokers carry
	// out later, which the mirror shows.
	AppliedOnAnswer bool
	// ThrottlesApart: a reassignment's throttles are a write of their
	// own, before it (Kafka's IncrementalAlterConfigs); through ZooKeeper
	// they are in the reassignment's multi.
	ThrottlesApart bool
	// Refused is what a refused write left: nothing.
	Refused string
	// MovesStep is a reassignment's write in a confirmation's few words.
	MovesStep string

	// ReassignSending and ReassignSendingThrottled are the progress's
	// line while a reassignment is sent; ReassignHow the confirmation's;
	// ReassignThen and ReassignReading the exact writes' heading detail
	// and what it reads first; ThrottlesRemoved the note on the
	// throttles' removal once every partition is done; PlannedThen how a
	// step written later (a drain's, after its leaders moved) is shown.
	ReassignSending, ReassignSendingThrottled string
	ReassignHow                               []string
	ReassignThen, ReassignReading             string
	ThrottlesRemoved                          string
	PlannedThen                               string

	// ElectHow is the confirmation's line of a preferred election (path:
	// ZooKeeper's request znode); ElectThen the exact writes' detail.
	ElectHow  func(path string) string
	ElectThen string

	// ConfigsHow is the confirmation's lines of a config change (path:
	// the entity's config znode); ConfigsThen the exact writes' detail.
	ConfigsHow  func(path string) []string
	ConfigsThen string

	// AddHow is the confirmation's lines of added partitions (the topic
	// znode and the version its write checks); AddSending the progress's
	// line while they are sent, AddRefused what a refusal left.
	AddHow     func(topicPath string, version int32) []string
	AddSending func(topicPath string) string
	AddRefused string
	// ElectSending is the progress's line while an election is asked for;
	// ElectNamer what names its partitions (a preview's legend).
	ElectSending, ElectNamer string
	// Exact is what the exact writes are, for a key's help ("w shows
	// the multi"); ConfigsStatus and AddStatus a task's status while a
	// config change or added partitions are written.
	Exact, ConfigsStatus, AddStatus string

	// CreateThen and CreateReading are the creation's exact writes'
	// heading detail and what it reads first.
	CreateThen, CreateReading string

	// The command line's: Validated is --validate-only's verdict, Verb
	// what a dry run would do ("write", "send"), HowSent how a write of n
	// steps goes, WholeOrNothing why a topic whose creation's reply was
	// lost exists as planned or not at all.
	Validated, Verb string
	HowSent         func(steps int) string
	WholeOrNothing  string
}

// ZooKeeperWords are zkops.Writer's: each write one multi of znodes.
var ZooKeeperWords = Words{
	Refused:                  "Nothing was written: the multi is all or nothing",
	MovesStep:                "write /admin/reassign_partitions (and the throttles)",
	ReassignSending:          "Writing the throttles and /admin/reassign_partitions in one multi…",
	ReassignSendingThrottled: "Writing the throttles and /admin/reassign_partitions in one multi…",
	ReassignHow:              []string{"Writes /admin/reassign_partitions", "(and the throttles) in one multi."},
	ReassignThen:             " — all or nothing; the controller then moves the replicas (w or esc closes)",
	ReassignReading:          "Reading the configs the throttles change…",
	ThrottlesRemoved:         "When every partition is done, a last multi removes the throttles.",
	PlannedThen:              " (versions as of then)",
	ElectHow:                 func(path string) string { return "Creates " + path },
	ElectThen:                " — the controller then elects the preferred leaders it names, and deletes it (w or esc closes)",
	ConfigsHow: func(path string) []string {
		return []string{"Writes " + path + " and a change", "notification in one multi."}
	},
	ConfigsThen: " — all or nothing; the brokers read the change notification and apply the new overrides (w or esc closes)",
	AddHow: func(topicPath string, version int32) []string {
		return []string{"Sets " + topicPath + " at version " + strconv.Itoa(int(version)), "in one multi."}
	},
	AddSending:     func(topicPath string) string { return "Writing " + topicPath + " in one multi…" },
	AddRefused:     "Nothing was written: the topic znode is set only at the version the plan read",
	ElectSending:   "Creating " + cluster.PreferredReplicaElectionPath + "…",
	ElectNamer:     "the znode",
	Exact:          "the multi",
	ConfigsStatus:  "writing the config znode…",
	AddStatus:      "writing the topic znode…",
	CreateThen:     " — all or nothing; the controller then creates the partition znodes (w or esc closes)",
	CreateReading:  "Reading what exists…",
	Validated:      "Validation passed.",
	Verb:           "write",
	HowSent:        func(int) string { return "in one ZooKeeper multi" },
	WholeOrNothing: "A multi is applied whole or not at all",
}

// KafkaWords are a KRaft cluster's writer's (package kafkaops): each
// write the Admin API request Kafka's tools send, answered once the
// controller has applied it.
var KafkaWords = Words{
	AppliedOnAnswer:          true,
	ThrottlesApart:           true,
	Refused:                  "Kafka refused it: nothing was written",
	MovesStep:                "send the reassignment (AlterPartitionReassignments)",
	ReassignSending:          "Sending the reassignment (AlterPartitionReassignments)…",
	ReassignSendingThrottled: "Sending the throttles, then the reassignment (AlterPartitionReassignments)…",
	ReassignHow:              []string{"Sends AlterPartitionReassignments."},
	ReassignThen:             " — the controller then moves the replicas (w or esc closes)",
	ReassignReading:          "Building the requests…",
	ThrottlesRemoved:         "When every partition is done, a last IncrementalAlterConfigs removes the throttles.",
	PlannedThen:              " (as planned then)",
	ElectHow:                 func(string) string { return "Sends ElectLeaders (PREFERRED)" },
	ElectThen:                " — the controller elects the preferred leaders it names and answers for each (w or esc closes)",
	ConfigsHow: func(string) []string {
		return []string{"Sends IncrementalAlterConfigs", "(validateOnly first, then for real)."}
	},
	ConfigsThen: " — only the keys that change; validateOnly first (w or esc closes)",
	AddHow: func(string, int32) []string {
		return []string{"Sends CreatePartitions with this placement", "(validateOnly first, then for real)."}
	},
	AddSending:     func(string) string { return "Sending CreatePartitions…" },
	AddRefused:     "Kafka refused it: nothing was written",
	ElectSending:   "Sending ElectLeaders (PREFERRED)…",
	ElectNamer:     "the request",
	Exact:          "the requests",
	ConfigsStatus:  "sending IncrementalAlterConfigs…",
	AddStatus:      "sending CreatePartitions…",
	CreateThen:     " — the preview's placement, given by hand; validateOnly first (w or esc closes)",
	CreateReading:  "Building the request…",
	Validated:      "Validation passed (ktopo's checks, and Kafka's: a request that has validateOnly was sent with validateOnly=true).",
	Verb:           "send",
	HowSent:        kafkaRequests,
	WholeOrNothing: "The controller creates a topic whole or not at all",
}

// kafkaRequests says how many Kafka requests a write sends.
func kafkaRequests(n int) string {
	if n == 1 {
		return "as one Kafka request"
	}
	return "as " + strconv.Itoa(n) + " Kafka requests, one after the other"
}

// WordsFor are the words of the backend that made ws.
func WordsFor(ws Writes) *Words {
	if ws.Backend == cluster.ViaKafka {
		return &KafkaWords
	}
	return &ZooKeeperWords
}

// WordsOf are w's words; without a writer (a session that cannot
// write) those of the backend s's cluster is reached through.
func WordsOf(w Writer, s *cluster.Snapshot) *Words {
	switch {
	case w != nil:
		return w.Words()
	case s != nil && s.KRaft() != nil:
		return &KafkaWords
	}
	return &ZooKeeperWords
}
