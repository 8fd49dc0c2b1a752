package sandbox

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ktopo/ktopo/cluster"
)

// TestStartupWrites checks what brokers and the first controller write on
// an empty chroot (spec §1.2–1.4).
func TestStartupWrites(t *testing.T) {
	e := newEnv(t, Config{Brokers: 4, Racks: 3})
	for _, p := range cluster.PersistentPaths(true) {
		if n := e.get(p); !n.exists || len(n.data) != 0 || n.version != 0 {
			t.Errorf("%s: exists=%v data=%q version=%d, want an empty node at version 0", p, n.exists, n.data, n.version)
		}
	}
	for _, p := range []string{cluster.BrokersPath, cluster.ConfigPath, cluster.AdminPath, cluster.ClusterPath} {
		if !e.exists(p) {
			t.Errorf("%s missing", p)
		}
	}
	cid := e.get(cluster.ClusterIDPath)
	info, err := cluster.DecodeClusterID(cid.data)
	if err != nil || info.Version != "1" || len(info.ID) != 22 {
		t.Fatalf("/cluster/id = %q (%v)", cid.data, err)
	}
	if got, want := string(cid.data), `{"version":"1","id":"`+info.ID+`"}`; got != want {
		t.Errorf("/cluster/id = %s, want %s", got, want)
	}
	racks := []string{"rack-a", "rack-b", "rack-c", "rack-a"}
	for id := 1; id <= 4; id++ {
		p := cluster.BrokerIDPath(id)
		data, stat, err := e.zk.Get(p)
		if err != nil {
			t.Fatalf("get %s: %v", p, err)
		}
		if stat.Version != 1 || stat.EphemeralOwner == 0 {
			t.Errorf("%s: version %d, ephemeral owner %x; want version 1, ephemeral", p, stat.Version, stat.EphemeralOwner)
		}
		reg, err := cluster.DecodeBroker(data)
		if err != nil {
			t.Fatalf("decode %s: %v", p, err)
		}
		ms, _ := reg.TimestampMillis()
		ep := cluster.BrokerEndpoint{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "localhost", Port: 9092 + id}
		want := cluster.EncodeBroker(cluster.NewBrokerRegistration(5, []cluster.BrokerEndpoint{ep}, -1, racks[id-1], ms, nil))
		if string(data) != string(want) {
			t.Errorf("%s = %s\nwant %s", p, data, want)
		}
		wantJSON := `{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://localhost:` +
			strconv.Itoa(9092+id) + `"],"jmx_port":-1,"port":` + strconv.Itoa(9092+id) + `,"host":"localhost","version":5,"timestamp":"` +
			reg.Timestamp + `","rack":"` + racks[id-1] + `"}`
		if string(data) != wantJSON {
			t.Errorf("%s = %s\nwant %s", p, data, wantJSON)
		}
	}
	ctrl := e.get(cluster.ControllerPath)
	ci, err := cluster.DecodeController(ctrl.data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(ctrl.data), `{"version":2,"brokerid":1,"timestamp":"`+ci.Timestamp+`","kraftControllerEpoch":-1}`; got != want {
		t.Errorf("/controller = %s, want %s", got, want)
	}
	if n := e.get(cluster.ControllerEpochPath); string(n.data) != "1" || n.version != 1 {
		t.Errorf("/controller_epoch = %q v%d, want \"1\" v1", n.data, n.version)
	}
	// /feature is written by the controller's failover, which may still
	// run when Start returns.
	waitFor(t, "/feature", func() (bool, string) {
		n := e.get(cluster.FeaturePath)
		return string(n.data) == `{"version":2,"status":1,"features":{}}` && n.version == 0, fmt.Sprintf("%q v%d", n.data, n.version)
	})
	st, err := e.c.Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Controller != 1 || st.ControllerEpoch != 1 || len(st.Brokers) != 4 || !st.Brokers[0].Controller || st.ClusterID != info.ID {
		t.Errorf("status:\n%s", st)
	}
}
