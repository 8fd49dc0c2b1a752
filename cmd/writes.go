package cmd

import (
	"errors"
	"fmt"

	"github.com/ktopo/ktopo/internal/config"
)

// Every command that writes to ZooKeeper goes through the same two guards,
// so that a read-only target and a refused write read alike everywhere:
//
//   - before reading anything, cf.writable("create topic orders") refuses
//     when the target is read-only (--read-only, or a context's read-only:
//     true), naming which; a command with a dry run passes its hint:
//     cf.writable("alter topic x", "--validate-only checks it without writing");
//   - the writes themselves go through the *zkwatch.Conn of cf.connect
//     (cf.watch), whose Create, Set, Delete and Multi answer a NoAuth
//     refusal with a *zkwatch.AccessError: the node whose ACL refused,
//     whom it grants the permission to, who this session is and which
//     credentials (--zk-digest, --zk-tls-cert/--zk-tls-key, the super
//     user) would do. A refused multi wrote nothing. Return it as it is
//     (or wrapped with %w); zkops.MaybeWritten reports it as not
//     written.
//
// New znodes get the ACL Kafka gives them (the ZooKeeper writer's multis:
// creator-only plus world-read when the cluster was set up with
// zookeeper.set.acl=true), so a ktopo write never opens a secured tree.

// writable returns the refusal of a write (what, e.g. "create topic
// orders") when the target is read-only, else nil. hint, when given, is
// added in parentheses (how to check without writing).
func (f *connFlags) writable(what string, hint ...string) error {
	t, err := f.target()
	if err != nil {
		return err
	}
	if !t.readOnly {
		return nil
	}
	instead := ""
	if len(hint) > 0 {
		instead = hint[0]
	}
	err = readOnlyRefusal(what, instead)
	if t.readOnlyBy != "--read-only" && t.context != "" {
		err = fmt.Errorf("%w; context %s is read-only (read-only: true in %s)", err, t.context, displayPath(config.Path()))
	}
	return err
}

// readOnlyRefusal is the one message every command that writes to
// ZooKeeper gives in read-only mode: "read-only mode: refusing to <what>",
// then, in parentheses, what can be done instead (the flag that shows the
// write without making it, when the command has one).
// TestReadOnlyRefusesEveryWrite keeps the list of write commands.
func readOnlyRefusal(what, instead string) error {
	msg := "read-only mode: refusing to " + what
	if instead != "" {
		msg += " (" + instead + ")"
	}
	return errors.New(msg)
}
