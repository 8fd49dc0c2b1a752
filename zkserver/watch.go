package zkserver

import "github.com/ktopo/ktopo/zkserver/internal/proto"

// watchMode is a watch's mode in one table, as in ZooKeeper's WatcherMode.
type watchMode uint8

const (
	watchStandard watchMode = iota
	watchPersistent
	watchRecursive
)

// watchers are the connections watching one path in one table. Nearly
// every watched path has a single watcher (a mirror re-arming its watches),
// so that one is kept inline and a map exists only for more.
type watchers struct {
	one  *conn // the watcher when more is nil (nil: none)
	mode watchMode
	more map[*conn]watchMode
}

func (w *watchers) get(c *conn) (watchMode, bool) {
	if w.more == nil {
		return w.mode, w.one == c && c != nil
	}
	m, ok := w.more[c]
	return m, ok
}

func (w *watchers) set(c *conn, mode watchMode) {
	switch {
	case w.more != nil:
		w.more[c] = mode
	case w.one == nil || w.one == c:
		w.one, w.mode = c, mode
	default:
		w.more = map[*conn]watchMode{w.one: w.mode, c: mode}
		w.one = nil
	}
}

func (w *watchers) del(c *conn) {
	if w.more == nil {
		if w.one == c {
			w.one = nil
		}
		return
	}
	delete(w.more, c)
}

func (w *watchers) len() int {
	if w.more == nil {
		if w.one == nil {
			return 0
		}
		return 1
	}
	return len(w.more)
}

// watchTable is one of ZooKeeper's two WatchManagers (data or child):
// path → connection → mode. A connection appears once per path, and the
// last registration sets the mode, exactly as 3.8's WatcherModeManager does
// (a standard watch registered after a persistent one makes it one-shot).
type watchTable struct {
	paths     map[string]watchers
	recursive int // number of recursive entries: only then are ancestors walked
}

func newWatchTable() watchTable { return watchTable{paths: map[string]watchers{}} }

func (w *watchTable) add(path string, c *conn, mode watchMode) {
	ws := w.paths[path]
	old, had := ws.get(c)
	if had && old == watchRecursive {
		w.recursive--
	}
	if mode == watchRecursive {
		w.recursive++
	}
	ws.set(c, mode)
	w.paths[path] = ws
	if !had {
		c.watchPaths[watchKey{table: w, path: path}] = struct{}{}
	}
}

func (w *watchTable) remove(path string, c *conn) bool {
	ws, ok := w.paths[path]
	if !ok {
		return false
	}
	mode, ok := ws.get(c)
	if !ok {
		return false
	}
	if mode == watchRecursive {
		w.recursive--
	}
	ws.del(c)
	if ws.len() == 0 {
		delete(w.paths, path)
	} else {
		w.paths[path] = ws
	}
	delete(c.watchPaths, watchKey{table: w, path: path})
	return true
}

// contains mirrors 3.8's WatchManager.containsWatcher, including its quirk:
// it only asks whether anyone watches the path, not this connection.
func (w *watchTable) contains(path string) bool {
	ws := w.paths[path]
	return ws.len() > 0
}

// count returns the number of (path, connection) pairs.
func (w *watchTable) count() int {
	n := 0
	for _, ws := range w.paths {
		n += ws.len()
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
	// visit fires one watcher; it reports whether the watch is used up.
	visit := func(c *conn, mode watchMode, atPath bool) bool {
		switch {
		case mode == watchRecursive:
			if typ != proto.EventNodeChildrenChanged {
				fire(c)
			}
		case atPath:
			fire(c)
			return mode == watchStandard
		}
		return false
	}
	p := path
	atPath := true
	for {
		if ws, ok := w.paths[p]; ok {
			if ws.more == nil {
				if visit(ws.one, ws.mode, atPath) {
					delete(ws.one.watchPaths, watchKey{table: w, path: p})
					delete(w.paths, p)
				}
			} else {
				for c, mode := range ws.more {
					if visit(c, mode, atPath) {
						delete(ws.more, c)
						delete(c.watchPaths, watchKey{table: w, path: p})
					}
				}
				if len(ws.more) == 0 {
					delete(w.paths, p)
				}
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
