package zkserver

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// A snapshot file is the tree after one zxid:
//
//	header: snapMagic | uint32 version | int64 zxid | int64 node count
//	entries: uint32 length | payload, nodes in any order
//	  payload kind 1, ACL list definition: ACL vector (indexes count from 0)
//	  payload kind 2, node: path | data (nullable) | int32 ACL index |
//	    czxid mzxid pzxid ctime mtime owner (int64) | version aversion childCreates (int32)
//	  payload kind 0: end
//	uint32 CRC-32C of every byte before it
//
// Sessions are not in it: ephemerals are, with their owners, and are
// deleted on start (see recover).
const (
	snapEnd  = 0
	snapACL  = 1
	snapNode = 2
)

// crcWriter checksums what it writes.
type crcWriter struct {
	w   io.Writer
	crc uint32
}

func (c *crcWriter) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, castagnoli, p)
	return c.w.Write(p)
}

// writeSnapshot streams the tree to w. The caller holds Server.mu (shared
// is enough), so the tree is exactly the one after zxid.
func (t *tree) writeSnapshot(w io.Writer, zxid int64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &crcWriter{w: bw}
	var hdr [headerSize + 16]byte
	copy(hdr[:], snapMagic)
	binary.BigEndian.PutUint32(hdr[8:], fileVersion)
	binary.BigEndian.PutUint64(hdr[12:], uint64(zxid))
	binary.BigEndian.PutUint64(hdr[20:], uint64(len(t.nodes)))
	if _, err := cw.Write(hdr[:]); err != nil {
		return err
	}
	e := proto.Encoder{B: make([]byte, 0, 4096)}
	entry := func() error {
		binary.BigEndian.PutUint32(e.B, uint32(len(e.B)-4))
		_, err := cw.Write(e.B)
		e.B = e.B[:0]
		return err
	}
	aclIndex := map[*aclList]int32{}
	for path, n := range t.nodes {
		idx, ok := aclIndex[n.acl]
		if !ok {
			idx = int32(len(aclIndex))
			aclIndex[n.acl] = idx
			e.B = append(e.B, 0, 0, 0, 0, snapACL)
			e.ACLs(n.acl.acl)
			if err := entry(); err != nil {
				return err
			}
		}
		e.B = append(e.B, 0, 0, 0, 0, snapNode)
		e.String(path)
		e.Buffer(n.data)
		e.Int(idx)
		e.Long(n.czxid)
		e.Long(n.mzxid)
		e.Long(n.pzxid)
		e.Long(n.ctime)
		e.Long(n.mtime)
		e.Long(n.owner)
		e.Int(n.version)
		e.Int(n.aversion)
		e.Int(n.childCreates)
		if err := entry(); err != nil {
			return err
		}
	}
	e.B = append(e.B, 0, 0, 0, 0, snapEnd)
	if err := entry(); err != nil {
		return err
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], cw.crc)
	if _, err := bw.Write(sum[:]); err != nil {
		return err
	}
	return bw.Flush()
}

// crcReader checksums what it reads.
type crcReader struct {
	r   io.Reader
	crc uint32
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	return n, err
}

// loadedTree is a tree read from a snapshot and the zxid it is at.
type loadedTree struct {
	tree *tree
	zxid int64
}

