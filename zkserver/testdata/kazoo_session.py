"""A kazoo session run against both servers by TestKazoo: data, watches,
ephemerals, sequential nodes, transactions and a lock. Prints one normalised
line per observation ($P stands for the test's prefix)."""
import sys
import threading

from kazoo.client import KazooClient
from kazoo import exceptions as ke

addr, prefix = sys.argv[1], sys.argv[2]
out = []


def p(*args):
    out.append(" ".join(str(a) for a in args).replace(prefix, "$P"))


def client():
    c = KazooClient(hosts=addr, timeout=10)
    c.start(timeout=15)
    return c


def err(f):
    try:
        return f()
    except ke.KazooException as e:
        return type(e).__name__


zk, zk2 = client(), client()
zk.ensure_path(prefix)
p("create", zk.create(prefix + "/a", b"hello"))
data, st = zk.get(prefix + "/a")
p("get", data, st.version, st.data_length, st.numChildren, st.ephemeralOwner)
p("set", zk.set(prefix + "/a", b"world").version)
p("exists missing", zk.exists(prefix + "/none"))
p("errors", err(lambda: zk.create(prefix + "/a")), err(lambda: zk.get(prefix + "/none")),
  err(lambda: zk.set(prefix + "/a", b"", version=7)), err(lambda: zk.delete(prefix)))
p("null data", zk.get(zk.create(prefix + "/n", None))[0])

# One-shot watch fired by another session.
fired, got = threading.Event(), []


def watcher(event):
    got.append((event.type, event.path))
    fired.set()


zk.get(prefix + "/a", watch=watcher)
zk2.set(prefix + "/a", b"changed")
fired.wait(10)
p("watch", got)

# Recipes built on watches.
seen, changed = [], threading.Condition()


@zk.ChildrenWatch(prefix)
def children(kids):
    with changed:
        seen.append(sorted(kids))
        changed.notify_all()


zk2.create(prefix + "/b")
with changed:
    changed.wait_for(lambda: len(seen) >= 2, timeout=10)
p("children watch", seen[:2])

# Ephemerals disappear with their session.
zk2.create(prefix + "/eph", b"e", ephemeral=True)
p("ephemeral owned by zk2", zk.exists(prefix + "/eph").ephemeralOwner == zk2.client_id[0])
gone = threading.Event()
zk.exists(prefix + "/eph", watch=lambda e: gone.set())
zk2.stop()
zk2.close()
p("ephemeral deleted on close", gone.wait(10), zk.exists(prefix + "/eph"))

# Sequential nodes.
for _ in range(3):
    p("sequence", zk.create(prefix + "/s-", b"", sequence=True))
p("ephemeral sequence", zk.create(prefix + "/es-", b"", sequence=True, ephemeral=True))

# Transactions.
t = zk.transaction()
t.create(prefix + "/t1", b"1")
t.set_data(prefix + "/a", b"txn")
t.check(prefix + "/a", 3)
t.delete(prefix + "/n")
p("transaction", [("stat", r.version, r.dataLength) if hasattr(r, "mzxid") else r for r in t.commit()])
t = zk.transaction()
t.create(prefix + "/t2", b"2")
t.check(prefix + "/a", 99)
t.delete(prefix + "/b")
p("failed transaction", [type(r).__name__ for r in t.commit()], zk.exists(prefix + "/t2"))

# A lock recipe (ephemeral sequential nodes + watches).
lock = zk.Lock(prefix + "/lock", "me")
p("lock", lock.acquire(timeout=10), len(lock.contenders()))
lock.release()

p("children", sorted(zk.get_children(prefix)))
zk.delete(prefix, recursive=True)
p("deleted", zk.exists(prefix))
zk.stop()
zk.close()
print("\n".join(out))
