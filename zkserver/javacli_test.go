package zkserver_test

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/zkserver"
)

// javaCLI returns the command prefix that runs the Java client's
// ZooKeeperMain (zkCli.sh without its wrapper), or skips the test.
func javaCLI(t *testing.T) []string {
	t.Helper()
	java, err := exec.LookPath("java")
	jar := "/usr/share/java/zookeeper.jar"
	_, jerr := os.Stat(jar)
	if err != nil || jerr != nil {
		msg := "skipping: the Java ZooKeeper client is not installed (java on PATH and " + jar + "; apt-get install zookeeper)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " and CI=true")
		}
		t.Skip(msg)
	}
	cp := jar
	if _, err := os.Stat("/usr/share/java/slf4j-nop.jar"); err == nil {
		cp += ":/usr/share/java/slf4j-nop.jar"
	}
	return []string{java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", cp, "org.apache.zookeeper.ZooKeeperMain"}
}

// runCLI feeds a script to ZooKeeperMain on stdin and returns its output.
func runCLI(t *testing.T, cli []string, addr, script string) string {
	t.Helper()
	args := append(append([]string{}, cli[1:]...), "-server", addr)
	cmd := exec.Command(cli[0], args...)
	cmd.Stdin = strings.NewReader(script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ZooKeeperMain: %v\n%s", err, out.String())
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("ZooKeeperMain did not finish in 60s:\n%s", out.String())
	}
	return out.String()
}

var (
	cliTime    = regexp.MustCompile(`(?m)^([cm]time) = .*$`)
	cliOwner   = regexp.MustCompile(`(?m)^ephemeralOwner = 0x[0-9a-f]*[1-9a-f][0-9a-f]*$`)
	cliWatcher = regexp.MustCompile(`(?m)^(WATCHER::|WatchedEvent .*|Connecting to .*)$\n?`)
)

// normaliseCLI drops what differs between runs: times, session ids, the
// asynchronous connection event.
func normaliseCLI(s string) string {
	s = cliTime.ReplaceAllString(s, "$1 = <time>")
	s = cliOwner.ReplaceAllString(s, "ephemeralOwner = <session>")
	s = cliWatcher.ReplaceAllString(s, "")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// zkCliScript is a zkCli.sh session touching every command an operator uses.
const zkCliScript = `create /zkcli "hello"
create -e /zkcli/eph "e"
create -s /zkcli/seq- "s"
create -s -e /zkcli/eseq- "s"
create -c /zkcli/cont
create -t 1000 /zkcli/ttl
create /zkcli/bad/child
create /zkcli/
ls /zkcli
ls -s /zkcli
ls -R /zkcli
get /zkcli
get -s /zkcli
get /zkcli/missing
set /zkcli "world"
set -s /zkcli "again"
set -v 5 /zkcli "x"
stat /zkcli
stat /zkcli/eph
getAcl /
getAcl /zookeeper/config
setAcl /zkcli world:anyone:cdrwa
setAcl -s /zkcli world:anyone:cdrwa
setAcl /zkcli nope:x:r
addauth digest alice:secret
create /zkcli/sec "s" auth::cdrwa
getAcl /zkcli/sec
create /zkcli/dig "d" digest:bob:u8YPhsXSyYLYdh3mxYDB1hMnZ7w=:r
get /zkcli/dig
set /zkcli/dig "no"
getAcl /zkcli/dig
whoami
getEphemerals
getEphemerals /zkcli/e
getAllChildrenNumber /zkcli
getAllChildrenNumber /
sync /zkcli
version
delete /zkcli/seq-0000000001
delete /zkcli/nope
delete -v 9 /zkcli/cont
delete /zkcli
create /zkcli
set /zookeeper/config "x"
create /zookeeper/extra
ls /zookeeper
delete /zookeeper/extra
deleteall /zkcli
ls /
stat /
`

// TestZkCliSession runs the same zkCli session with the Java client against
// a fresh Apache ZooKeeper and a fresh embedded server and compares the
// normalised output line by line.
func TestZkCliSession(t *testing.T) {
	cli := javaCLI(t)
	emb, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	embOut := normaliseCLI(runCLI(t, cli, emb.Addr(), zkCliScript))
	for _, want := range []string{"Created /zkcli/seq-0000000001", "KeeperErrorCode = Unimplemented for /zkcli/ttl", "'digest,'alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=", "[config, extra, quota]"} {
		if !strings.Contains(embOut, want) {
			t.Errorf("embedded output lacks %q:\n%s", want, embOut)
		}
	}
	if !apacheAvailable() {
		t.Logf("Apache ZooKeeper not installed: checked the embedded output only")
		return
	}
	apache := startApache(t)
	apacheOut := normaliseCLI(runCLI(t, cli, apache, zkCliScript))
	a, e := strings.Split(apacheOut, "\n"), strings.Split(embOut, "\n")
	compareLogs(t, a, e)
	if t.Failed() {
		t.Logf("apache output:\n%s\n\nembedded output:\n%s", apacheOut, embOut)
	}
}