// readSnapshot loads a snapshot file, checking its CRC.
func readSnapshot(path string) (loadedTree, error) {
	f, err := os.Open(path)
	if err != nil {
		return loadedTree{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return loadedTree{}, err
	}
	return decodeSnapshot(f, fi.Size())
}

// decodeSnapshot reads a snapshot of size bytes from r.
func decodeSnapshot(r io.Reader, size int64) (loadedTree, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	cr := &crcReader{r: br}
	var hdr [headerSize + 16]byte
	if _, err := io.ReadFull(cr, hdr[:]); err != nil {
		return loadedTree{}, fmt.Errorf("header: %w", noEOF(err))
	}
	if string(hdr[:8]) != snapMagic {
		return loadedTree{}, fmt.Errorf("not a zkserver snapshot (header %q)", hdr[:8])
	}
	if v := binary.BigEndian.Uint32(hdr[8:]); v != fileVersion {
		return loadedTree{}, fmt.Errorf("snapshot version %d, this server reads %d", v, fileVersion)
	}
	zxid := int64(binary.BigEndian.Uint64(hdr[12:]))
	count := binary.BigEndian.Uint64(hdr[20:])
	// A node entry takes at least 64 bytes: a count the file cannot hold
	// is damage (and must not size the map).
	if count == 0 || count > uint64(size)/64 {
		return loadedTree{}, fmt.Errorf("bad node count %d", count)
	}
	t := &tree{
		nodes:      make(map[string]*node, count),
		acls:       map[string]*aclList{},
		containers: map[string]struct{}{},
	}
	var acls []*aclList
	var buf []byte
	var nodes uint64
	for {
		var lb [4]byte
		if _, err := io.ReadFull(cr, lb[:]); err != nil {
			return loadedTree{}, fmt.Errorf("entry %d: %w", nodes, noEOF(err))
		}
		n := binary.BigEndian.Uint32(lb[:])
		if n == 0 || int64(n) > size {
			return loadedTree{}, fmt.Errorf("entry %d: bad length %d", nodes, n)
		}
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		p := buf[:n]
		if _, err := io.ReadFull(cr, p); err != nil {
			return loadedTree{}, fmt.Errorf("entry %d: %w", nodes, noEOF(err))
		}
		d := proto.NewDecoder(p[1:])
		switch p[0] {
		case snapEnd:
			var sum [4]byte
			if _, err := io.ReadFull(br, sum[:]); err != nil {
				return loadedTree{}, fmt.Errorf("checksum: %w", noEOF(err))
			}
			if binary.BigEndian.Uint32(sum[:]) != cr.crc {
				return loadedTree{}, errors.New("checksum mismatch")
			}
			if nodes != count {
				return loadedTree{}, fmt.Errorf("%d nodes, header says %d", nodes, count)
			}
			if t.nodes["/"] == nil {
				return loadedTree{}, errors.New("no root node")
			}
			if err := t.link(); err != nil {
				return loadedTree{}, err
			}
			return loadedTree{tree: t, zxid: zxid}, nil
		case snapACL:
			acl := d.ACLs()
			if d.Err() != nil || d.Remaining() != 0 {
				return loadedTree{}, fmt.Errorf("entry %d: bad ACL definition", nodes)
			}
			acls = append(acls, t.intern(acl))
		case snapNode:
			path := d.String()
			n := &node{data: cloneNullable(d.Buffer())}
			idx := d.Int()
			n.czxid, n.mzxid, n.pzxid = d.Long(), d.Long(), d.Long()
			n.ctime, n.mtime, n.owner = d.Long(), d.Long(), d.Long()
			n.version, n.aversion, n.childCreates = d.Int(), d.Int(), d.Int()
			if d.Err() != nil || d.Remaining() != 0 || idx < 0 || int(idx) >= len(acls) {
				return loadedTree{}, fmt.Errorf("entry %d: bad node record", nodes)
			}
			n.acl = acls[idx]
			if err := t.restore(path, n); err != nil {
				return loadedTree{}, err
			}
			nodes++
		default:
			return loadedTree{}, fmt.Errorf("entry %d: unknown kind %d", nodes, p[0])
		}
	}
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// restore inserts a node read from a snapshot (link then connects the
// nodes to their parents).
func (t *tree) restore(path string, n *node) error {
	if _, dup := t.nodes[path]; dup {
		return fmt.Errorf("node %q twice", path)
	}
	if path != "/" && (!strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/")) {
		return fmt.Errorf("bad path %q", path)
	}
	t.nodes[path] = n
	if n.isEphemeral() {
		t.ephemerals++
	}
	if n.owner == containerOwner {
		t.containers[path] = struct{}{}
	}
	t.dataBytes += int64(len(n.data))
	return nil
}

// link fills in the child sets of a restored tree; every node's parent
// must be there.
func (t *tree) link() error {
	for path := range t.nodes {
		if path == "/" {
			continue
		}
		parent := t.nodes[watchParent(parentPath(path))]
		if parent == nil {
			return fmt.Errorf("node %q without its parent", path)
		}
		if parent.children == nil {
			parent.children = map[string]struct{}{}
		}
		parent.children[path[strings.LastIndexByte(path, '/')+1:]] = struct{}{}
	}
	return nil
}
