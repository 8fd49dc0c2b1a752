// Command ktopo is a terminal UI and command line for operators of Apache
// Kafka clusters that run in ZooKeeper mode (Kafka 2.x and 3.x).
//
// Install it with go install github.com/ktopo/ktopo@latest. The commands
// live in cmd; docs/architecture.md maps the packages.
package main

import (
	"os"

	"github.com/ktopo/ktopo/cmd"
)

// version is set at build time: -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() {
	cmd.Version = version
	os.Exit(cmd.Main())
}
