package zkserver

import "github.com/ktopo/ktopo/zkserver/internal/proto"

// watchMode is a watch's mode in one table, as in ZooKeeper's WatcherMode.
type watchMode uint8

const (
	watchStandard watchMode = iota
	watchPersistent
	watchRecursive
)

// watchTable is one of ZooKeeper's two WatchManagers (data or child):
// path → connection → mode. A connection appears once per path, and the
// last registration sets the mode, exactly as 3.8's WatcherModeManager does
// (a standard watch registered after a persistent one makes it one-shot).
type watchTable struct {
	paths     map[string]map[*conn]watchMode
	recursive int // number of recursive entries: only then are ancestors walked
}

func newWatchTable() watchTable { return watchTable{paths: map[string]map[*conn]watchMode{}} }

func (w *watchTable) add(path string, c *conn, mode watchMode) {
	m := w.paths[path]
	if m == nil {
		m = map[*conn]watchMode{}
		w.paths[path] = m
	}
	old, had := m[c]
	if had && old == watchRecursive {
		w.recursive--
	}
	if mode == watchRecursive {
		w.recursive++
	}
	m[c] = mode
	c.watchPaths[watchKey{table: w, path: path}] = struct{}{}
}

func (w *watchTable) remove(path string, c *conn) bool {
	m := w.paths[path]
	mode, ok := m[c]
	if !ok {
		return false
	}
	if mode == watchRecursive {
		w.recursive--
	}
	delete(m, c)
	if len(m) == 0 {
		delete(w.paths, path)
	}
	delete(c.watchPaths, watchKey{table: w, path: path})
	return true
}

// contains mirrors 3.8's WatchManager.containsWatcher, including its quirk:
// it only asks whether anyone watches the path, not this connection.
func (w *watchTable) contains(path string) bool { return len(w.paths[path]) > 0 }

// count returns the number of (path, connection) pairs.
func (w *watchTable) count() int {
	n := 0
	for _, m := range w.paths {
		n += len(m)
	}
	return n
}

// trigger fires the watches for an event on path and returns the
// connections notified. Connections in suppress get nothing (delete: the
// child table skips connections the data table already told).
func (w *watchTable) trigger(path string, typ int32, suppress map[*conn]struct{}, out *[]pendingEvent) map[*conn]struct{} {
	if len(w.paths) == 0 {
		return nil
	}
	var fired map[*conn]struct{}
	fire := func(c *conn) {
		if fired == nil {
			fired = map[*conn]struct{}{}
		}
		if _, dup := fired[c]; dup {
			return
		}
		fired[c] = struct{}{}
		if _, skip := suppress[c]; !skip {
			*out = append(*out, pendingEvent{c: c, typ: typ, path: path})
		}
	}
	p := path
	atPath := true
	for {
		if m := w.paths[p]; m != nil {
			for c, mode := range m {
				switch {
				case mode == watchRecursive:
					if typ != proto.EventNodeChildrenChanged {
						fire(c)
					}
				case atPath:
					fire(c)
					if mode == watchStandard {
						delete(m, c)
						delete(c.watchPaths, watchKey{table: w, path: p})
					}
				}
			}
			if len(m) == 0 {
				delete(w.paths, p)
			}
		}
		if w.recursive == 0 || p == "/" {
			break
		}
		p = watchParent(parentPath(p))
		atPath = false
	}
	return fired
}

// watchKey indexes a connection's registrations for cleanup on close.
type watchKey struct {
	table *watchTable
	path  string
}

// pendingEvent is a notification waiting to be queued once a transaction
// has been applied for good.
type pendingEvent struct {
	c    *conn
	typ  int32
	path string
}
