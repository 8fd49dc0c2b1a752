package zkwatch

import (
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"
)

// Get returns a node's data and stat.
func (c *Conn) Get(path string) ([]byte, *zk.Stat, error) {
	fp, err := c.full(path)
	if err != nil {
		return nil, nil, err
	}
	if err := c.hasSession("get", path); err != nil {
		return nil, nil, err
	}
	return deadline3(bg, c, "get", path, func() ([]byte, *zk.Stat, error) { return c.raw.Get(fp) })
}

// GetW is Get plus a one-shot data watch. The event's Path is
// chroot-relative.
func (c *Conn) GetW(path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	fp, err := c.full(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := c.hasSession("get", path); err != nil {
		return nil, nil, nil, err
	}
	type r struct {
		data []byte
		stat *zk.Stat
		ch   <-chan zk.Event
	}
	res, err := deadline(bg, c, "get", path, func() (r, error) {
		d, s, ch, err := c.raw.GetW(fp)
		return r{d, s, ch}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return res.data, res.stat, c.stripChan(res.ch), nil
}

// Children returns a node's child names (which need no stripping) and stat.
func (c *Conn) Children(path string) ([]string, *zk.Stat, error) {
	fp, err := c.full(path)
	if err != nil {
		return nil, nil, err
	}
	if err := c.hasSession("children", path); err != nil {
		return nil, nil, err
	}
	return deadline3(bg, c, "children", path, func() ([]string, *zk.Stat, error) { return c.raw.Children(fp) })
}

// ChildrenW is Children plus a one-shot child watch.
func (c *Conn) ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	fp, err := c.full(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := c.hasSession("children", path); err != nil {
		return nil, nil, nil, err
	}
	type r struct {
		kids []string
		stat *zk.Stat
		ch   <-chan zk.Event
	}
	res, err := deadline(bg, c, "children", path, func() (r, error) {
		k, s, ch, err := c.raw.ChildrenW(fp)
		return r{k, s, ch}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return res.kids, res.stat, c.stripChan(res.ch), nil
}

// Sync makes the server the connection uses catch up with the ensemble's
// leader: reads after it see every write the leader had committed (or had
// proposed: the leader answers a sync once those are committed) when the
// sync reached it. It returns the path (chroot-relative).
func (c *Conn) Sync(path string) (string, error) {
	fp, err := c.full(path)
	if err != nil {
		return "", err
	}
	if err := c.hasSession("sync", path); err != nil {
		return "", err
	}
	p, err := deadline(bg, c, "sync", path, func() (string, error) { return c.raw.Sync(fp) })
	if err != nil {
		return "", err
	}
	return c.strip(p), nil
}

// Exists reports whether a node exists, and its stat.
func (c *Conn) Exists(path string) (bool, *zk.Stat, error) {
	fp, err := c.full(path)
	if err != nil {
		return false, nil, err
	}
	if err := c.hasSession("exists", path); err != nil {
		return false, nil, err
	}
	return deadline3(bg, c, "exists", path, func() (bool, *zk.Stat, error) { return c.raw.Exists(fp) })
}

// ExistsW is Exists plus a one-shot watch: a data watch when the node
// exists, an exist watch (fires on creation) when it does not.
func (c *Conn) ExistsW(path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	fp, err := c.full(path)
	if err != nil {
		return false, nil, nil, err
	}
	if err := c.hasSession("exists", path); err != nil {
		return false, nil, nil, err
	}
	type r struct {
		ok   bool
		stat *zk.Stat
		ch   <-chan zk.Event
	}
	res, err := deadline(bg, c, "exists", path, func() (r, error) {
		ok, s, ch, err := c.raw.ExistsW(fp)
		return r{ok, s, ch}, err
	})
	if err != nil {
		return false, nil, nil, err
	}
	return res.ok, res.stat, c.stripChan(res.ch), nil
}

// stripChan passes a watch channel on with the chroot stripped from the
// event path. Without a chroot it is the library's channel itself; with one
// a goroutine forwards the single event and ends when the watch fires or is
// invalidated (which Close guarantees).
func (c *Conn) stripChan(in <-chan zk.Event) <-chan zk.Event {
	if c.chroot == "" || in == nil {
		return in
	}
	out := make(chan zk.Event, 1)
	go func() {
		defer close(out)
		for ev := range in {
			if ev.Path != "" {
				ev.Path = c.strip(ev.Path)
			}
			out <- ev
		}
	}()
	return out
}

// Create creates a node and returns its chroot-relative path (with the
// sequence suffix for sequential nodes).
func (c *Conn) Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	if err := c.writable("create", path); err != nil {
		return "", err
	}
	fp, err := c.full(path)
	if err != nil {
		return "", err
	}
	p, err := deadline(bg, c, "create", path, func() (string, error) { return c.raw.Create(fp, data, flags, acl) })
	if err != nil {
		return "", c.refused("create", path, false, err)
	}
	return c.strip(p), nil
}

// Set writes a node's data if its version matches (-1: any version).
func (c *Conn) Set(path string, data []byte, version int32) (*zk.Stat, error) {
	if err := c.writable("set", path); err != nil {
		return nil, err
	}
	fp, err := c.full(path)
	if err != nil {
		return nil, err
	}
	st, err := deadline(bg, c, "set", path, func() (*zk.Stat, error) { return c.raw.Set(fp, data, version) })
	return st, c.refused("set", path, false, err)
}

// Delete deletes a node if its version matches (-1: any version).
func (c *Conn) Delete(path string, version int32) error {
	if err := c.writable("delete", path); err != nil {
		return err
	}
	fp, err := c.full(path)
	if err != nil {
		return err
	}
	_, err = deadline(bg, c, "delete", path, func() (struct{}, error) { return struct{}{}, c.raw.Delete(fp, version) })
	return c.refused("delete", path, false, err)
}

// Multi runs *zk.CreateRequest, *zk.SetDataRequest, *zk.DeleteRequest and
// *zk.CheckVersionRequest ops atomically. Paths are chroot-relative: the
// requests are copied with the chroot prefixed (the caller's are not
// modified) and created paths in the results are stripped. As with
// *zk.Conn, a failed transaction returns both the per-op results and the
// first op error.
func (c *Conn) Multi(ops ...any) ([]zk.MultiResponse, error) {
	if c.ro {
		return nil, fmt.Errorf("%w: refusing to multi (%s)", ErrReadOnly, describeOps(ops))
	}
	if err := c.hasSession("multi", describeOps(ops)); err != nil {
		return nil, err
	}
	prefixed := make([]any, len(ops))
	first := ""
	for i, op := range ops {
		var p string
		var err error
		switch r := op.(type) {
		case *zk.CreateRequest:
			cp := *r
			cp.Path, err = c.full(r.Path)
			p, prefixed[i] = r.Path, &cp
		case *zk.SetDataRequest:
			cp := *r
			cp.Path, err = c.full(r.Path)
			p, prefixed[i] = r.Path, &cp
		case *zk.DeleteRequest:
			cp := *r
			cp.Path, err = c.full(r.Path)
			p, prefixed[i] = r.Path, &cp
		case *zk.CheckVersionRequest:
			cp := *r
			cp.Path, err = c.full(r.Path)
			p, prefixed[i] = r.Path, &cp
		default:
			return nil, fmt.Errorf("multi: unknown operation type %T", op)
		}
		if err != nil {
			return nil, fmt.Errorf("multi: op %d (%s): %w", i, p, err)
		}
		if i == 0 {
			first = p
		}
	}
	type r struct{ res []zk.MultiResponse }
	res, err := deadline(bg, c, "multi", first, func() (r, error) {
		mr, err := c.raw.Multi(prefixed...)
		return r{mr}, err
	})
	for i := range res.res {
		if res.res[i].String != "" {
			res.res[i].String = c.strip(res.res[i].String)
		}
	}
	return res.res, c.refusedMulti(ops, res.res, err)
}

// describeOps lists the first few ops of a multi for an error message.
func describeOps(ops []any) string {
	var parts []string
	for i, op := range ops {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ops)-3))
			break
		}
		switch r := op.(type) {
		case *zk.CreateRequest:
			parts = append(parts, "create "+r.Path)
		case *zk.SetDataRequest:
			parts = append(parts, "set "+r.Path)
		case *zk.DeleteRequest:
			parts = append(parts, "delete "+r.Path)
		case *zk.CheckVersionRequest:
			parts = append(parts, "check "+r.Path)
		default:
			parts = append(parts, fmt.Sprintf("%T", op))
		}
	}
	return strings.Join(parts, ", ")
}
