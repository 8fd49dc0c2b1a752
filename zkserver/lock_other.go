//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package zkserver

// lockDir does not lock on this platform: do not point two servers at the
// same data directory.
func lockDir(dir string) (unlock func(), err error) { return func() {}, nil }

// syncDir is a no-op: directories cannot be synced here (Windows makes
// renames durable with the file system's own journal).
func syncDir(dir string) error { return nil }
