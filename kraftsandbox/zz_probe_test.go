package kraftsandbox

import (
	"os"
	"testing"
	"time"
)

func TestZZProbe(t *testing.T) {
	bs := os.Getenv("ADMIN_PROBE_BS")
	if bs == "" {
		t.Skip()
	}
	e := adminEnvOf(t, bs)
	steps := []adminStep{
		{"throttle", incAlter("broker", "1", false, "SET leader.replication.throttled.rate=1000", "SET cordoned.log.dirs=*"), ""},
		{"legacy replace", legacyAlter("broker", "1", false, "log.cleaner.threads=2"), ""},
		{"describe after legacy", describe("broker", "1", "leader.replication.throttled.rate", "cordoned.log.dirs", "log.cleaner.threads"), ""},
		{"legacy replace", legacyAlter("broker", "1", false), ""},
		{"describe after legacy", describe("broker", "1", "leader.replication.throttled.rate", "cordoned.log.dirs", "log.cleaner.threads"), ""},
		{"unknown op", incAlter("broker", "1", false, "SET foo.bar=2"), ""},
		{"describe", describe("broker", "1", "foo.bar"), ""},
		{"undo", incAlter("broker", "1", false, "DELETE foo.bar"), ""},
	}
	for _, st := range steps {
		t.Logf("{%q, %q},", st.name, st.do(e))
		time.Sleep(2 * time.Second)
	}
}
