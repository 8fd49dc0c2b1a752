package zkserver_test

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// Shorthands for request bodies inside multi.
func mCreate(p string, data []byte, flags int32) multiOp {
	return multiOp{proto.OpCreate, createBody(p, data, openACL, flags)}
}
func mCreateOp(op int32, p string, flags int32) multiOp {
	return multiOp{op, createBody(p, []byte("x"), openACL, flags)}
}
func mSet(p string, data []byte, v int32) multiOp {
	return multiOp{proto.OpSetData, func(e *proto.Encoder) { e.String(p); e.Buffer(data); e.Int(v) }}
}
func mDelete(p string, v int32) multiOp {
	return multiOp{proto.OpDelete, func(e *proto.Encoder) { e.String(p); e.Int(v) }}
}
func mCheck(p string, v int32) multiOp {
	return multiOp{proto.OpCheck, func(e *proto.Encoder) { e.String(p); e.Int(v) }}
}

// multiResults renders a multi reply body.
func (h *H) multiResults(f frame) string {
	d := f.dec()
	var out []string
	for {
		typ, done, err := d.Int(), d.Bool(), d.Int()
		if d.Err() != nil {
			out = append(out, "TRUNCATED")
			break
		}
		if done {
			out = append(out, "end")
			break
		}
		switch typ {
		case proto.OpCreate:
			out = append(out, "create:"+d.String())
		case proto.OpCreate2:
			p, s := d.String(), d.Stat()
			out = append(out, "create2:"+p+"("+h.st(s)+")")
		case proto.OpSetData:
			out = append(out, "set("+h.st(d.Stat())+")")
		case proto.OpDelete, proto.OpCheck:
			out = append(out, map[int32]string{2: "delete", 13: "check"}[typ])
		case proto.OpGetData:
			data, s := d.Buffer(), d.Stat()
			out = append(out, "get:"+string(data)+"("+h.st(s)+")")
		case proto.OpGetChildren:
			kids := d.Strings()
			sort.Strings(kids)
			out = append(out, "children:"+strings.Join(kids, ","))
		case proto.OpError:
			out = append(out, "error:"+itoa(d.Int())+"/"+itoa(err))
		default:
			out = append(out, "type"+itoa(typ))
		}
	}
	return h.norm(strings.Join(out, " "))
}

func itoa(v int32) string { return strconv.Itoa(int(v)) }

func mkACL(perms int32, scheme, id string) proto.ACL {
	return proto.ACL{Perms: perms, Scheme: scheme, ID: id}
}

// getData decodes a getData reply.
func getDataReply(f frame) ([]byte, proto.Stat) {
	d := f.dec()
	return d.Buffer(), d.Stat()
}

func children2Reply(f frame) ([]string, proto.Stat) {
	d := f.dec()
	kids := d.Strings()
	sort.Strings(kids)
	return kids, d.Stat()
}

