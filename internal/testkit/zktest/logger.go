package zktest

import (
	"sync"
	"testing"
)

// Logger is a Printf logger (go-zookeeper's zk.Logger, zkwatch.Options'
// Logger) that writes "zk: ..." lines to a test's log while the test runs
// and drops them once it has ended: go-zookeeper's goroutines can outlive
// the test that started them (a failed Connect closes its connection
// without waiting), and logging to an ended test is a data race.
type Logger struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

// NewLogger returns a Logger for t.
func NewLogger(t testing.TB) *Logger {
	l := &Logger{t: t}
	t.Cleanup(func() {
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	})
	return l
}

// Printf logs a line unless the test has ended.
func (l *Logger) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.t.Logf("zk: "+format, args...)
	}
}
