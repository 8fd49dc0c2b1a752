package zkwatch

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseConnectString(t *testing.T) {
	for _, tc := range []struct {
		in      string
		servers []string
		chroot  string
		err     string
	}{
		{in: "127.0.0.1:2181", servers: []string{"127.0.0.1:2181"}},
		{in: "zk1:2181,zk2:2182/kafka", servers: []string{"zk1:2181", "zk2:2182"}, chroot: "/kafka"},
		{in: " zk1 , zk2:1/a/b ", servers: []string{"zk1:2181", "zk2:1"}, chroot: "/a/b"},
		{in: "zk1:2181/", servers: []string{"zk1:2181"}},
		{in: "[::1]:2181/k", servers: []string{"[::1]:2181"}, chroot: "/k"},
		{in: "::1", servers: []string{"[::1]:2181"}},
		{in: "", err: "empty ZooKeeper connect string"},
		{in: "   ", err: "empty ZooKeeper connect string"},
		{in: "/kafka", err: "names no server"},
		{in: "zk1:2181,,zk2:2181", err: "empty server entry"},
		{in: ":2181", err: `server ":2181": empty host`},
		{in: "zk1:abc", err: `server "zk1:abc": bad port "abc"`},
		{in: "zk1:0", err: `bad port "0"`},
		{in: "zk1:65536", err: `bad port "65536"`},
		{in: "zk1:", err: `bad port ""`},
		{in: "zk1:2181/kafka/", err: "invalid chroot"},
		{in: "zk1:2181/ka//fka", err: "empty node name"},
		{in: "zk1:2181/a/../b", err: "relative node name"},
	} {
		cs, err := ParseConnectString(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(cs.Servers, tc.servers) || cs.Chroot != tc.chroot {
			t.Errorf("%q: got %q %q, want %q %q", tc.in, cs.Servers, cs.Chroot, tc.servers, tc.chroot)
		}
	}
}

func TestChrootPaths(t *testing.T) {
	c := &Conn{chroot: "/kafka"}
	for in, want := range map[string]string{"/": "/kafka", "/brokers/ids": "/kafka/brokers/ids"} {
		got, err := c.full(in)
		if err != nil || got != want {
			t.Errorf("full(%q) = %q, %v; want %q", in, got, err, want)
		}
		if back := c.strip(got); back != in {
			t.Errorf("strip(%q) = %q, want %q", got, back, in)
		}
	}
	for _, bad := range []string{"", "brokers", "kafka"} {
		if _, err := c.full(bad); err == nil {
			t.Errorf("full(%q) accepted", bad)
		}
	}
	// A sibling sharing the prefix is not inside the chroot.
	if got := c.strip("/kafka2/x"); got != "/kafka2/x" {
		t.Errorf("strip(/kafka2/x) = %q", got)
	}
}
