// Package tooldiff compares what Kafka's command-line tools print for two
// clusters (a real Kafka and a simulation of it): Normalise masks what
// legitimately differs between any two clusters of the same shape
// (cluster, topic and directory ids, listeners' addresses, log directory
// paths, times, offsets, epochs, sizes), Unified shows what is left.
package tooldiff

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Names are what identifies one cluster in the tools' output.
type Names struct {
	// ClusterID is the cluster's id.
	ClusterID string
	// Nodes names the nodes' listeners: "host:port" → "<broker 1>",
	// "<controller 3000>" (another address becomes "<addr>").
	Nodes map[string]string
	// Literals are other texts to replace, as given (e.g. the directory
	// of the files the tools read → "<dir>").
	Literals map[string]string
}

// Normalise returns a tool's output with what differs between any two
// clusters of the same shape masked. placed are topics whose replicas the
// controller placed itself (at random in Kafka): their kafka-topics
// --describe lines have their leaders, replicas, ISRs and ELRs masked.
//
// What it masks, and nothing else:
//   - Literals;
//   - the cluster id → <cluster-id>; listeners (host:port) → their names;
//   - kafka-topics' TopicId → <topic-id>;
//   - log directory paths in kafka-log-dirs' and kafka-reassign-partitions'
//     JSON ("logDir", "log_dirs") → <log-dir>, and the sizes and offset
//     lags of kafka-log-dirs → <size>, <lag> (except 0: an empty
//     partition, a replica in sync);
//   - kafka-metadata-quorum describe --status: LeaderId, LeaderEpoch,
//     HighWatermark, MaxFollowerLag, MaxFollowerLagTimeMs → <n>, the
//     observers' directoryIds → <dir-id>, and the observers sorted by id
//     (Kafka's quorum leader keeps them in a HashMap keyed by id and
//     directory id: their order changes from cluster to cluster);
//   - kafka-metadata-quorum describe --replication: the voters' NodeIds
//     (which voter leads is an election's chance) → <voter>, the
//     observers' DirectoryIds, every LogEndOffset, Lag and timestamp; the
//     observers' rows sorted by id (as in --status); the table's cells
//     re-joined with one tab (Kafka pads the columns to their widest value);
//   - kafka-features' Epoch (the metadata offset of the last change) → <n>.
func (n Names) Normalise(out string, placed ...string) string {
	for text, name := range n.Literals {
		out = strings.ReplaceAll(out, text, name)
	}
	if n.ClusterID != "" {
		out = strings.ReplaceAll(out, n.ClusterID, "<cluster-id>")
	}
	out = addrRE.ReplaceAllStringFunc(out, func(a string) string {
		if name, ok := n.Nodes[a]; ok {
			return name
		}
		return "<addr>"
	})
	for _, r := range rules {
		out = r.re.ReplaceAllString(out, r.with)
	}
	out = logDirsRE.ReplaceAllStringFunc(out, func(s string) string {
		return pathRE.ReplaceAllString(s, `"<log-dir>"`)
	})
	out = observersRE.ReplaceAllStringFunc(out, func(l string) string {
		m := observersRE.FindStringSubmatch(l)
		obs := observerRE.FindAllString(m[2], -1)
		slices.SortStableFunc(obs, func(a, b string) int { return cmp.Compare(observerID(a), observerID(b)) })
		return m[1] + "[" + strings.Join(obs, ", ") + "]"
	})
	lines := strings.Split(out, "\n")
	inTable := false
	for i, l := range lines {
		for _, t := range placed {
			if strings.HasPrefix(l, "\tTopic: "+t+"\t") || strings.HasPrefix(l, "Topic: "+t+"\t") {
				l = placementRE.ReplaceAllString(l, "${1}<placed>")
			}
		}
		if strings.HasPrefix(l, "NodeId\tDirectoryId") {
			inTable = true
		}
		if inTable && strings.Contains(l, "\t") {
			l = replicationRow(l)
		} else {
			inTable = false
		}
		lines[i] = l
	}
	sortObserverRows(lines)
	return strings.Join(lines, "\n")
}

