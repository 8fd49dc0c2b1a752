package cmd

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// versionString is the version "ktopo version" and "ktopo --version"
// print: Version when the build set it, else what the Go toolchain recorded
// in the binary (see describeBuild).
func versionString() string {
	if Version != "" {
		return Version
	}
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(bi)
}

// pseudoVersion matches the tail of a Go pseudo-version
// (v0.0.0-20261204145905-0c04d1a83768): a commit, not a release.
var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// describeBuild names a build that no -ldflags "-X main.version=…" named.
// "go install github.com/ktopo/ktopo@v1.2.3" records the module's version
// (v1.2.3); a "go build" in a git checkout records the commit (vcs.revision,
// vcs.time, vcs.modified) and, since Go 1.24, a pseudo-version made of them.
// "go run", -buildvcs=false and a checkout the toolchain cannot read record
// neither: that build is "dev".
func describeBuild(bi *debug.BuildInfo) string {
	if bi == nil {
		return "dev"
	}
	var rev, at string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	v := bi.Main.Version
	if v == "(devel)" {
		v = ""
	}
	if rev == "" {
		if v == "" {
			return "dev"
		}
		return v
	}
	short := rev[:min(12, len(rev))]
	if v != "" && strings.Contains(v, short) {
		return v // the pseudo-version already names the commit and "+dirty"
	}
	var about []string
	about = append(about, "commit "+short)
	if at != "" {
		about = append(about, at)
	}
	if modified && !strings.HasSuffix(v, "+dirty") {
		about = append(about, "modified")
	}
	if v == "" || pseudoVersion.MatchString(v) {
		v = "dev"
	}
	return v + " (" + strings.Join(about, ", ") + ")"
}
