package zkops

import (
	"errors"
	"fmt"
)

// znodeError is an error that names the znode it is about already, as
// zkwatch's OpError does ("zookeeper HOST: exists PATH: …").
type znodeError interface {
	error
	ZnodePath() string
}

// readErr is the error of a read of path: err as it is when it names path
// already, else "read <path>: <err>" (never the path twice, as in "read
// /x: zookeeper h: exists /x: no session").
func readErr(path string, err error) error {
	var ze znodeError
	if errors.As(err, &ze) && ze.ZnodePath() == path {
		return err
	}
	return fmt.Errorf("read %s: %w", path, err)
}
