package clusterops

import "github.com/ktopo/ktopo/cluster"

// The TUI's operations write each step through one call, so that the
// writer they are given is the one thing that knows how a step reaches
// the cluster (today ZooKeeper; the Kafka protocol on KRaft later).

// StartReassignment is --execute's write of rs on s: its checks and the
// configs the throttle changes read (PlanReassignment), then the one multi
// (ExecuteReassignment). The plan comes back even when the write failed.
func StartReassignment(s *cluster.Snapshot, z ZK, rs []cluster.Reassignment, throttle int64) (*ReassignPlan, error) {
	p, err := PlanReassignment(s, z, rs, throttle)
	if err != nil {
		return nil, err
	}
	return p, ExecuteReassignment(z, p)
}

// RemoveThrottles is what --verify does with the throttles of rs once
// they are done: while another reassignment runs, nothing (kept names the
// throttles that stay: removing the brokers' rates would lift its
// throttle too); else the one multi clearing them (PlanThrottleClear,
// ClearThrottles).
func RemoveThrottles(s *cluster.Snapshot, z ZK, rs []cluster.Reassignment) (cleared *ThrottleClear, kept []string, err error) {
	if _, ongoing := VerifyReassignment(s, rs); ongoing {
		kept, err = ThrottlesLeft(s, z, rs)
		return nil, kept, err
	}
	c, err := PlanThrottleClear(s, z, rs)
	if err == nil {
		err = ClearThrottles(z, c)
	}
	return c, nil, err
}
