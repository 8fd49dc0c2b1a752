package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// interruptible is ctx ended by ctrl+c (SIGINT) or SIGTERM, for a
// command's wait after its write: the write is done and goes on without
// ktopo, and the wait's end (interrupted) says what goes on and how to
// follow it. Before the write, ctrl+c simply ends ktopo: nothing was
// written.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// interruptedStatus is the exit status of a wait cut short by ctrl+c:
// 128 + SIGINT, as a shell reports a command it interrupted.
const interruptedStatus = 130

// interrupted ends a wait cut short: err is its error, and when that is
// the interruption, what goes on (a sentence) is printed on errOut and
// the command exits with interruptedStatus.
func interrupted(err error, errOut io.Writer, what string) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	fmt.Fprintln(errOut, "\nInterrupted: "+what)
	return &exitError{code: interruptedStatus, err: &silentError{err}}
}
