package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/zkserver"
)

func newSandboxCmd() *cobra.Command {
	var (
		empty  bool
		listen string
	)
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Serve an in-process ZooKeeper (and, later, a simulated Kafka cluster) until interrupted",
		Long: `sandbox runs ktopo's embedded ZooKeeper-protocol server on a loopback port.

With --empty it serves a pristine tree (only /zookeeper, as a fresh Apache
ZooKeeper 3.8 has) and writes nothing of its own: other tools and tests can
use it as a throwaway ZooKeeper. The bound address is printed on standard
output as "listening on HOST:PORT". It runs until SIGINT or SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !empty {
				return errors.New("the simulated Kafka cluster is not available yet: use --empty to serve a bare ZooKeeper")
			}
			// Register for signals before announcing the address, so a
			// caller that signals as soon as it reads it is handled.
			ctx, stop := signal.NotifyContext(contextOf(c), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			srv, err := zkserver.Start(zkserver.Config{Addr: listen})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "listening on %s\n", srv.Addr())
			<-ctx.Done()
			return srv.Close()
		},
	}
	cmd.Flags().BoolVar(&empty, "empty", false, "serve only the bare ZooKeeper server: pristine tree, no brokers, no writes of its own")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "address to serve ZooKeeper on (port 0 picks a free one)")
	return cmd
}

// contextOf returns the command's context (Background when none was set).
func contextOf(c *cobra.Command) context.Context {
	if ctx := c.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
