package sandbox

import (
	"errors"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Watches (Kafka's ZooKeeperClient handler registry): a read of a path
// sets a watch exactly when a handler is registered for it, and a fired
// watch becomes the event the handler maps it to. Fired watches arrive
// through the session's event callback (fired), not through the watch
// channels, which are left alone.

type watchKey struct {
	child bool
	path  string
}

type watchHandler func(zk.EventType) event

type watcher struct {
	b        *broker
	push     func(event)
	mu       sync.Mutex
	armed    map[watchKey]bool
	handlers map[watchKey]watchHandler
}

func (w *watcher) register(k watchKey, h watchHandler) {
	w.mu.Lock()
	w.handlers[k] = h
	w.mu.Unlock()
}

func (w *watcher) unregister(k watchKey) {
	w.mu.Lock()
	delete(w.handlers, k)
	w.mu.Unlock()
}

// keepOnly unregisters every handler but the ones keep accepts.
func (w *watcher) keepOnly(keep func(watchKey) bool) {
	w.mu.Lock()
	for k := range w.handlers {
		if !keep(k) {
			delete(w.handlers, k)
		}
	}
	w.mu.Unlock()
}

// shouldArm reports whether a read of k must set a watch and, if so,
// marks it armed (one outstanding watch per path and kind).
func (w *watcher) shouldArm(k watchKey) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.handlers[k] == nil || w.armed[k] {
		return false
	}
	w.armed[k] = true
	return true
}

func (w *watcher) disarm(k watchKey) {
	w.mu.Lock()
	delete(w.armed, k)
	w.mu.Unlock()
}

// fired dispatches a fired watch, on go-zookeeper's receive goroutine and
// so in the server's order (as Kafka's ZooKeeper event thread calls its
// handlers), before the replies that follow the event on the wire: the
// watch is known to be gone before a read issued after a write, and the
// handler's event is queued before anything that follows. Only watches
// this controller set (armed) are dispatched.
func (w *watcher) fired(ev zk.Event) {
	var keys []watchKey
	switch ev.Type {
	case zk.EventNodeCreated, zk.EventNodeDataChanged:
		keys = []watchKey{{false, ev.Path}}
	case zk.EventNodeChildrenChanged:
		keys = []watchKey{{true, ev.Path}}
	case zk.EventNodeDeleted:
		keys = []watchKey{{false, ev.Path}, {true, ev.Path}}
	case zk.EventNotWatching:
		// The session expired or closed: its watches are gone.
		w.mu.Lock()
		delete(w.armed, watchKey{false, ev.Path})
		delete(w.armed, watchKey{true, ev.Path})
		w.mu.Unlock()
		return
	default:
		return
	}
	var events []event
	w.mu.Lock()
	for _, k := range keys {
		if !w.armed[k] {
			continue
		}
		delete(w.armed, k)
		if h := w.handlers[k]; h != nil {
			if e := h(ev.Type); e != nil {
				events = append(events, e)
			}
		}
	}
	w.mu.Unlock()
	for _, e := range events {
		w.push(e)
	}
}

// get reads a node, setting a data watch when a handler is registered.
func (c *controller) get(p string) (data []byte, stat *zk.Stat, err error) {
	k := watchKey{false, p}
	if c.w.shouldArm(k) {
		err = c.b.retry(func() (err error) { data, stat, _, err = c.b.conn.GetW(p); return err })
		if err != nil {
			// No watch is set on a failed read (a missing node included).
			c.w.disarm(k)
			return nil, nil, err
		}
		return data, stat, nil
	}
	err = c.b.retry(func() (err error) { data, stat, err = c.b.conn.Get(p); return err })
	return data, stat, err
}

// exists checks a node, setting an exist/data watch when a handler is
// registered (registerZNodeChangeHandlerAndCheckExistence).
func (c *controller) exists(p string) (ok bool, stat *zk.Stat, err error) {
	k := watchKey{false, p}
	if c.w.shouldArm(k) {
		err = c.b.retry(func() (err error) { ok, stat, _, err = c.b.conn.ExistsW(p); return err })
		if err != nil {
			c.w.disarm(k)
			return false, nil, err
		}
		return ok, stat, nil
	}
	err = c.b.retry(func() (err error) { ok, stat, err = c.b.conn.Exists(p); return err })
	return ok, stat, err
}

// children lists a node's children, setting a child watch when a handler
// is registered. A missing node has no children.
func (c *controller) children(p string) (kids []string, err error) {
	k := watchKey{true, p}
	if c.w.shouldArm(k) {
		err = c.b.retry(func() (err error) { kids, _, _, err = c.b.conn.ChildrenW(p); return err })
		if err != nil {
			c.w.disarm(k)
		}
	} else {
		err = c.b.retry(func() (err error) { kids, _, err = c.b.conn.Children(p); return err })
	}
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return kids, err
}
