package main

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/ktopo/ktopo/ui"
	"github.com/ktopo/ktopo/zkwatch"
)

// sandboxRun is a running sandbox for the TUI.
type sandboxRun struct {
	conn    *zkwatch.Conn
	connect string
	control ui.SandboxControl
	close   func()
}

// startSandbox starts the embedded ZooKeeper and the simulated cluster,
// pace being the delay before each simulated step (--pace). Its control
// should also implement ui.Pacer, so that the creation wizard's pace key
// works.
func startSandbox(ctx context.Context, logger *log.Logger, pace time.Duration) (*sandboxRun, error) {
	return nil, errors.New("the sandbox is not available yet: give a cluster with --zookeeper host:port[/chroot]")
}
