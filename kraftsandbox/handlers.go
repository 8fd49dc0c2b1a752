package kraftsandbox

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// handlerSets are the handlers of each part of the simulation, registered
// by their files' init functions: key → handler.
var handlerSets []map[int16]handler

func (c *Cluster) allHandlers() map[int16]handler {
	out := map[int16]handler{}
	for _, set := range handlerSets {
		for k, h := range set {
			out[k] = h
		}
	}
	return out
}

// ext is the state of the simulation's parts outside the controller;
// each part adds its own fields here (guarded by Cluster.mu unless the
// field says otherwise).
type ext struct {
	data   dataState
	groups groupState
	repl   replState
	quorum quorumState // h_quorum.go
}

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.ApiVersions.Int16():     (*Cluster).apiVersions,
		kmsg.Metadata.Int16():        (*Cluster).metadata,
		kmsg.DescribeCluster.Int16(): (*Cluster).describeCluster,
	})
}