// observersRE is kafka-metadata-quorum describe --status's observers,
// observerRE one of them.
var (
	observersRE = regexp.MustCompile(`(?m)^(CurrentObservers:\s+)\[(.*)\]$`)
	observerRE  = regexp.MustCompile(`\{"id": -?\d+[^}]*\}`)
)

// observerID is an observer's id in --status's list, or a --replication
// row's NodeId.
func observerID(s string) int {
	s = strings.TrimPrefix(s, `{"id": `)
	end := strings.IndexFunc(s, func(r rune) bool { return r != '-' && (r < '0' || r > '9') })
	if end >= 0 {
		s = s[:end]
	}
	id, _ := strconv.Atoi(s)
	return id
}

// sortObserverRows sorts each run of --replication's Observer rows by
// NodeId.
func sortObserverRows(lines []string) {
	isObserver := func(l string) bool { return strings.HasSuffix(l, "\tObserver") }
	for i := 0; i < len(lines); i++ {
		if !isObserver(lines[i]) {
			continue
		}
		j := i
		for j < len(lines) && isObserver(lines[j]) {
			j++
		}
		slices.SortStableFunc(lines[i:j], func(a, b string) int { return cmp.Compare(observerID(a), observerID(b)) })
		i = j
	}
}

// replicationRow normalises a row of kafka-metadata-quorum describe
// --replication: NodeId, DirectoryId, LogEndOffset, Lag,
// LastFetchTimestamp, LastCaughtUpTimestamp, Status.
func replicationRow(l string) string {
	cells := strings.Split(l, "\t")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	if len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1] // the row ends in a tab
	}
	if len(cells) != 7 || cells[0] == "NodeId" {
		return strings.Join(cells, "\t")
	}
	if cells[6] == "Leader" || cells[6] == "Follower" {
		cells[0] = "<voter>"
	}
	if cells[1] != zeroUUID {
		cells[1] = "<dir-id>"
	}
	for i := 2; i <= 5; i++ {
		cells[i] = "<n>"
	}
	return strings.Join(cells, "\t")
}

// zeroUUID is Kafka's Uuid.ZERO_UUID in base64: a voter without a
// directory id (a static quorum's).
const zeroUUID = "AAAAAAAAAAAAAAAAAAAAAA"

// addrRE is a listener's address.
var addrRE = regexp.MustCompile(`(?:localhost|127\.0\.0\.1|\[::1\]):\d+`)

// placementRE is a describe line's leader, replicas, ISR and ELRs.
var placementRE = regexp.MustCompile(`((?:Leader|Replicas|Isr|Elr|LastKnownElr): )[0-9,-]*`)

// logDirsRE is the log directories in kafka-log-dirs' JSON ("logDir") and
// in kafka-reassign-partitions' current assignment ("log_dirs"); pathRE a
// path in them ("any" is the reassignment's "no preference": kept).
var (
	logDirsRE = regexp.MustCompile(`"logDir":"[^"]*"|"log_dirs":\[[^\]]*\]`)
	pathRE    = regexp.MustCompile(`"/[^"]*"`)
)

// rules mask what differs between any two clusters, whatever the tool.
var rules = []struct {
	re   *regexp.Regexp
	with string
}{
	// kafka-topics --describe.
	{regexp.MustCompile(`TopicId: [A-Za-z0-9_-]{22}\b`), "TopicId: <topic-id>"},
	// kafka-log-dirs.
	// An empty partition's size is 0 (an empty segment) and an in-sync
	// replica's lag 0 in any cluster: only other values are masked.
	{regexp.MustCompile(`"size":[1-9]\d*`), `"size":<size>`},
	{regexp.MustCompile(`"offsetLag":[1-9]\d*`), `"offsetLag":<lag>`},
	// kafka-metadata-quorum describe --status.
	{regexp.MustCompile(`(?m)^((?:LeaderId|LeaderEpoch|HighWatermark|MaxFollowerLag|MaxFollowerLagTimeMs):\s+)-?\d+$`), "${1}<n>"},
	{regexp.MustCompile(`"directoryId": "[A-Za-z0-9_-]{22}"`), `"directoryId": "<dir-id>"`},
	// kafka-features describe.
	{regexp.MustCompile(`(\tEpoch: |\s{2}Epoch: )\d+`), "${1}<n>"},
}
