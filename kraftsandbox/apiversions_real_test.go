package kraftsandbox

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// apiVersionsAnswer sends one ApiVersions request of version v (with
// the client software name and version given, from v3) to addr and sums
// up the answer: its error code, which API keys it lists, the supported
// features and whether finalized ones are listed.
func apiVersionsAnswer(t *testing.T, addr string, v int16, name, version string) string {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = name, version
	sent := v
	if v > req.MaxVersion() {
		sent = req.MaxVersion()
	}
	req.SetVersion(sent)
	raw := frame(req, 3)
	if v != sent {
		binary.BigEndian.PutUint16(raw[6:], uint16(v)) // the header's api version
	}
	body, closed := exchange(t, addr, raw)
	if closed {
		return "connection closed"
	}
	rd := kbin.Reader{Src: body}
	rd.Int32() // correlation id; ApiVersions' response header has no tags
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = v
	if v != sent {
		resp.Version = 0 // Kafka answers an unknown version as v0
	}
	if err := resp.ReadFrom(rd.Src); err != nil {
		return "undecodable answer: " + err.Error()
	}
	keys := "no keys"
	switch {
	case len(resp.ApiKeys) == 1 && resp.ApiKeys[0].ApiKey == kmsg.ApiVersions.Int16():
		keys = "ApiVersions only"
	case len(resp.ApiKeys) > 1:
		keys = "its keys"
	}
	var features []string
	for _, f := range resp.SupportedFeatures {
		features = append(features, fmt.Sprintf("%s %d-%d", f.Name, f.MinVersion, f.MaxVersion))
	}
	slices.Sort(features)
	return fmt.Sprintf("error %d, %s, supported [%s], %d finalized", resp.ErrorCode, keys, strings.Join(features, ", "), len(resp.FinalizedFeatures))
}

// TestApiVersionsLikeRealKafka: a broker and a controller of the sandbox
// answer ApiVersions as Kafka 4.4's do, valid or not: a request of v3+
// whose client software name or version is empty or not of Kafka's
// pattern gets INVALID_REQUEST and nothing else (ktopo quorum sends
// ApiVersions to each node directly, where franz-go does not fill them
// in); a version no node knows gets v0's UNSUPPORTED_VERSION.
func TestApiVersionsLikeRealKafka(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	realBS, realCS := realKRaft(t)
	c := startTest(t, Config{Brokers: 3, Controllers: 3})
	first := func(list string) string { a, _, _ := strings.Cut(list, ","); return a }
	for _, tc := range []struct {
		name          string
		version       int16
		soft, softVer string
	}{
		{"v4 named", 4, "ktopo", "1.0"},
		{"v4 unnamed", 4, "", ""},
		{"v3 with a space in the name", 3, "kto po", "1.0"},
		{"v3 with a version ending in a dot", 3, "ktopo", "1."},
		{"v2, which has no name", 2, "", ""},
		{"v99", 99, "ktopo", "1.0"},
	} {
		for _, side := range []struct {
			role          string
			real, sandbox string
		}{
			{"broker", first(realBS), first(c.Bootstrap())},
			{"controller", first(realCS), first(c.ControllerBootstrap())},
		} {
			want := apiVersionsAnswer(t, side.real, tc.version, tc.soft, tc.softVer)
			got := apiVersionsAnswer(t, side.sandbox, tc.version, tc.soft, tc.softVer)
			if got != want {
				t.Errorf("%s, a %s:\nsandbox:    %s\nreal Kafka: %s", tc.name, side.role, got, want)
			}
		}
	}
}
