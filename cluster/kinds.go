package cluster

import (
	"strconv"
	"strings"
)

// kindSpec is what the package does with one kind of znode. Adding a kind
// means a PathKind constant and its name (paths.go), ParsePath recognising
// it, and a row here; TestEveryKindIsHandled fails until the row exists.
type kindSpec struct {
	// path is the kind's one fixed path for kinds that stand alone: reset
	// batches that do not mention it delete it.
	path string
	// decode decodes the znode's data for DecodeZNode; nil for kinds whose
	// data Kafka does not define (containers, markers, ACLs, tokens).
	decode func(data []byte) (any, error)
	// apply applies a node event to the model; nil for kinds the model
	// does not follow (KafkaMirrorShape does not watch them).
	apply func(m *Model, info PathInfo, ev *NodeEvent, del bool)
}

// kindSpecs is indexed by PathKind; kinds without a row have none of the above.
var kindSpecs = [kindCount]kindSpec{
	KindBroker: {decode: untyped(DecodeBroker),
		apply: func(m *Model, info PathInfo, ev *NodeEvent, del bool) { m.applyBroker(info.BrokerID, ev, del) }},
	KindTopic: {decode: untyped(DecodeTopicAssignment),
		apply: func(m *Model, info PathInfo, ev *NodeEvent, del bool) { m.applyTopic(info.Topic, ev, del) }},
	KindPartitionState: {decode: untyped(DecodePartitionState),
		apply: func(m *Model, info PathInfo, ev *NodeEvent, del bool) {
			m.applyState(info.Topic, info.Partition, ev, del)
		}},
	KindTopicConfig: {decode: untyped(DecodeEntityConfig),
		apply: func(m *Model, info PathInfo, ev *NodeEvent, del bool) { m.applyConfig(info.Topic, ev, del) }},
	KindDeleteTopic: {
		apply: func(m *Model, info PathInfo, ev *NodeEvent, del bool) { m.applyMarker(info.Topic, ev, del) }},
	KindController:               {path: ControllerPath, decode: untyped(DecodeController), apply: (*Model).applyController},
	KindControllerEpoch:          {path: ControllerEpochPath, decode: untyped(DecodeControllerEpoch), apply: (*Model).applyControllerEpoch},
	KindClusterID:                {path: ClusterIDPath, decode: untyped(DecodeClusterID), apply: (*Model).applyClusterID},
	KindReassignPartitions:       {path: ReassignPartitionsPath, decode: untyped(DecodeReassignPartitions), apply: (*Model).applyReassign},
	KindPreferredReplicaElection: {path: PreferredReplicaElectionPath, decode: untyped(DecodePreferredReplicaElection), apply: (*Model).applyPreferred},
	KindIsrChange: {decode: untyped(DecodeIsrChangeNotification),
		apply: func(m *Model, _ PathInfo, ev *NodeEvent, del bool) { m.applyChild(m.isrNotes, ev.Path, del) }},
	KindLogDirEvent: {decode: untyped(DecodeLogDirEvent),
		apply: func(m *Model, _ PathInfo, ev *NodeEvent, del bool) { m.applyChild(m.logDirEvents, ev.Path, del) }},
	KindEntityConfig:          {decode: untyped(DecodeEntityConfig), apply: (*Model).applyEntityConfig},
	KindConfigChange:          {decode: untyped(DecodeConfigChangeNotification)},
	KindLatestProducerIDBlock: {decode: untyped(DecodeProducerIDBlock)},
	KindFeature:               {decode: untyped(DecodeFeature)},
	KindMigration:             {path: MigrationPath, decode: untyped(DecodeMigration), apply: (*Model).applyMigration},
	KindConsumerOffset:        {decode: decodeConsumerOffset},
}

// untyped adapts a typed decoder to kindSpec.decode.
func untyped[T any](decode func([]byte) (T, error)) func([]byte) (any, error) {
	return func(data []byte) (any, error) { return decode(data) }
}

// decodeConsumerOffset parses a legacy consumer offset (a decimal long).
func decodeConsumerOffset(data []byte) (any, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return int64(0), &DecodeError{What: "consumer offset", Reason: "not a long: " + strconv.Quote(shorten(string(data))), Offset: -1, Raw: data}
	}
	return v, nil
}

// DecodeZNode decodes data according to what path means (ParsePath) and
// returns one of the value types of this package: BrokerRegistration,
// TopicAssignment, PartitionState, ControllerInfo, int (controller epoch),
// ClusterIDInfo, EntityConfig, ConfigChangeNotification,
// ReassignPartitions, PartitionsNotification, LogDirEvent,
// ProducerIDBlock, FeatureZNode, MigrationState, int64 (legacy consumer
// offset). Paths whose data Kafka does not define (containers, deletion
// markers, /brokers/seqid, ACLs, tokens) give (nil, nil). The error is a
// *DecodeError; the value is still returned as far as it was decoded.
func DecodeZNode(path string, data []byte) (any, error) {
	if d := kindSpecs[ParsePath(path).Kind].decode; d != nil {
		return d(data)
	}
	return nil, nil
}
