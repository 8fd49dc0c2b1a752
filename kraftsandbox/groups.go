package kraftsandbox

// groupState is the group coordinator's state: classic consumer groups
// and their committed offsets.
type groupState struct{}
