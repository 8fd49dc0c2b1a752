package zkserver_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
)

// TestKafkaTree runs the same single-broker Kafka session on Apache
// ZooKeeper and on the embedded server: start (registration, controller
// election, cluster id, feature znode), two topics created, a topic config
// changed (a sequential change notification), ACLs added and removed
// through the ACL authorizer (versioned updates, sequential notifications),
// a topic deleted. Afterwards
// both trees must be the same znode for znode: names, data (ids, times and
// ports masked), version, cversion, aversion, children and ephemeral
// ownership. The Kafka 3.9 cluster on "ktopo sandbox --empty" (cmd)
// checks failover; this checks that every write Kafka makes lands as on
// the real server.
func TestKafkaTree(t *testing.T) {
	if testing.Short() {
		t.Skip("two Kafka starts per version: outside -short")
	}
	if !apacheAvailable() {
		t.Skip("needs Apache ZooKeeper to compare with")
	}
	for _, v := range []string{kafkatest.Kafka39, kafkatest.Kafka28} {
		t.Run(v, func(t *testing.T) {
			kafkatest.Require(t, v)
			apache := kafkaSession(t, v, zktest.Addr(t), zktest.ChrootPath("kafkatree"))
			emb := startEmbedded(t, zkserver.Config{})
			embedded := kafkaSession(t, v, emb.Addr(), "/kafka")
			if apache != embedded {
				a, e := strings.Split(apache, "\n"), strings.Split(embedded, "\n")
				for i := range max(len(a), len(e)) {
					if i >= len(a) || i >= len(e) || a[i] != e[i] {
						t.Errorf("trees differ at line %d:\n  apache:   %s\n  embedded: %s", i+1, at(a, i), at(e, i))
					}
				}
			}
			t.Logf("tree (%d znodes):\n%s", strings.Count(embedded, "\n")+1, embedded)
		})
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}

// kafkaSession runs one broker on addr+chroot through the steps of
// TestKafkaTree and returns the normalised tree under the chroot.
func kafkaSession(t *testing.T, version, addr, chroot string) string {
	t.Helper()
	c, err := kafkatest.Start(kafkatest.Options{Version: version, Connect: addr + chroot, Brokers: 1, Racks: -1,
		// The ACL authorizer keeps ACLs in ZooKeeper (versioned setData,
		// sequential change notifications); PLAINTEXT clients are ANONYMOUS.
		Props: map[string]string{"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:ANONYMOUS"}})
	if err != nil {
		t.Fatal(err)
	}
	kafkatest.Attach(t, c)
	defer c.Stop()
	conn := zktest.Connect(t, addr)
	topics := func(args ...string) {
		t.Helper()
		if res, err := c.Topics(args...); err != nil || res.Code != 0 {
			t.Fatalf("kafka-topics %v: %v %+v", args, err, res)
		}
	}
	topics("--create", "--topic", "kept", "--replica-assignment", "1,1")
	topics("--create", "--topic", "doomed", "--replica-assignment", "1")
	for _, p := range []string{"/brokers/topics/kept/partitions/1/state", "/brokers/topics/doomed/partitions/0/state"} {
		waitZnode(t, conn, chroot+p, true)
	}
	via := []string{"--bootstrap-server", c.Bootstrap()}
	if strings.HasPrefix(version, "2.") {
		via = []string{"--zookeeper", c.Connect()}
	}
	res, err := c.Dist().Run("kafka.admin.ConfigCommand", append(via, "--alter", "--entity-type", "topics", "--entity-name", "kept",
		"--add-config", "retention.ms=86400000")...)
	if err != nil || res.Code != 0 {
		t.Fatalf("kafka-configs: %v %+v", err, res)
	}
	for _, args := range [][]string{
		{"--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "kept"},
		{"--add", "--allow-principal", "User:bob", "--operation", "Read", "--topic", "kept"},
		{"--remove", "--force", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "kept"},
	} {
		if res, err := c.Dist().Run("kafka.admin.AclCommand", append([]string{"--bootstrap-server", c.Bootstrap()}, args...)...); err != nil || res.Code != 0 {
			t.Fatalf("kafka-acls %v: %v %+v", args, err, res)
		}
	}
	topics("--delete", "--topic", "doomed")
	waitZnode(t, conn, chroot+"/brokers/topics/doomed", false)
	waitZnode(t, conn, chroot+"/admin/delete_topics/doomed", false)
	return normalisedTree(t, conn, chroot)
}

func waitZnode(t *testing.T, conn *zk.Conn, path string, present bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, _, err := conn.Exists(path)
		if err == nil && ok == present {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: present=%v after 60s, want %v (%v)", path, ok, present, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// masks replace what differs from run to run in Kafka's znodes.
var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"timestamp":"\d+"`), `"timestamp":"T"`},
	{regexp.MustCompile(`"(topic_id|id)":"[A-Za-z0-9_-]{22}"`), `"$1":"ID"`},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), `127.0.0.1:PORT`},
	{regexp.MustCompile(`"port":\d+`), `"port":PORT`},
}

// normalisedTree lists every znode under root, sorted, one per line.
func normalisedTree(t *testing.T, conn *zk.Conn, root string) string {
	t.Helper()
	var lines []string
	var walk func(p string)
	walk = func(p string) {
		data, st, err := conn.Get(p)
		if err != nil {
			t.Fatalf("get %s: %v", p, err)
		}
		d := string(data)
		for _, m := range masks {
			d = m.re.ReplaceAllString(d, m.with)
		}
		kind := "persistent"
		if st.EphemeralOwner != 0 {
			kind = "ephemeral"
		}
		lines = append(lines, fmt.Sprintf("%s %s v=%d cv=%d av=%d nc=%d %q", strings.TrimPrefix(p, root), kind,
			st.Version, st.Cversion, st.Aversion, st.NumChildren, d))
		kids, _, err := conn.Children(p)
		if err != nil {
			t.Fatalf("children %s: %v", p, err)
		}
		slices.Sort(kids)
		for _, k := range kids {
			walk(p + "/" + k)
		}
	}
	walk(root)
	return strings.Join(lines, "\n")
}
