package features

import (
	"os"
	"testing"

	"github.com/ktopo/ktopo/cmd"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// asKtopo, set in a process's environment, makes the test binary run as
// ktopo itself (cmd.Main with its arguments): the scenario starts ktopo
// as a user does, a process with its own arguments, streams and exit
// status, without a go build of its own.
const asKtopo = "KTOPO_E2E_RUN_AS_KTOPO"

func TestMain(m *testing.M) {
	if os.Getenv(asKtopo) == "1" {
		os.Exit(cmd.Main())
	}
	code := m.Run()
	kafkatest.StopAll()
	os.Exit(code)
}
