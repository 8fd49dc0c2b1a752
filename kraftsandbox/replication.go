package kraftsandbox

// replState is the replication simulation's state: reassignments' copies
// and the automatic leader rebalance.
type replState struct{}
