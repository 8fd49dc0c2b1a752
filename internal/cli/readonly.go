package cli

import "errors"

// readOnlyRefusal is the one message every command that writes to
// ZooKeeper gives in read-only mode: "read-only mode: refusing to <what>",
// then, in parentheses, what can be done instead (the flag that shows the
// write without making it, when the command has one).
func readOnlyRefusal(what, instead string) error {
	msg := "read-only mode: refusing to " + what
	if instead != "" {
		msg += " (" + instead + ")"
	}
	return errors.New(msg)
}

// refuseWrite returns readOnlyRefusal in read-only mode (--read-only, or a
// context with read-only: true), nil otherwise. Write commands call it
// after checking their arguments and before they connect; the connection
// refuses writes too, but in its own terms. TestReadOnlyRefusesEveryWrite
// keeps the list of write commands.
func (f *connFlags) refuseWrite(what, instead string) error {
	t, err := f.target()
	if err != nil {
		return err
	}
	if !t.readOnly {
		return nil
	}
	return readOnlyRefusal(what, instead)
}
