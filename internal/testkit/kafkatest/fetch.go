package kafkatest

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// The Kafka versions the tests run: a KRaft-only 4.x (the newest Maven
// Central serves), the last ZooKeeper-mode line (newest 3.9 patch; it runs
// in ZooKeeper mode, in KRaft mode and migrates from one to the other),
// and the last version whose kafka-topics.sh still has --zookeeper.
const (
	Kafka44 = "4.4.0"
	Kafka39 = "3.9.2"
	Kafka28 = "2.8.2"
)

// The ZooKeeper server versions besides Debian's 3.8: what Kafka 2.6–2.8
// ship, and the newest 3.9 Maven Central serves with its dependencies.
const (
	ZooKeeper35 = "3.5.9"
	ZooKeeper39 = "3.9.5"
)

//go:embed pom.xml
var pom []byte

// ErrUnavailable means Java or Maven is missing, or Maven could not fetch
// the jars: the real-Kafka tests cannot run here.
var ErrUnavailable = errors.New("real Kafka unavailable")

// CacheDir is where fetched jars are kept: $KTOPO_CACHE, else the user's
// cache directory (~/.cache/ktopo). It is outside the checkout, so a clone
// stays clean and a second run downloads nothing.
func CacheDir() string {
	if d := os.Getenv("KTOPO_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "ktopo")
	}
	return filepath.Join(os.TempDir(), "ktopo-cache")
}

// Dist is a fetched Kafka: the directory of its jars (broker, kafka-topics,
// and for 3.x the Java tools) and its version.
type Dist struct {
	Version string
	Libs    string
}

// Major28 reports whether the version is a 2.x Kafka, whose kafka-topics
// talks to ZooKeeper (--zookeeper) and lives in kafka.admin.
func (d *Dist) Major28() bool { return strings.HasPrefix(d.Version, "2.") }

// Classpath is the JVM class path of every jar.
func (d *Dist) Classpath() string { return filepath.Join(d.Libs, "*") }

// FetchKafka returns the jars of a Kafka version, fetching them with Maven
// from Maven Central the first time.
func FetchKafka(version string) (*Dist, error) {
	profiles := "kafka"
	if !strings.HasPrefix(version, "2.") {
		profiles = "kafka,tools" // kafka-topics is Java, in kafka-tools, from 3.7 on
	}
	dir, err := fetch("kafka", version, profiles, "-Dkafka.version="+version)
	if err != nil {
		return nil, err
	}
	return &Dist{Version: version, Libs: dir}, nil
}

// FetchZooKeeper returns the class path of an Apache ZooKeeper server
// version (its jars and a logger), fetched from Maven Central the first time.
func FetchZooKeeper(version string) (string, error) {
	slf4j := "2.0.13"
	if strings.HasPrefix(version, "3.5.") || strings.HasPrefix(version, "3.6.") || strings.HasPrefix(version, "3.7.") {
		slf4j = "1.7.36"
	}
	dir, err := fetch("zookeeper", version, "zookeeper", "-Dzookeeper.version="+version, "-Dzookeeper.slf4j.version="+slf4j)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "*"), nil
}

// fetch copies the jars of a profile into CacheDir()/<what>/<version>/libs
// once; a marker file says the copy is complete, and with which revision
// of the profile's jar list (a copy of an older revision is fetched again).
// A lock keeps test packages that run at the same time from fetching into
// the same directory.
func fetch(what, version, profiles string, props ...string) (string, error) {
	base := filepath.Join(CacheDir(), what, version)
	libs := filepath.Join(base, "libs")
	done := filepath.Join(base, "complete")
	rev := revisions[what]
	// Jars fetched before are no use without java: a test skips then
	// (fails under CI=true) instead of failing at its first JVM.
	if _, err := exec.LookPath("java"); err != nil {
		return "", fmt.Errorf("%w: java is not installed (Java 17 runs Kafka %s)", ErrUnavailable, version)
	}
	if fetched(done, rev) {
		return libs, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("%w: mvn (Maven) is not installed; it fetches %s %s from Maven Central", ErrUnavailable, what, version)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(base, "lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if fetched(done, rev) {
		return libs, nil // another process fetched it while we waited
	}
	work, err := os.MkdirTemp(base, "fetch-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	pomFile := filepath.Join(work, "pom.xml")
	if err := os.WriteFile(pomFile, pom, 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(work, "libs")
	args := append([]string{"-q", "-B", "-f", pomFile, "-P", profiles}, props...)
	args = append(args, "dependency:copy-dependencies", "-DoutputDirectory="+out)
	cmd := exec.Command(mvn, args...)
	cmd.Dir = work
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: mvn could not fetch %s %s: %w\n%s", ErrUnavailable, what, version, err, tail(string(b), 30))
	}
	_ = os.RemoveAll(libs)
	if err := os.Rename(out, libs); err != nil {
		return "", err
	}
	if err := os.WriteFile(done, []byte(strings.Join(args, " ")+"\n"+rev+"\n"), 0o644); err != nil {
		return "", err
	}
	return libs, nil
}

// revisions name what a profile's copy must hold, for what is fetched
// into the cache: a marker without it is an older copy, fetched again.
// Change one when pom.xml changes the jars of that kind (and only then:
// replacing jars under running brokers breaks them).
var revisions = map[string]string{
	"kafka":     "",
	"zookeeper": "zookeeper jars revision 2 (metrics-core, snappy-java)",
}

// fetched reports whether the marker file exists and names the revision.
func fetched(marker, rev string) bool {
	b, err := os.ReadFile(marker)
	return err == nil && strings.Contains(string(b), rev)
}

// lock takes an exclusive advisory lock on path, waiting for it.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
