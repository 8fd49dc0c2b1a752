package kraftsandbox

// dataState is the data plane's state outside the partitions' logs
// (producer ids): see the handlers in this file.
type dataState struct{}
