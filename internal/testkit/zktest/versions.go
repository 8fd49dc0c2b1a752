package zktest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// A package's tests can run again on another Apache ZooKeeper version than
// Debian's: kafkatest.OnZooKeeper re-executes the test binary with these
// variables set, and Main then serves that version and audits what the
// tests sent it.
const (
	// ClasspathEnv is the class path of the ZooKeeper server every Start
	// runs when Options.Classpath is empty (the package's server included).
	ClasspathEnv = "KTOPO_ZK_CLASSPATH"
	// VersionEnv names the version of that server ("3.5.9").
	VersionEnv = "KTOPO_ZK_VERSION"
	// ReportEnv, when set, is a file: Main puts a Recorder in front of the
	// package's server and writes a Report there once the tests are done.
	ReportEnv = "KTOPO_ZK_REPORT"
)

// Report is what a run on one server version sent and what the server
// complained about.
type Report struct {
	Version string         `json:"version"`
	Ops     map[string]int `json:"ops"`     // opcode (decimal) → requests
	Details map[string]int `json:"details"` // see Recorder.Details
	Words   map[string]int `json:"words"`   // four-letter words
	Refused []string       `json:"refused"` // server log lines about unknown requests
	raw     map[int32]int
}

// refusedLine matches what Apache ZooKeeper logs when a request's opcode
// is unknown to it: 3.5 to 3.9 log "Received packet at server of unknown
// type <n>" before answering -6 Unimplemented and closing the connection.
var refusedLine = regexp.MustCompile(`(?i)unknown type|UnimplementedException|Unimplemented`)

// RefusedRequests returns the lines of a server log that show a request the
// server did not know.
func RefusedRequests(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if refusedLine.MatchString(l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

func writeReport(path string, rec *Recorder, srv *Server) error {
	r := Report{Version: os.Getenv(VersionEnv), Ops: map[string]int{}, Details: rec.Details(), Words: rec.Words(), Refused: RefusedRequests(srv.Log())}
	for op, n := range rec.Ops() {
		r.Ops[fmt.Sprint(op)] = n
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// ReadReport reads a Report written by Main.
func ReadReport(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("zktest: report %s: %w", path, err)
	}
	r.raw = map[int32]int{}
	for k, n := range r.Ops {
		var op int32
		if _, err := fmt.Sscan(k, &op); err != nil {
			return nil, fmt.Errorf("zktest: report %s: opcode %q", path, k)
		}
		r.raw[op] = n
	}
	return &r, nil
}

// Opcodes returns the report's requests by opcode.
func (r *Report) Opcodes() map[int32]int { return maps.Clone(r.raw) }

// Unsupported returns the opcodes sent that the report's version lacks.
func (r *Report) Unsupported() []int32 {
	var out []int32
	for op := range r.raw {
		if !Supports(r.Version, op) {
			out = append(out, op)
		}
	}
	slices.Sort(out)
	return out
}

// Summary lists the opcodes by name with their counts.
func (r *Report) Summary() string { return summary(r.raw, r.Words) }

// DetailSummary lists the report's Details.
func (r *Report) DetailSummary() string { return detailSummary(r.Details) }

var serverVersion string // the package server's, from srvr (set by Main)

// Version is the version the package's server reports in srvr ("3.8.0",
// "3.5.9", "3.9.5"; the embedded server says "3.8.0"), "" before Main.
func Version() string { return serverVersion }

// probeVersion asks a server its version with srvr.
func probeVersion(addr string) string {
	reply, err := FourLetter(addr, "srvr")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(reply, "\n") {
		if v, ok := strings.CutPrefix(l, "Zookeeper version: "); ok {
			v, _, _ = strings.Cut(v, "-")
			v, _, _ = strings.Cut(v, ",")
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// ExistsChecksRead reports whether the package's server answers exists on
// a node the client may not read with -102 NoAuth (ZOOKEEPER-2590, in
// 3.8.4+ and 3.9.2+); 3.8.0 (Debian's, and the embedded server), 3.5 to
// 3.7 answer it whatever the node's ACL.
func ExistsChecksRead() bool {
	v := Version()
	return !versionLess(v, "3.9.2") || (strings.HasPrefix(v, "3.8.") && !versionLess(v, "3.8.4"))
}
