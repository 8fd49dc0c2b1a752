package zkops

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/clusterops"
)

func TestConfigChangeOps(t *testing.T) {
	ops := ConfigChangeOps(
		clusterops.ConfigChange{EntityType: "topics", Entity: "orders", Config: map[string]string{"retention.ms": "1000", "cleanup.policy": "compact"}, Version: 3},
		clusterops.ConfigChange{EntityType: "brokers", Entity: "<default>", Config: nil, Version: -1},
	)
	if len(ops) != 4 {
		t.Fatalf("%d ops, want 4", len(ops))
	}
	set, ok := ops[0].(*zk.SetDataRequest)
	if !ok || set.Path != "/config/topics/orders" || set.Version != 3 ||
		string(set.Data) != `{"version":1,"config":{"cleanup.policy":"compact","retention.ms":"1000"}}` {
		t.Errorf("op 0: %#v", ops[0])
	}
	note, ok := ops[1].(*zk.CreateRequest)
	if !ok || note.Path != "/config/changes/config_change_" || note.Flags != zk.FlagSequence ||
		string(note.Data) != `{"version":2,"entity_path":"topics/orders"}` {
		t.Errorf("op 1: %#v", ops[1])
	}
	if cr, ok := ops[2].(*zk.CreateRequest); !ok || cr.Path != "/config/brokers/<default>" || string(cr.Data) != `{"version":1,"config":{}}` {
		t.Errorf("op 2: %#v", ops[2])
	}
	if cr, ok := ops[3].(*zk.CreateRequest); !ok || string(cr.Data) != `{"version":2,"entity_path":"brokers/<default>"}` {
		t.Errorf("op 3: %#v", ops[3])
	}
}
