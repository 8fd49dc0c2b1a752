package overview

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// TestKRaftControllerBadge: once a KRaft controller has taken the cluster
// over (a ZooKeeper to KRaft migration), the controller badge names it,
// with its KRaft epoch, not as a broker.
func TestKRaftControllerBadge(t *testing.T) {
	spec := fixture.Small()
	model := spec.Model()
	model.Apply([]cluster.NodeEvent{{Type: cluster.NodeChanged, Path: cluster.ControllerPath,
		Data: cluster.EncodeController(cluster.ControllerInfo{Version: 2, BrokerID: 3000, Timestamp: "1", KRaftControllerEpoch: 1}),
		Stat: cluster.Stat{Czxid: 1 << 40, Mzxid: 1 << 40}}}, false)
	m := newScreen(spec, 120, 30)
	m.SetSnapshot(model.Snapshot())
	head := strings.Split(ansi.Strip(m.View()), "\n")[0]
	if !strings.Contains(head, "KRaft controller 3000 (epoch 1)") {
		t.Fatalf("header: %s", head)
	}
}
