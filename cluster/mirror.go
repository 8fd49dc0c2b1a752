package cluster

import "slices"

// MirrorContainer is a znode whose children the ZooKeeper mirror lists and
// watches.
type MirrorContainer struct {
	Path string
	// ReadChildren: read (and data-watch) every child; when false only the
	// child names matter and their events may carry no data.
	ReadChildren bool
	// First: while a load is shown as it goes, read its children before
	// the rest (the brokers, without which every leader looks offline).
	First bool
}

// MirrorShape says which znodes the model needs, as plain data for the
// ZooKeeper mirror: the containers to list, the single nodes to read, and
// (through DerivePaths) the nodes named by the data of others.
type MirrorShape struct {
	Containers []MirrorContainer
	Nodes      []string
	// Derive returns extra node paths to read and watch, given a node's
	// path and data (DerivePaths). The mirror calls it for every child of
	// a ReadChildren container each time the child's data is read, and
	// stops watching derived paths no longer returned.
	Derive func(path string, data []byte) []string
}

// KafkaMirrorShape returns the shape of what Model reads. Containers or
// nodes that do not exist yet (a cluster without brokers) must be watched for
// creation.
func KafkaMirrorShape() MirrorShape {
	return MirrorShape{
		Containers: []MirrorContainer{
			{Path: BrokerIDsPath, ReadChildren: true, First: true},
			{Path: BrokerTopicsPath, ReadChildren: true},
			{Path: ConfigTopicsPath, ReadChildren: true},
			{Path: ConfigBrokersPath, ReadChildren: true},
			{Path: DeleteTopicsPath, ReadChildren: false},
			{Path: IsrChangeNotificationPath, ReadChildren: false},
			{Path: LogDirEventNotificationPath, ReadChildren: false},
		},
		Nodes: []string{
			ControllerPath,
			ControllerEpochPath,
			ClusterIDPath,
			ReassignPartitionsPath,
			PreferredReplicaElectionPath,
			MigrationPath,
		},
		Derive: DerivePaths,
	}
}

// DerivePaths returns, for a topic znode (/brokers/topics/<t>), the state
// znode paths of the partitions its assignment names, in partition order
// (also when the JSON is partly malformed: whatever partitions could be
// decoded). For any other path it returns nil.
func DerivePaths(path string, data []byte) []string {
	info := ParsePath(path)
	if info.Kind != KindTopic {
		return nil
	}
	a, _ := DecodeTopicAssignment(data)
	if len(a.Partitions) == 0 {
		return nil
	}
	ids := make([]int, 0, len(a.Partitions))
	for p := range a.Partitions {
		ids = append(ids, p)
	}
	slices.Sort(ids)
	out := make([]string, len(ids))
	for i, p := range ids {
		out[i] = PartitionStatePath(info.Topic, p)
	}
	return out
}
