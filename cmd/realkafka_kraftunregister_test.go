package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// ktopo brokers unregister runs end to end on the sandbox and on real
// Kafka 4.4: refused for a live broker and an unknown id before anything
// is sent, previewed, refused on a production context until the id is
// typed, then sent for a killed (fenced) broker, which the brokers then
// no longer list; Kafka's own kafka-cluster unregister then refuses the
// id as not registered.

func runWithStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errw bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errw)
	return code, out.String(), errw.String()
}

func checkUnregister(t *testing.T, s quorumSide) {
	t.Helper()
	bs := s.nodes.Bootstrap()
	brokers := s.nodes.BrokerIDs()
	live, gone := brokers[0], brokers[len(brokers)-1]
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{strconv.Itoa(live)}, fmt.Sprintf("refusing to unregister broker %d: broker %d is alive (registered and unfenced)", live, live)},
		{[]string{"99"}, "refusing to unregister broker 99: Broker ID 99 is not currently registered"},
		{[]string{"4x"}, `invalid broker id "4x": want a broker's id, a number (0 or more)`},
		{[]string{strconv.Itoa(gone), "--execute", "--read-only"}, fmt.Sprintf("read-only mode: refusing to unregister broker %d", gone)},
	} {
		code, out, errOut := runCLI(t, append([]string{"brokers", "unregister", "--bootstrap-server", bs}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("brokers unregister %s: exit %d %q %q, want a refusal saying %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
	if err := s.nodes.Kill(gone); err != nil {
		t.Fatal(err)
	}
	args := []string{"--bootstrap-server", strings.Join(removeAddr(strings.Split(bs, ","), portOf(t, s, gone)), ",")}
	var q quorumOut
	waitUntilShowing(t, fmt.Sprintf("broker %d fenced", gone), func() bool {
		q = readQuorum(t, args...)
		fenced, _, _ := q.registration(gone)
		return fenced
	}, func() string { return fmt.Sprintf("%+v", q.Registrations) })

	preview := runOK(t, append([]string{"brokers", "unregister", strconv.Itoa(gone)}, args...)...)
	for _, want := range []string{
		fmt.Sprintf("Broker %d: fenced; down: does not answer at", gone),
		fmt.Sprintf("Would send, as one Kafka request:\n  UnregisterBroker brokerId=%d\nNothing sent: --execute sends it.\n", gone),
	} {
		if !strings.Contains(preview, want) {
			t.Errorf("preview lacks %q:\n%s", want, preview)
		}
	}

	// A production context: off a terminal refused, a wrong id refused,
	// the id typed sends it.
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "ktopo"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("contexts:\n  prod:\n    bootstrap-server: %s\n    production: true\n", args[1])
	if err := os.WriteFile(filepath.Join(dir, "ktopo", "config.yaml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	exec := []string{"--context", "prod", "brokers", "unregister", strconv.Itoa(gone), "--execute"}
	if code, _, errOut := runWithStdin(t, "", exec...); code == 0 || !strings.Contains(errOut, "on production context prod without confirmation: on a terminal ktopo asks for "+strconv.Itoa(gone)+" to be typed") {
		t.Errorf("off a terminal: exit %d %s", code, errOut)
	}
	defer func(f func(io.Reader) bool) { stdinIsTerminal = f }(stdinIsTerminal)
	stdinIsTerminal = func(io.Reader) bool { return true }
	if code, _, errOut := runWithStdin(t, "7\n", exec...); code == 0 || !strings.Contains(errOut, `not confirmed (typed "7", not `+strconv.Itoa(gone)+`): did not unregister broker`) {
		t.Errorf("a wrong id typed: exit %d %s", code, errOut)
	}
	if fenced, _, ok := readQuorum(t, args...).registration(gone); !ok || !fenced {
		t.Fatalf("broker %d's registration changed before it was confirmed", gone)
	}
	code, out, errOut := runWithStdin(t, strconv.Itoa(gone)+"\n", exec...)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("Broker %d unregistered.\nBroker %d is no longer registered.\n", gone, gone)) ||
		!strings.Contains(errOut, fmt.Sprintf("Context prod is production: type %d to unregister broker %d: ", gone, gone)) {
		t.Fatalf("unregister: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, ok := readQuorum(t, args...).registration(gone); ok {
		t.Errorf("broker %d still registered", gone)
	}
	if s.real != nil {
		// Kafka's own tool agrees that the broker is not registered.
		res, err := s.real.Dist().Command("kafka-cluster", "unregister", "--bootstrap-server", args[1], "--id", strconv.Itoa(gone))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("kafka-cluster unregister --id %d after ktopo's: exit %d %s%s", gone, res.Code, res.Stdout, res.Stderr)
		if res.Code == 0 || !strings.Contains(res.Stdout+res.Stderr, fmt.Sprintf("Broker ID %d is not currently registered", gone)) {
			t.Errorf("kafka-cluster unregister --id %d after ktopo's: exit %d %s%s", gone, res.Code, res.Stdout, res.Stderr)
		}
	}
	t.Logf("brokers unregister %d:\n%s", gone, out)
}

func removeAddr(addrs []string, port string) []string {
	var out []string
	for _, a := range addrs {
		if !strings.HasSuffix(a, ":"+port) {
			out = append(out, a)
		}
	}
	return out
}

// TestSandboxBrokersUnregister: ktopo brokers unregister on the KRaft
// sandbox (no Java).
func TestSandboxBrokersUnregister(t *testing.T) {
	checkUnregister(t, sandboxQuorumSide(t))
}

// TestRealKRaftBrokersUnregister: ktopo brokers unregister on real Kafka
// 4.4, and its refusal of a combined node (a voter) on 4.4's combined
// cluster.
func TestRealKRaftBrokersUnregister(t *testing.T) {
	t.Run("combined", func(t *testing.T) {
		c := kafkatest.SharedCombined(t, kafkatest.Kafka44)
		code, _, errOut := runCLI(t, "brokers", "unregister", "1", "--bootstrap-server", c.Bootstrap())
		if code == 0 || !strings.Contains(errOut, "broker 1 is a voter of the metadata quorum (a combined broker and controller)") {
			t.Errorf("unregister a combined node: exit %d %s", code, errOut)
		}
	})
	t.Run("4.4", func(t *testing.T) {
		checkUnregister(t, realQuorumSide(kafkatest.SharedKRaft(t, kafkatest.Kafka44)))
	})
}
