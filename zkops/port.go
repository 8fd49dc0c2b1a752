package zkops

import (
	"errors"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// The ZooKeeper write port: what ktopo's operations need from a ZooKeeper
// session, and writeMulti, the one way their multis reach ZooKeeper.

// Getter reads a znode (*zk.Conn and *zkwatch.Conn fit).
type Getter interface {
	Get(path string) ([]byte, *zk.Stat, error)
}

// ZK is what planning and writing an operation need from a ZooKeeper
// session, with go-zookeeper's signatures (*zk.Conn and *zkwatch.Conn
// fit): the reads a plan or a multi depends on, and the multi.
type ZK interface {
	Getter
	Exists(path string) (bool, *zk.Stat, error)
	Multi(ops ...any) ([]zk.MultiResponse, error)
}

// writeMulti runs ops as one multi, with Kafka's ACLs on its creates
// (kafkaACLs): the way every ktopo write reaches ZooKeeper. It is guarded
// (guard.go): right before the multi it reads who owns the metadata and
// refuses, with a *MigrationError, once a KRaft controller does, or while
// a migration is being prepared unless z carries the operator's
// confirmation (confirm); the multi checks that the controller did not
// change since that read. An ACL refusal comes back from a *zkwatch.Conn
// as a *zkwatch.AccessError saying which credentials would do; nothing of
// a failed multi was written. The results are those of ops.
func writeMulti(z ZK, ops ...any) ([]zk.MultiResponse, error) {
	var confirmed *cluster.WriteVerdict
	if c, ok := z.(*confirmedZK); ok {
		z, confirmed = c.ZK, &c.verdict
	}
	if err := kafkaACLs(z, ops); err != nil {
		return nil, err
	}
	return guardWrite(z, confirmed, ops)
}

// withParents prepends to ops the creation of those of dirs (and their
// ancestors) that do not exist, as Kafka's createRecursive would, so that
// the multi can create a child there: /config/changes and
// /config/topics on a cluster whose brokers never started, for instance.
func withParents(z ZK, ops []any, dirs ...string) ([]any, error) {
	var pre []any
	acl := zk.WorldACL(zk.PermAll)
	for _, d := range dirs {
		missing, err := missingParents(z, d)
		if err != nil {
			return nil, err
		}
		for _, m := range missing {
			pre = append(pre, &zk.CreateRequest{Path: m, Acl: acl})
		}
	}
	return append(pre, ops...), nil
}

// createWithParentsOps is the multi that creates path with data, preceded
// by the creates of dir and its ancestors that do not exist (an admin
// request's parents, which brokers make at startup, may be missing from a
// tree no broker has run on).
func createWithParentsOps(z ZK, dir, path string, data []byte) ([]any, error) {
	return withParents(z, []any{&zk.CreateRequest{Path: path, Data: data, Acl: zk.WorldACL(zk.PermAll)}}, dir)
}

// missingParents returns dir and its ancestors that do not exist, top first.
func missingParents(z ZK, dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "/" && d != ""; d = d[:strings.LastIndexByte(d, '/')] {
		ok, _, err := z.Exists(d)
		if err != nil {
			return nil, readErr(d, err)
		}
		if ok {
			break
		}
		missing = append(missing, d)
	}
	slices.Reverse(missing)
	return missing, nil
}

// failedOp returns the op whose result carries the multi's error.
func failedOp(ops []any, results []zk.MultiResponse) any {
	for i, r := range results {
		if r.Error != nil && i < len(ops) {
			return ops[i]
		}
	}
	return nil
}

// unsentError is a failure before a write was sent (reading what the
// multi needs): nothing was written, whatever the cause.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return e.err.Error() }

func (e *unsentError) Unwrap() error { return e.err }

// MaybeWritten reports whether the outcome of a failed createTopic (or
// any write) is open: anything but Kafka's errors (TopicExistsException),
// ZooKeeper's answers to the request (node exists, no node, bad version,
// no auth …), a request that was never sent (zk.ErrNoServer: no session
// to send it on), a refusal of the migration guard (*MigrationError) and a
// failure before the write (reading what it needs)
// may strike after the server applied the multi:
// a lost connection, an expired session, a request deadline. A multi is
// applied whole or not at all, so the topic then either exists exactly as
// planned or not at all; verifyCreate finds out which.
func MaybeWritten(err error) bool {
	var unsent *unsentError
	var refused *MigrationError
	if err == nil || cluster.ErrorClass(err) != "" || errors.As(err, &unsent) || errors.As(err, &refused) {
		return false
	}
	for _, answer := range []error{zk.ErrNoServer, zk.ErrNodeExists, zk.ErrNoNode, zk.ErrBadVersion, zk.ErrNoAuth, zk.ErrBadArguments,
		zk.ErrInvalidACL, zk.ErrAuthFailed, zk.ErrNotEmpty, zk.ErrNoChildrenForEphemerals} {
		if errors.Is(err, answer) {
			return false
		}
	}
	return true
}
