package kraftsandbox

// The finalized feature levels of a new Kafka 4.4.0 cluster (as
// kafka-storage format sets them with its release's defaults; read from a
// real 4.4.0 cluster, testdata/apiversions-4.4-broker.txt) and the ranges
// its nodes support.

// metadataVersion43 is the first metadata.version with cordons
// (4.3-IV0, feature level 30, KIP-1066).
const metadataVersion43 = 30

// supportedFeature is one feature's range a 4.4.0 node supports.
type supportedFeature struct {
	name     string
	min, max int16
}

var supportedFeatures = []supportedFeature{
	{"group.version", 0, 1},
	{"kraft.version", 0, 1},
	{"metadata.version", 7, 33},
	{"share.version", 0, 2},
	{"streams.version", 0, 1},
	{"transaction.version", 0, 2},
	{"eligible.leader.replicas.version", 0, 1},
}

func defaultFeatures() map[string]int16 {
	return map[string]int16{
		"group.version": 1, "streams.version": 1, "transaction.version": 2,
		"eligible.leader.replicas.version": 1, "share.version": 2, "metadata.version": 33,
	}
}
