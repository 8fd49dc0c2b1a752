// Command ktopo is a terminal UI and command line for operators of Apache
// Kafka: clusters in ZooKeeper mode (Kafka 2.x and 3.x), read live through
// their ZooKeeper, and KRaft clusters (Kafka 3.x and 4.x), read over the
// Kafka protocol.
//
// Install it with go install github.com/ktopo/ktopo@latest. The commands
// live in cmd; docs/architecture.md maps the packages.
package main

import (
	"os"

	"github.com/ktopo/ktopo/cmd"
)

// version is set at build time: -ldflags "-X main.version=1.2.3". Unset,
// "ktopo version" names the build from what the Go toolchain recorded: the
// module version of "go install …@v1.2.3", else the git commit.
var version string

func main() {
	cmd.Version = version
	os.Exit(cmd.Main())
}
