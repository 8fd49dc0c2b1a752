package clusterops

// Outcome is what became of a write whose reply was lost
// (Writer.MaybeWritten).
type Outcome struct {
	// Known is false when ctx ended before it could be found out; Err then
	// says why.
	Known bool
	// Applied: the write took effect (for a topic creation: the topic
	// exists exactly as planned).
	Applied bool
	// How it was found out, for the user: "its reply came late", "read
	// back after reconnecting".
	How string
	// Err is the server's late answer to the write, what exists instead
	// of what was planned, or why the outcome is still unknown.
	Err error
}