var checks = []check{
	// Handshake & sessions.
	{id: "C1", fn: func(h *H) {
		r := dialRaw(h.t, h.addr)
		resp, ok := r.handshake(connectReq{timeout: 1000})
		h.eq("ok", ok, true)
		h.eq("size", resp.size, 36)
		h.eq("timeout", resp.timeout, int32(4000))
		h.eq("passwdLen", len(resp.passwd), 16)
		h.eq("sidTopByte", resp.sid>>56, int64(1))
		t := r
		h.t.Cleanup(t.closeSession)
	}},
	{id: "C2", fn: func(h *H) {
		r := dialRaw(h.t, h.addr)
		resp, _ := r.handshake(connectReq{timeout: 100000, withRO: true})
		h.eq("size", resp.size, 37)
		h.eq("hasRO", resp.hasRO, true)
		h.eq("readOnly", resp.readOnly, false)
		h.eq("timeout", resp.timeout, int32(40000))
		h.t.Cleanup(r.closeSession)
	}},
	{id: "C3", fn: func(h *H) {
		r := dialRaw(h.t, h.addr)
		resp, _ := r.handshake(connectReq{timeout: 10000, withRO: true, readOnly: true})
		h.eq("readOnly", resp.readOnly, false)
		h.eq("timeout", resp.timeout, int32(10000))
		h.t.Cleanup(r.closeSession)
	}},
	{id: "C14", fn: func(h *H) {
		r := dialRaw(h.t, h.addr)
		resp, _ := r.handshake(connectReq{timeout: 1})
		h.eq("timeout", resp.timeout, int32(4000))
		h.t.Cleanup(r.closeSession)
	}},
	{id: "C5", fn: func(h *H) {
		h.start()
		h.sess()
		h.eq("pingAfterNewSession", h.z(h.c.ping()), "z+1")
	}},
	{id: "C7", fn: func(h *H) {
		h.start()
		r1 := h.sess()
		before := h.c.ping()
		r2 := dialRaw(h.t, h.addr)
		resp, ok := r2.handshake(connectReq{timeout: 30000, sid: r1.sid, passwd: r1.passwd})
		h.eq("reattached", ok && resp.sid == r1.sid && bytes.Equal(resp.passwd, r1.passwd), true)
		h.eq("zxidConsumed", h.c.ping()-before, int64(0))
		closed, _ := r1.closedByServer(5 * time.Second)
		h.eq("oldConnClosed", closed, true) // C7b
		h.eq("newConnWorks", r2.exists(h.P(""), false).err, int32(0))
		r1.sid = 0
		h.t.Cleanup(r2.closeSession)
	}},
	{id: "C9", fn: func(h *H) {
		h.start()
		r1 := h.sess()
		r2 := dialRaw(h.t, h.addr)
		resp, ok := r2.handshake(connectReq{timeout: 30000, sid: r1.sid, passwd: bytes.Repeat([]byte{7}, 16)})
		h.eq("replied", ok, true)
		h.eq("resp", [3]int64{int64(resp.timeout), resp.sid, int64(len(resp.passwd))}, [3]int64{0, 0, 16})
		h.eq("zeroPasswd", bytes.Equal(resp.passwd, make([]byte, 16)), true)
		closed, _ := r2.closedByServer(5 * time.Second)
		h.eq("wrongConnClosed", closed, true)
		closed, _ = r1.closedByServer(5 * time.Second)
		h.eq("currentConnClosed", closed, true) // C9b
		r3 := dialRaw(h.t, h.addr)
		resp, _ = r3.handshake(connectReq{timeout: 30000, sid: r1.sid, passwd: r1.passwd})
		h.eq("sessionSurvives", resp.sid == r1.sid, true)
		r1.sid = 0
		h.t.Cleanup(r3.closeSession)
	}},
	{id: "C10", fn: func(h *H) {
		h.start()
		r := dialRaw(h.t, h.addr)
		_, ok := r.handshake(connectReq{timeout: 30000, lastZxid: h.base + 1000})
		h.eq("replied", ok, false)
	}},
	{id: "C11", fn: func(h *H) {
		h.start()
		r := h.sess()
		sid, pw := r.sid, r.passwd
		f := r.call(proto.OpCloseSession, nil)
		h.eq("hdr", h.hdr(f), "{x z+2 0}")
		h.eq("size", f.size, 16)
		closed, _ := r.closedByServer(5 * time.Second)
		h.eq("closed", closed, true)
		r.sid = 0
		r2 := dialRaw(h.t, h.addr)
		resp, _ := r2.handshake(connectReq{timeout: 30000, sid: sid, passwd: pw})
		h.eq("reattachExpired", resp.sid == 0 && resp.timeout == 0, true) // C12
	}},
	{id: "C4", fn: func(h *H) {
		h.start()
		h.c.sendXid(77, proto.OpPing, nil)
		f := h.c.recv()
		h.eq("hdr", h.hdr(f), "{-2 z+0 0}")
		h.eq("size", f.size, 16)
	}},
	{id: "C13", fn: func(h *H) {
		h.start()
		f := h.c.call(99, nil)
		h.eq("hdr", h.hdr(f), "{x -1 -6}")
		closed, _ := h.c.closedByServer(5 * time.Second)
		h.eq("closed", closed, true)
	}},
	{id: "K22", fn: func(h *H) {
		h.start()
		big := make([]byte, 1048633)
		h.c.send(proto.OpCreate, createBody(h.P("huge"), big[:1048633-60-len(h.P("huge"))], openACL, 0))
		closed, b := h.c.closedByServer(10 * time.Second)
		h.eq("closedWithoutReply", closed && b == nil, true)
		// K23: a frame just under the limit is fine.
		r := h.sess()
		overhead := 4 + 4 + 4 + len(h.P("big")) + 4 + 4 + 27 + 4
		f := r.create(h.P("big"), make([]byte, 1048575-overhead), 0)
		h.eq("bigCreate", f.err, int32(0))
		h.eq("bigLen", int(stat(r.exists(h.P("big"), false)).DataLength), 1048575-overhead)
	}},

	// Initial tree (fresh server).
	// T1 also runs X1 (expiry) afterwards: one dedicated server for both.
	{id: "T1", fresh: true, tick: 500 * time.Millisecond, fn: func(h *H) {
		r := session(h.t, h.addr, 30000)
		h.sid(r.sid)
		h.base = 0
		kids, s := children2Reply(r.children2("/", false))
		h.eq("rootChildren", kids, []string{"zookeeper"})
		h.eq("rootStat", h.st(s), "czxid=0 mzxid=0 pzxid=0 ver=0 cver=-1 aver=0 owner=0 len=0 nc=1 ctime=mtime:true")
		h.eq("rootTimes", [2]int64{s.Ctime, s.Mtime}, [2]int64{0, 0})
		kids, s = children2Reply(r.children2("/zookeeper", false))
		h.eq("zkChildren", kids, []string{"config", "quota"})
		h.eq("zkStat", h.st(s), "czxid=0 mzxid=0 pzxid=0 ver=0 cver=-2 aver=0 owner=0 len=0 nc=2 ctime=mtime:true")
		acl := r.call(proto.OpGetACL, pathOnly("/")).dec().ACLs()
		h.eq("rootACL", acl, []proto.ACL{{Perms: 31, Scheme: "world", ID: "anyone"}})
		f := r.call(proto.OpGetACL, pathOnly("/zookeeper/config"))
		d := f.dec()
		acl, s = d.ACLs(), d.Stat()
		h.eq("configACL", acl, []proto.ACL{{Perms: 1, Scheme: "world", ID: "anyone"}})
		h.eq("configAversion", s.Aversion, int32(-1))
		data, _ := getDataReply(r.getData("/zookeeper/config", false))
		h.eq("configData", data, []byte{})
		data, s = getDataReply(r.getData("/zookeeper/quota", false))
		h.eq("quota", h.st(s)+" data="+string(data), "czxid=0 mzxid=0 pzxid=0 ver=0 cver=0 aver=0 owner=0 len=0 nc=0 ctime=mtime:true data=")
		// D5: special paths cannot be deleted.
		for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"} {
			h.eq("delete "+p, r.delete(p, -1).err, int32(proto.ErrBadArguments))
		}
		// K3b: first sequential child of / after one other root create.
		r.create("/k3b", nil, 0)
		f = r.create("/k3b-", nil, 2)
		h.eq("seqOfRoot", f.dec().String(), "/k3b-0000000001")
		// C16/C17: four-letter words, node count as ZooKeeper counts it.
		for _, w := range []string{"ruok", "conf"} {
			h.eq("4lw "+w, fourLetter(h, w), map[string]string{
				"ruok": "imok", "conf": "conf is not executed because it is not in the whitelist.\n"}[w])
		}
		srvr := fourLetter(h, "srvr")
		h.eq("srvrMode", strings.Contains(srvr, "\nMode: standalone\n"), true)
		h.eq("srvrNodes", strings.Contains(srvr, "\nNode count: 7\n"), true)
		mntr := fourLetter(h, "mntr")
		h.eq("mntrState", strings.Contains(mntr, "zk_server_state\tstandalone\n"), true)
		h.eq("mntrZnodes", strings.Contains(mntr, "zk_znode_count\t7\n"), true)
		expiryCheck(1000)(h)
	}},

	// create.
	{id: "K1", fn: func(h *H) {
		h.start()
		f := h.c.create(h.P("a"), []byte("abc"), 0)
		h.eq("hdr", h.hdr(f), "{x z+1 0}")
		h.eq("body", h.norm(f.dec().String()), "$P/a")
		h.eq("stat", h.st(stat(h.c.exists(h.P("a"), false))), "czxid=z+1 mzxid=z+1 pzxid=z+1 ver=0 cver=0 aver=0 owner=0 len=3 nc=0 ctime=mtime:true")
		// K3: parent.
		h.eq("parent", h.st(stat(h.c.exists(h.P(""), false))), "czxid=z+0 mzxid=z+0 pzxid=z+1 ver=0 cver=1 aver=0 owner=0 len=0 nc=1 ctime=mtime:true")
		f = h.c.create(h.P("a"), nil, 0) // K4
		h.eq("exists", h.hdr(f)+" size="+itoa(int32(f.size)), "{x z+2 -110} size=16")
		h.eq("missingParent", h.c.create(h.P("x/y"), nil, 0).err, int32(proto.ErrNoNode)) // K5
		h.eq("emptyACL", h.c.call(proto.OpCreate, createBody(h.P("e"), nil, []proto.ACL{}, 0)).err, int32(proto.ErrInvalidACL))
		h.eq("nullACL", h.c.call(proto.OpCreate, createBody(h.P("e"), nil, nil, 0)).err, int32(proto.ErrInvalidACL))
		h.eq("root", h.c.create("/", nil, 0).err, int32(proto.ErrNodeExists)) // K7
		h.eq("zxidAfterFailures", h.z(h.c.ping()), "z+6")
	}},
	{id: "K8", fn: func(h *H) {
		h.start()
		cases := []string{h.P("") + "/", h.P("."), "noslash", "/missing-k8/", h.P("emoji-😀"), h.P("x-\uE000"),
			h.P("x-\t"), h.P("x-\x7f"), h.P("bad-\xff"), h.P("ok-é"), h.P("zwsp-\u200b"), h.P("a//b"), h.P(".."), h.P("x-\uFFFE")}
		for _, p := range cases {
			h.note("create %q -> %d", p, h.c.create(p, nil, 0).err)
		}
		h.eq("flags7", h.c.create(h.P("f7"), nil, 7).err, int32(proto.ErrBadArguments)) // K9
		h.eq("flags-1", h.c.create(h.P("f7"), nil, -1).err, int32(proto.ErrBadArguments))
		h.eq("okAccent", h.c.exists(h.P("ok-é"), false).err, int32(0))
	}},
	{id: "K10", fn: func(h *H) {
		h.start()
		h.eq("seq0", h.norm(h.c.create(h.P("n-"), nil, 2).dec().String()), "$P/n-0000000000")
		h.eq("seq1", h.norm(h.c.create(h.P("n-"), nil, 2).dec().String()), "$P/n-0000000001")
		h.eq("seqSlash", h.norm(h.c.create(h.P("")+"/", nil, 2).dec().String()), "$P/0000000002")
		// K11: delete and continue, no reuse; cversion counts creates + deletes.
		h.c.delete(h.P("n-0000000001"), -1)
		h.eq("seq3", h.norm(h.c.create(h.P("n-"), nil, 2).dec().String()), "$P/n-0000000003")
		h.eq("cversion", stat(h.c.exists(h.P(""), false)).Cversion, int32(5))
		// K12: a plain create of the next sequential name blocks the counter.
		h.c.create(h.P("n-0000000005"), nil, 0)
		h.eq("blocked1", h.c.create(h.P("n-"), nil, 2).err, int32(proto.ErrNodeExists))
		h.eq("blocked2", h.c.create(h.P("n-"), nil, 2).err, int32(proto.ErrNodeExists))
		// Ephemeral sequential.
		f := h.c.create(h.P("e-"), nil, 3)
		h.eq("eseq", h.norm(f.dec().String()), "$P/e-0000000005")
	}},
	{id: "K13", fn: func(h *H) {
		h.start()
		h.c.create(h.P("eph"), []byte("e"), 1)
		h.eq("owner", h.st(stat(h.c.exists(h.P("eph"), false))), "czxid=z+1 mzxid=z+1 pzxid=z+1 ver=0 cver=0 aver=0 owner=s1 len=1 nc=0 ctime=mtime:true")
		h.eq("childOfEphemeral", h.c.create(h.P("eph/c"), nil, 0).err, int32(proto.ErrNoChildrenForEphemerals))    // K14
		h.eq("seqChildOfEphemeral", h.c.create(h.P("eph/c"), nil, 2).err, int32(proto.ErrNoChildrenForEphemerals)) // K14
		h.eq("deeper", h.c.create(h.P("eph/c/d"), nil, 0).err, int32(proto.ErrNoNode))                             // K14b
		// K15: create2 → path + Stat.
		f := h.c.call(proto.OpCreate2, createBody(h.P("c2"), []byte("xy"), openACL, 0))
		d := f.dec()
		h.eq("create2", h.norm(d.String())+" "+h.st(d.Stat()), "$P/c2 czxid=z+5 mzxid=z+5 pzxid=z+5 ver=0 cver=0 aver=0 owner=0 len=2 nc=0 ctime=mtime:true")
		// K16: container.
		f = h.c.call(proto.OpCreateContainer, createBody(h.P("cont"), nil, openACL, 4))
		d = f.dec()
		h.eq("container", h.norm(d.String())+" "+h.st(d.Stat()), "$P/cont czxid=z+6 mzxid=z+6 pzxid=z+6 ver=0 cver=0 aver=0 owner=0 len=0 nc=0 ctime=mtime:true")
		// K17: TTL disabled.
		f = h.c.call(proto.OpCreateTTL, func(e *proto.Encoder) {
			createBody(h.P("ttl"), nil, openACL, 5)(e)
			e.Long(60000)
		})
		h.eq("ttl", h.hdr(f), "{x z+7 -6}")
		h.eq("ttlFlagsOnCreate", h.c.create(h.P("ttl"), nil, 5).err, int32(proto.ErrUnimplemented))
		// K18: null vs empty data.
		h.c.create(h.P("null"), nil, 0)
		h.c.create(h.P("empty"), []byte{}, 0)
		dn, sn := getDataReply(h.c.getData(h.P("null"), false))
		de, se := getDataReply(h.c.getData(h.P("empty"), false))
		h.eq("null", [2]any{dn == nil, sn.DataLength}, [2]any{true, int32(0)})
		h.eq("empty", [2]any{de != nil && len(de) == 0, se.DataLength}, [2]any{true, int32(0)})
		// K19, K20: ACL schemes.
		h.eq("authWithoutAuth", h.c.call(proto.OpCreate, createBody(h.P("acl"), nil, []proto.ACL{mkACL(31, "auth", "")}, 0)).err, int32(proto.ErrInvalidACL))
		h.eq("unknownScheme", h.c.call(proto.OpCreate, createBody(h.P("acl"), nil, []proto.ACL{mkACL(31, "nope", "x")}, 0)).err, int32(proto.ErrInvalidACL))
		h.eq("worldNotAnyone", h.c.call(proto.OpCreate, createBody(h.P("acl"), nil, []proto.ACL{mkACL(31, "world", "x")}, 0)).err, int32(proto.ErrInvalidACL))
		h.eq("badDigest", h.c.call(proto.OpCreate, createBody(h.P("acl"), nil, []proto.ACL{mkACL(31, "digest", "alice")}, 0)).err, int32(proto.ErrInvalidACL))
		h.eq("ipACL", h.c.call(proto.OpCreate, createBody(h.P("ip"), nil, []proto.ACL{mkACL(31, "ip", "127.0.0.0/8")}, 0)).err, int32(0))
		h.eq("ipACLreadable", h.c.getData(h.P("ip"), false).err, int32(0))
		h.eq("dupACL", len(h.c.call(proto.OpCreate, createBody(h.P("dup"), nil, append(openACL, openACL...), 0)).body) > 0, true)
		h.eq("dupACLstored", h.c.call(proto.OpGetACL, pathOnly(h.P("dup"))).dec().ACLs(), openACL)
		h.note("zxid=%s", h.z(h.c.ping()))
	}},
	{id: "K21", fn: func(h *H) {
		h.start()
		p := "/zookeeper/" + h.prefix[1:]
		h.eq("underZookeeper", h.c.create(p, nil, 0).err, int32(0))
		h.c.delete(p, -1)
	}},

	// setData / setACL / delete.
	{id: "S1", fn: func(h *H) {
		h.start()
		h.c.create(h.P("s"), []byte("1"), 0)
		time.Sleep(5 * time.Millisecond) // mtime must move
		f := h.c.setData(h.P("s"), []byte("22"), 0)
		s := stat(f)
		h.eq("hdr", h.hdr(f), "{x z+2 0}")
		h.eq("stat", h.st(s), "czxid=z+1 mzxid=z+2 pzxid=z+1 ver=1 cver=0 aver=0 owner=0 len=2 nc=0 ctime=mtime:false")
		h.eq("mtimeAdvanced", s.Mtime > s.Ctime, true)
		h.eq("parentUnchanged", h.st(stat(h.c.exists(h.P(""), false))), "czxid=z+0 mzxid=z+0 pzxid=z+1 ver=0 cver=1 aver=0 owner=0 len=0 nc=1 ctime=mtime:true")
		h.eq("stale", h.c.setData(h.P("s"), nil, 0).err, int32(proto.ErrBadVersion))   // S2
		h.eq("same", stat(h.c.setData(h.P("s"), []byte("22"), -1)).Version, int32(2))  // S3
		h.eq("missing", h.c.setData(h.P("none"), nil, -1).err, int32(proto.ErrNoNode)) // S4
		h.eq("config", h.c.setData("/zookeeper/config", nil, -1).err, int32(proto.ErrNoAuth))
		h.eq("trailing", h.c.setData(h.P("s")+"/", nil, -1).err, int32(proto.ErrBadArguments)) // S6
		h.eq("setNull", getDataNil(h, h.c.setData(h.P("s"), nil, -1)), true)
		h.note("zxid=%s", h.z(h.c.ping()))
	}},
	{id: "A1", fn: func(h *H) {
		h.start()
		h.c.create(h.P("a"), []byte("1"), 0)
		acl := []proto.ACL{{Perms: 1, Scheme: "world", ID: "anyone"}}
		f := h.c.call(proto.OpSetACL, func(e *proto.Encoder) { e.String(h.P("a")); e.ACLs(acl); e.Int(0) })
		h.eq("stat", h.hdr(f)+" "+h.st(stat(f)), "{x z+2 0} czxid=z+1 mzxid=z+1 pzxid=z+1 ver=0 cver=0 aver=1 owner=0 len=1 nc=0 ctime=mtime:true")
		f = h.c.call(proto.OpSetACL, func(e *proto.Encoder) { e.String(h.P("a")); e.ACLs(acl); e.Int(0) })
		h.eq("stale", h.hdr(f), "{x z+3 -102}") // now READ only: NoAuth comes before the version
		h.c.create(h.P("b"), nil, 0)
		f = h.c.call(proto.OpSetACL, func(e *proto.Encoder) { e.String(h.P("b")); e.ACLs(acl); e.Int(3) })
		h.eq("staleVersion", f.err, int32(proto.ErrBadVersion)) // A2
		f = h.c.call(proto.OpSetACL, func(e *proto.Encoder) { e.String(h.P("b")); e.ACLs(nil); e.Int(-1) })
		h.eq("nullACL", f.err, int32(proto.ErrInvalidACL)) // A3
		f = h.c.call(proto.OpSetACL, func(e *proto.Encoder) { e.String(h.P("b")); e.ACLs([]proto.ACL{}); e.Int(-1) })
		h.eq("emptyACL", f.err, int32(proto.ErrInvalidACL))
		f = h.c.call(proto.OpSetACL, func(e *proto.Encoder) { e.String(h.P("none")); e.ACLs(acl); e.Int(-1) })
		h.eq("missing", f.err, int32(proto.ErrNoNode))
		h.eq("readOnlyNode", h.c.setData(h.P("a"), nil, -1).err, int32(proto.ErrNoAuth))
	}},
	{id: "D1", fn: func(h *H) {
		h.start()
		h.c.create(h.P("d"), nil, 0)
		h.c.create(h.P("d/c"), nil, 0)
		h.eq("wrongVersion", h.c.delete(h.P("d"), 5).err, int32(proto.ErrBadVersion))
		h.eq("notEmpty", h.c.delete(h.P("d"), -1).err, int32(proto.ErrNotEmpty)) // D2
		f := h.c.delete(h.P("d/c"), 0)
		h.eq("delete", h.hdr(f)+" size="+itoa(int32(f.size)), "{x z+5 0} size=16") // D3
		h.eq("parent", h.st(stat(h.c.exists(h.P("d"), false))), "czxid=z+1 mzxid=z+1 pzxid=z+5 ver=0 cver=2 aver=0 owner=0 len=0 nc=0 ctime=mtime:true")
		h.eq("missing", h.c.delete(h.P("d/c"), -1).err, int32(proto.ErrNoNode)) // D4
		h.eq("missingParent", h.c.delete(h.P("x/y"), -1).err, int32(proto.ErrNoNode))
		h.eq("trailing", h.c.delete(h.P("d")+"/", -1).err, int32(proto.ErrNoNode))
		h.eq("noslash", h.c.delete("d", -1).err, int32(proto.ErrBadArguments))
	}},

	// Reads.
	{id: "R1", fn: func(h *H) {
		h.start()
		f := h.c.getData(h.P("none"), false)
		h.eq("getData", h.hdr(f)+" size="+itoa(int32(f.size)), "{x z+0 -101} size=16")
		f = h.c.exists(h.P("none"), false)
		h.eq("exists", h.hdr(f)+" size="+itoa(int32(f.size)), "{x z+0 -101} size=16") // R2
		h.c.create(h.P("r"), nil, 0)
		h.c.create(h.P("r/b"), nil, 0)
		h.c.create(h.P("r/a"), nil, 0)
		h.c.create(h.P("r/a/x"), nil, 0)
		f = h.c.call(proto.OpGetChildren, pathWatch(h.P("r"), false)) // R3
		kids := f.dec().Strings()
		sort.Strings(kids)
		h.eq("children", kids, []string{"a", "b"})
		h.eq("childrenSize", f.size, 16+4+5+5)
		h.eq("sync", h.norm(h.c.call(proto.OpSync, pathOnly(h.P("r"))).dec().String()), "$P/r")          // R4
		h.eq("syncMissing", h.norm(h.c.call(proto.OpSync, pathOnly(h.P("zz"))).dec().String()), "$P/zz") // R4b
		h.eq("allChildren", h.c.call(proto.OpGetAllChildrenNumber, pathOnly(h.P("r"))).dec().Int(), int32(3))
		h.eq("allChildrenMissing", h.c.call(proto.OpGetAllChildrenNumber, pathOnly(h.P("zz"))).err, int32(proto.ErrNoNode))
		h.eq("trailingSlashRead", h.c.getData(h.P("r")+"/", false).err, int32(proto.ErrNoNode))
		h.eq("emptyPathIsRoot", h.c.exists("", false).err, int32(0))
		h.eq("nulInExists", h.c.exists(h.P("a\x00b"), false).err, int32(proto.ErrBadArguments))
		before := h.c.ping()
		h.c.getData(h.P("r"), true)
		h.c.children2(h.P("r"), true)
		h.c.call(proto.OpGetACL, pathOnly(h.P("r")))
		h.eq("readsKeepZxid", h.c.ping()-before, int64(0)) // R8
	}},
	{id: "R6", fn: func(h *H) {
		h.start()
		h.c.create(h.P("e1"), nil, 1)
		h.c.create(h.P("e2"), nil, 1)
		h.c.create(h.P("x"), nil, 0)
		h.c.create(h.P("x/e3"), nil, 1)
		other := h.sess()
		other.create(h.P("o1"), nil, 1)
		get := func(r *raw, prefix string) []string {
			l := r.call(proto.OpGetEphemerals, pathOnly(prefix)).dec().Strings()
			sort.Strings(l)
			for i := range l {
				l[i] = h.norm(l[i])
			}
			return l
		}
		h.eq("all", get(h.c, h.P("")), []string{"$P/e1", "$P/e2", "$P/x/e3"})
		h.eq("prefix", get(h.c, h.P("e")), []string{"$P/e1", "$P/e2"})
		h.eq("other", get(other, "/"), []string{"$P/o1"})
		// R7: whoAmI.
		f := h.c.call(proto.OpWhoAmI, nil)
		d := f.dec()
		n := d.Int()
		var ids []string
		for i := int32(0); i < n; i++ {
			ids = append(ids, d.String()+":"+d.String())
		}
		h.eq("whoami", ids, []string{"ip:127.0.0.1"})
	}},

	// Watches.
	{id: "W1", fn: func(h *H) {
		h.start()
		h.c.create(h.P("w"), []byte("1"), 0)
		other := h.sess()
		h.c.getData(h.P("w"), true)
		other.setData(h.P("w"), []byte("2"), -1)
		f, _ := h.c.next()
		h.eq("notification", h.hdr(f)+" size="+itoa(int32(f.size)), "{-1 -1 0} size="+itoa(int32(16+12+len(h.P("w")))))
		d := f.dec()
		h.eq("event", h.norm(itoa(d.Int())+" "+itoa(d.Int())+" "+d.String()), "3 3 $P/w")
		other.setData(h.P("w"), []byte("3"), -1) // W2: one-shot
		h.eq("oneShot", h.evs(h.c.waitEvents(1, 300*time.Millisecond)), "[]")
		// W3: own write, event before reply.
		h.c.getData(h.P("w"), true)
		xid := h.c.send(proto.OpSetData, func(e *proto.Encoder) { e.String(h.P("w")); e.Buffer(nil); e.Int(-1) })
		f1, _ := h.c.next()
		f2, _ := h.c.next()
		h.eq("order", [2]int32{f1.xid, f2.xid}, [2]int32{-1, xid})
	}},
	{id: "W4", fn: func(h *H) {
		h.start()
		h.c.exists(h.P("n"), true)   // watch on missing node
		h.c.getData(h.P("m"), true)  // W5: not registered
		h.c.children2(h.P(""), true) // parent child watch
		h.eq("addChildWatchOnMissing", h.c.children2(h.P("zz"), true).err, int32(proto.ErrNoNode))
		other := h.sess()
		other.create(h.P("n"), nil, 0)
		other.create(h.P("m"), nil, 0)
		h.eq("events", h.evs(h.c.waitEvents(2, 10*time.Second)), "[1:3:$P/n 4:3:$P]")
		h.eq("noMore", h.evs(h.c.waitEvents(1, 300*time.Millisecond)), "[]")
		// W6: exists watch on existing node + setData.
		h.c.exists(h.P("n"), true)
		other.setData(h.P("n"), nil, -1)
		h.eq("W6", h.evs(h.c.waitEvents(1, 10*time.Second)), "[3:3:$P/n]")
		// W7: setData on a child does not fire the parent's child watch.
		h.c.children2(h.P(""), true)
		other.setData(h.P("n"), nil, -1)
		h.eq("W7", h.evs(h.c.waitEvents(1, 300*time.Millisecond)), "[]")
		// W8/W9: child create/delete.
		other.delete(h.P("m"), -1)
		h.eq("W9", h.evs(h.c.waitEvents(1, 10*time.Second)), "[4:3:$P]")
		// W10: delete with data+exists+child watches → one NodeDeleted, then parent.
		h.c.getData(h.P("n"), true)
		h.c.exists(h.P("n"), true)
		h.c.children2(h.P("n"), true)
		h.c.children2(h.P(""), true)
		other.delete(h.P("n"), -1)
		h.eq("W10", h.evs(h.c.waitEvents(2, 10*time.Second)), "[2:3:$P/n 4:3:$P]")
		h.eq("W10noMore", h.evs(h.c.waitEvents(1, 300*time.Millisecond)), "[]")
		// W11: child watch only on a deleted node.
		other.create(h.P("k"), nil, 0)
		h.c.children2(h.P("k"), true)
		other.delete(h.P("k"), -1)
		h.eq("W11", h.evs(h.c.waitEvents(1, 10*time.Second)), "[2:3:$P/k]")
		// W12: duplicate registrations → one event.
		other.create(h.P("k"), nil, 0)
		h.c.getData(h.P("k"), true)
		h.c.getData(h.P("k"), true)
		h.c.exists(h.P("k"), true)
		other.setData(h.P("k"), nil, -1)
		h.eq("W12", h.evs(h.expectEvents(h.c, 1)), "[3:3:$P/k]")
		// W13/W14: setACL and failed writes fire nothing.
		h.c.getData(h.P("k"), true)
		other.call(proto.OpSetACL, func(e *proto.Encoder) { e.String(h.P("k")); e.ACLs(openACL); e.Int(-1) })
		other.setData(h.P("k"), nil, 99)
		other.create(h.P("k"), nil, 0)
		other.delete(h.P("k"), 99)
		h.eq("W13", h.evs(h.c.waitEvents(1, 300*time.Millisecond)), "[]")
	}},
	{id: "W15", fn: func(h *H) {
		h.start()
		h.c.children2("/", true)
		other := h.sess()
		other.create(h.P("x"), nil, 0) // not a child of /
		other.create(h.prefix+"-root", nil, 0)
		h.eq("rootEvent", h.evs(h.c.waitEvents(1, 10*time.Second)), "[4:3:/]")
		other.delete(h.prefix+"-root", -1)
	}},
	{id: "W16", fn: func(h *H) {
		h.start()
		other := h.sess()
		other.create(h.P("eph"), nil, 1)
		h.c.exists(h.P("eph"), true)
		h.c.children2(h.P(""), true)
		f := other.call(proto.OpCloseSession, nil)
		other.sid = 0
		h.eq("closeHdr", h.hdr(f), "{x z+3 0}")
		h.eq("events", h.evs(h.c.waitEvents(2, 10*time.Second)), "[2:3:$P/eph 4:3:$P]")
		h.eq("parent", h.st(stat(h.c.exists(h.P(""), false))), "czxid=z+0 mzxid=z+0 pzxid=z+3 ver=0 cver=2 aver=0 owner=0 len=0 nc=0 ctime=mtime:true")
	}},
	{id: "W17", fn: func(h *H) {
		h.start()
		h.c.children2(h.P(""), true)
		h.c.exists(h.P("a"), true)
		other := h.sess()
		f := other.call(proto.OpMulti, multiBody(mCreate(h.P("a"), nil, 0), mCreate(h.P("b"), nil, 0)))
		h.eq("multi", f.err, int32(0))
		h.eq("events", h.evs(h.expectEvents(h.c, 2)), "[1:3:$P/a 4:3:$P]")
	}},
	{id: "W18", fn: func(h *H) {
		h.start()
		h.c.create(h.P("d"), []byte("1"), 0)
		h.c.create(h.P("old"), []byte("1"), 0)
		h.c.create(h.P("c"), nil, 0)
		h.c.create(h.P("e"), nil, 0)
		rel := h.c.ping()
		h.c.setData(h.P("d"), []byte("2"), -1)
		h.c.create(h.P("c/x"), nil, 0)
		r := h.sess()
		f := r.call(proto.OpSetWatches, func(e *proto.Encoder) {
			e.Long(rel)
			e.Strings([]string{h.P("d"), h.P("gone"), h.P("old")})
			e.Strings([]string{h.P("e"), h.P("notyet")})
			e.Strings([]string{h.P("c"), h.P("gone2"), h.P("e")})
		})
		h.eq("reply", h.hdr(f), "{x z+7 0}")
		h.eq("immediate", h.evs(r.takeEvents()), "[3:3:$P/d 2:3:$P/gone 1:3:$P/e 4:3:$P/c 2:3:$P/gone2]")
		// W19: registered ones fire later.
		h.c.setData(h.P("old"), nil, -1)
		h.c.create(h.P("notyet"), nil, 0)
		h.c.create(h.P("e/k"), nil, 0)
		h.eq("later", h.evs(r.waitEvents(3, 10*time.Second)), "[3:3:$P/old 1:3:$P/notyet 4:3:$P/e]")
	}},
	{id: "W20", fn: func(h *H) {
		h.start()
		h.c.create(h.P("a"), nil, 0)
		chk := func(op int32, p string, typ int32) int32 {
			return h.c.call(op, func(e *proto.Encoder) { e.String(p); e.Int(typ) }).err
		}
		h.eq("noWatch", chk(proto.OpCheckWatches, h.P("a"), 3), int32(proto.ErrNoWatcher))
		h.c.getData(h.P("a"), true)
		h.eq("data", chk(proto.OpCheckWatches, h.P("a"), 2), int32(0))
		h.eq("childNone", chk(proto.OpCheckWatches, h.P("a"), 1), int32(proto.ErrNoWatcher))
		h.eq("any", chk(proto.OpCheckWatches, h.P("a"), 3), int32(0))
		h.eq("removeChild", chk(proto.OpRemoveWatches, h.P("a"), 1), int32(proto.ErrNoWatcher))
		h.eq("removeData", chk(proto.OpRemoveWatches, h.P("a"), 2), int32(0))
		h.eq("gone", chk(proto.OpCheckWatches, h.P("a"), 2), int32(proto.ErrNoWatcher))
		h.eq("badType", chk(proto.OpCheckWatches, h.P("a"), 7), int32(proto.ErrMarshalling))
		h.c.setData(h.P("a"), nil, -1)
		h.eq("noEvent", h.evs(h.c.waitEvents(1, 300*time.Millisecond)), "[]") // W21
		// 3.8 quirk: another connection's watch on the path counts.
		other := h.sess()
		other.getData(h.P("a"), true)
		h.eq("othersWatch", chk(proto.OpCheckWatches, h.P("a"), 2), int32(0))
		h.eq("othersWatchRemove", chk(proto.OpRemoveWatches, h.P("a"), 2), int32(proto.ErrNoWatcher))
	}},
	{id: "W22", fn: func(h *H) {
		h.start()
		add := func(p string, mode int32) frame {
			return h.c.call(proto.OpAddWatch, func(e *proto.Encoder) { e.String(p); e.Int(mode) })
		}
		f := add(h.P("p"), 0)
		h.eq("reply", h.hdr(f)+" body="+itoa(f.dec().Int())+" size="+itoa(int32(f.size)), "{x z+0 0} body=0 size=20")
		other := h.sess()
		other.create(h.P("p"), nil, 0)
		other.setData(h.P("p"), nil, -1)
		other.create(h.P("p/c"), nil, 0)
		other.setData(h.P("p/c"), nil, -1)
		other.delete(h.P("p/c"), -1)
		other.delete(h.P("p"), -1)
		other.create(h.P("p"), nil, 0)
		h.eq("persistent", h.evs(h.expectEvents(h.c, 6)), "[1:3:$P/p 3:3:$P/p 4:3:$P/p 4:3:$P/p 2:3:$P/p 1:3:$P/p]")
		// W23: recursive.
		add(h.P("r"), 1)
		other.create(h.P("r"), nil, 0)
		other.create(h.P("r/c"), nil, 0)
		other.create(h.P("r/c/d"), []byte("x"), 0)
		other.setData(h.P("r/c/d"), nil, -1)
		other.delete(h.P("r/c/d"), -1)
		h.eq("recursive", h.evs(h.expectEvents(h.c, 5)), "[1:3:$P/r 1:3:$P/r/c 1:3:$P/r/c/d 3:3:$P/r/c/d 2:3:$P/r/c/d]")
		h.eq("check", h.c.call(proto.OpCheckWatches, func(e *proto.Encoder) { e.String(h.P("r")); e.Int(2) }).err, int32(0))
		h.eq("badMode", add(h.P("x"), 5).err, int32(proto.ErrMarshalling))
	}},

	// multi.
	{id: "M1", fn: func(h *H) {
		h.start()
		h.c.create(h.P("v"), []byte("1"), 0)
		time.Sleep(5 * time.Millisecond) // so mtime moves
		f := h.c.call(proto.OpMulti, multiBody(
			mCreate(h.P("a"), []byte("x"), 0),
			mCreateOp(proto.OpCreate2, h.P("a/b"), 0),
			mCreate(h.P("s-"), nil, 2),
			mCreate(h.P("s-"), nil, 2),
			mSet(h.P("v"), []byte("2"), 0),
			mCheck(h.P("v"), 1),
			mDelete(h.P("a/b"), 0),
		))
		h.eq("hdr", h.hdr(f), "{x z+2 0}")
		h.eq("results", h.multiResults(f), "create:$P/a create:$P/a/b create:$P/s-0000000002 create:$P/s-0000000003 set(czxid=z+1 mzxid=z+2 pzxid=z+1 ver=1 cver=0 aver=0 owner=0 len=1 nc=0 ctime=mtime:false) check delete end")
		h.eq("applied", h.st(stat(h.c.exists(h.P("a"), false))), "czxid=z+2 mzxid=z+2 pzxid=z+2 ver=0 cver=2 aver=0 owner=0 len=1 nc=0 ctime=mtime:true")
		// M2: failure.
		h.c.children2(h.P(""), true)
		f = h.c.call(proto.OpMulti, multiBody(mCreate(h.P("n1"), nil, 0), mCheck(h.P("v"), 7), mCreate(h.P("n2"), nil, 0), mDelete(h.P("zz"), -1)))
		h.eq("failHdr", h.hdr(f), "{x z+3 0}")
		h.eq("failResults", h.multiResults(f), "error:0/0 error:-103/-103 error:-2/-2 error:-2/-2 end")
		h.eq("notApplied", h.c.exists(h.P("n1"), false).err, int32(proto.ErrNoNode))
		h.eq("noWatches", h.evs(h.c.takeEvents()), "[]") // M2b
		// Rollback restores sequence counters and stats.
		h.c.call(proto.OpMulti, multiBody(mCreate(h.P("s-"), nil, 2), mCheck(h.P("zz"), -1)))
		h.eq("seqAfterRollback", h.norm(h.c.create(h.P("s-"), nil, 2).dec().String()), "$P/s-0000000004")
		// M3: empty multi.
		f = h.c.call(proto.OpMulti, multiBody())
		h.eq("empty", h.hdr(f)+" size="+itoa(int32(f.size))+" "+h.multiResults(f), "{x z+6 0} size=25 end")
		// M5: read op inside multi.
		f = h.c.call(proto.OpMulti, multiBody(multiOp{proto.OpGetData, pathWatch(h.P("v"), false)}))
		h.eq("readInMulti", h.hdr(f), "{x z+7 -5}")
		h.eq("connKept", h.c.exists(h.P("v"), false).err, int32(0))
		// M6: container inside multi → type 15 result.
		f = h.c.call(proto.OpMulti, multiBody(mCreate(h.P("cont"), nil, 4), mCreateOp(proto.OpCreate2, h.P("c2"), 0)))
		h.eq("container", h.multiResults(f), "create2:$P/cont(czxid=z+8 mzxid=z+8 pzxid=z+8 ver=0 cver=0 aver=0 owner=0 len=0 nc=0 ctime=mtime:true) create:$P/c2 end")
		f = h.c.call(proto.OpMulti, multiBody(mCreate(h.P("ttl"), nil, 5)))
		h.eq("ttlFlags", h.hdr(f), "{x z+9 -5}")
		ttl := multiOp{proto.OpCreateTTL, func(e *proto.Encoder) { createBody(h.P("ttl"), nil, openACL, 5)(e); e.Long(1000) }}
		f = h.c.call(proto.OpMulti, multiBody(ttl))
		h.eq("ttl", h.hdr(f)+" "+h.multiResults(f), "{x z+10 0} error:-6/-6 end")
		noTTL := multiOp{proto.OpCreateTTL, func(e *proto.Encoder) { createBody(h.P("nottl"), nil, openACL, 0)(e); e.Long(1000) }}
		f = h.c.call(proto.OpMulti, multiBody(noTTL))
		h.eq("createTTLop", h.hdr(f)+" "+h.multiResults(f), "{x z+11 0} create:$P/nottl end")
		f = h.c.call(proto.OpMulti, multiBody(mCreate(h.P("eph"), nil, 1), mCreate(h.P("eph/x"), nil, 0)))
		h.eq("ephParent", h.multiResults(f), "error:0/0 error:-108/-108 end")
		h.note("zxid=%s", h.z(h.c.ping()))
		// Deleting and re-creating in one multi.
		f = h.c.call(proto.OpMulti, multiBody(mDelete(h.P("c2"), -1), mCreate(h.P("c2"), []byte("n"), 0), mDelete(h.P("cont"), -1), mCheck(h.P("cont"), -1)))
		h.eq("deleteThenCheck", h.multiResults(f), "error:0/0 error:0/0 error:0/0 error:-101/-101 end")
		h.eq("c2Intact", h.st(stat(h.c.exists(h.P("c2"), false))), "czxid=z+8 mzxid=z+8 pzxid=z+8 ver=0 cver=0 aver=0 owner=0 len=1 nc=0 ctime=mtime:true")
	}},
	// M8: a failed multi that deleted ephemerals gives them back to their
	// owners: they are still listed as the owners' ephemerals and go when
	// the owners' sessions close.
	{id: "M8", fn: func(h *H) {
		h.start()
		other := h.sess()
		other.create(h.P("theirs"), nil, 1)
		h.c.create(h.P("mine"), nil, 1)
		f := h.c.call(proto.OpMulti, multiBody(mDelete(h.P("theirs"), -1), mDelete(h.P("mine"), -1), mCheck(h.P("zz"), -1)))
		h.eq("failed", h.multiResults(f), "error:0/0 error:0/0 error:-101/-101 end")
		h.eq("theirsOwner", h.st(stat(h.c.exists(h.P("theirs"), false))), "czxid=z+2 mzxid=z+2 pzxid=z+2 ver=0 cver=0 aver=0 owner=s2 len=0 nc=0 ctime=mtime:true")
		h.eq("mineOwner", h.st(stat(h.c.exists(h.P("mine"), false))), "czxid=z+3 mzxid=z+3 pzxid=z+3 ver=0 cver=0 aver=0 owner=s1 len=0 nc=0 ctime=mtime:true")
		eph := func(r *raw) string {
			l := r.call(proto.OpGetEphemerals, pathOnly(h.P(""))).dec().Strings()
			sort.Strings(l)
			return h.norm(strings.Join(l, ","))
		}
		h.eq("theirsListed", eph(other), "$P/theirs")
		h.eq("mineListed", eph(h.c), "$P/mine")
		other.closeSession()
		h.eq("theirsGone", h.c.exists(h.P("theirs"), false).err, int32(proto.ErrNoNode))
		h.eq("mineKept", h.c.exists(h.P("mine"), false).err, int32(0))
		third := h.sess()
		h.c.closeSession()
		h.eq("mineGone", third.exists(h.P("mine"), false).err, int32(proto.ErrNoNode))
		h.eq("prefixEmpty", third.children2(h.P(""), false).dec().Strings(), []string{})
	}},
	{id: "M4", fn: func(h *H) {
		h.start()
		h.c.create(h.P("a"), []byte("A"), 0)
		h.c.create(h.P("a/x"), nil, 0)
		f := h.c.call(proto.OpMultiRead, multiBody(
			multiOp{proto.OpGetData, pathWatch(h.P("a"), false)},
			multiOp{proto.OpGetChildren, pathWatch(h.P("a"), false)},
			multiOp{proto.OpGetData, pathWatch(h.P("none"), false)},
		))
		h.eq("hdr", h.hdr(f), "{x z+2 0}")
		h.eq("results", h.multiResults(f), "get:A(czxid=z+1 mzxid=z+1 pzxid=z+2 ver=0 cver=1 aver=0 owner=0 len=1 nc=1 ctime=mtime:true) children:x error:-101/-101 end")
		// C18: reconfig is disabled.
		f = h.c.call(proto.OpReconfig, func(e *proto.Encoder) { e.String(""); e.String(""); e.String(""); e.Long(-1) })
		h.eq("reconfig", h.hdr(f)+" size="+itoa(int32(f.size)), "{x z+3 -123} size=16")
	}},
	// M7: check outside multi — the real server never answers; only the
	// embedded server's answer is checked.
	{id: "M7", only: "embedded", fn: func(h *H) {
		h.start()
		h.c.create(h.P("a"), nil, 0)
		f := h.c.call(proto.OpCheck, func(e *proto.Encoder) { e.String(h.P("a")); e.Int(0) })
		h.eq("check", f.err, int32(proto.ErrUnimplemented))
		h.eq("connKept", h.c.exists(h.P("a"), false).err, int32(0))
	}},

	// auth / ACL.
	{id: "U1", fn: func(h *H) {
		h.start()
		f := h.c.call(proto.OpAuth, func(e *proto.Encoder) { e.Int(0); e.String("digest"); e.Buffer([]byte("alice:secret")) })
		h.eq("auth", h.hdr(f)+" size="+itoa(int32(f.size)), "{x 0 0} size=16")
		// U2: auth:"" expands to the digest id.
		h.c.call(proto.OpCreate, createBody(h.P("sec"), []byte("s"), []proto.ACL{mkACL(31, "auth", "")}, 0))
		acl := h.c.call(proto.OpGetACL, pathOnly(h.P("sec"))).dec().ACLs()
		h.eq("expanded", acl, []proto.ACL{mkACL(31, "digest", "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=")})
		h.eq("ownerReads", h.c.getData(h.P("sec"), false).err, int32(0))
		// U1b: whoAmI after auth.
		d := h.c.call(proto.OpWhoAmI, nil).dec()
		var ids []string
		for n := d.Int(); n > 0; n-- {
			ids = append(ids, d.String()+":"+d.String())
		}
		slices.Sort(ids)
		h.eq("whoami", ids, []string{"digest:alice", "ip:127.0.0.1"})
		// U3: another connection.
		other := h.sess()
		h.eq("otherGet", other.getData(h.P("sec"), false).err, int32(proto.ErrNoAuth))
		h.eq("otherExists", other.exists(h.P("sec"), false).err, int32(0))
		h.eq("otherACL", other.call(proto.OpGetACL, pathOnly(h.P("sec"))).err, int32(proto.ErrNoAuth))
		h.eq("otherSet", other.setData(h.P("sec"), nil, -1).err, int32(proto.ErrNoAuth))
		h.eq("otherChild", other.create(h.P("sec/c"), nil, 0).err, int32(proto.ErrNoAuth))
		h.eq("otherChildren", other.children2(h.P("sec"), false).err, int32(proto.ErrNoAuth))
		// Delete needs DELETE on the parent (world here), not on the node.
		// U5: READ without ADMIN → digest ids masked.
		h.c.call(proto.OpCreate, createBody(h.P("ro"), nil, []proto.ACL{mkACL(1, "world", "anyone"), mkACL(31, "digest", "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=")}, 0))
		acl = other.call(proto.OpGetACL, pathOnly(h.P("ro"))).dec().ACLs()
		h.eq("masked", acl, []proto.ACL{mkACL(1, "world", "anyone"), mkACL(31, "digest", "alice:x")})
		// A second digest login on the other connection unlocks the node.
		other.call(proto.OpAuth, func(e *proto.Encoder) { e.Int(0); e.String("digest"); e.Buffer([]byte("alice:secret")) })
		h.eq("afterAuth", other.getData(h.P("sec"), false).err, int32(0))
		h.eq("otherDelete", other.delete(h.P("sec"), -1).err, int32(0))
		// U4: unknown scheme.
		f = h.c.call(proto.OpAuth, func(e *proto.Encoder) { e.Int(0); e.String("kerberos"); e.Buffer([]byte("x")) })
		h.eq("unknownScheme", h.hdr(f), "{x 0 -115}")
		closed, _ := h.c.closedByServer(5 * time.Second)
		h.eq("closed", closed, true)
	}},
}

// getDataNil reports whether the node's data is null after a setData reply.
func getDataNil(h *H, f frame) bool {
	return f.err == 0 && stat(f).DataLength == 0
}

// fourLetter sends a four-letter word to the check's server.
func fourLetter(h *H, word string) string {
	r := dialRaw(h.t, h.addr)
	if _, err := r.nc.Write([]byte(word)); err != nil {
		h.t.Fatal(err)
	}
	_ = r.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b bytes.Buffer
	_, _ = b.ReadFrom(r.nc)
	return b.String()
}
