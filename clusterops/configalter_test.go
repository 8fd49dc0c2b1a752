package clusterops

import (
	"maps"
	"slices"
	"testing"

	"github.com/ktopo/ktopo/cluster"
)

// TestParseAddConfig: ConfigCommand's --add-config parser (Java
// String.split with its bracket lookahead, brackets dropped from values).
func TestParseAddConfig(t *testing.T) {
	const format = `requirement failed: Invalid entity config: all configs to be added must be in the format "key=val".`
	for _, tc := range []struct {
		in   string
		want map[string]string
		err  string
	}{
		{in: "retention.ms=1000", want: map[string]string{"retention.ms": "1000"}},
		{in: "a=1,b=2", want: map[string]string{"a": "1", "b": "2"}},
		{in: " a = 1 , b=2 ", want: map[string]string{"a": "1", "b": "2"}},
		{in: "cleanup.policy=[compact,delete],retention.ms=5", want: map[string]string{"cleanup.policy": "compact,delete", "retention.ms": "5"}},
		{in: "k=[a=b,c]", want: map[string]string{"k": "a=b,c"}},
		{in: "k=", want: map[string]string{"k": ""}},
		{in: "a=1,", want: map[string]string{"a": "1"}},
		{in: "a=1,a=2", want: map[string]string{"a": "2"}},
		{in: "k=[x]y]", want: map[string]string{"k": "xy"}},
		{in: "a", err: format},
		{in: "a=b=c", err: format},
		{in: ",a=1", err: format},
		{in: "a=1,,b=2", err: format},
		{in: "", err: format},
		{in: "=1", want: map[string]string{"": "1"}},
		{in: "a b=1", err: "Invalid character found for config key: a b"},
		{in: "é=1", err: "Invalid character found for config key: é"},
	} {
		got, err := cluster.ParseAddConfig(tc.in)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: %v, want error %q", tc.in, err, tc.err)
			}
		case err != nil || !maps.Equal(got, tc.want):
			t.Errorf("%q: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
	if got := cluster.ParseDeleteConfig([]string{"a, b", " c"}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("ParseDeleteConfig: %q", got)
	}
}

// TestPlanTopicConfigAlteration: ConfigCommand's order (deletions of unset
// keys, then the name, existence, LogConfig) and the resulting change.
func TestPlanTopicConfigAlteration(t *testing.T) {
	topics := cluster.NewTopicSet([]string{"t"}, nil)
	cur := []cluster.ConfigEntry{{Key: "retention.ms", Value: "1000"}, {Key: "segment.ms", Value: "60000"}}
	a, err := PlanTopicConfigAlteration("t", cur, 4, map[string]string{"retention.ms": "5", "min.insync.replicas": "2", "segment.ms": "1"},
		[]string{"segment.ms"}, topics)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"retention.ms": "5", "min.insync.replicas": "2"}; !maps.Equal(a.Change.Config, want) ||
		a.Change.Version != 4 || a.Change.Path() != "/config/topics/t" {
		t.Errorf("change %+v", a.Change)
	}
	if !slices.Equal(a.Set, []string{"min.insync.replicas", "retention.ms"}) || !slices.Equal(a.Deleted, []string{"segment.ms"}) {
		t.Errorf("set %v deleted %v", a.Set, a.Deleted)
	}
	for _, tc := range []struct {
		topic string
		add   map[string]string
		del   []string
		want  string
	}{
		{"nope", nil, []string{"x", "retention.ms", "y"}, "Invalid config(s): x,y"},
		{"nope", map[string]string{"retention.ms": "1"}, nil, "Topic 'nope' does not exist."},
		{"bad/t", map[string]string{"retention.ms": "x"}, nil, "Topic name is invalid: 'bad/t' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
		{"t", map[string]string{"retention.ms": "x"}, nil, "Invalid value x for configuration retention.ms: Not a number of type LONG"},
		{"t", map[string]string{"foo": "1"}, nil, "Unknown topic config name: foo"},
	} {
		_, err := PlanTopicConfigAlteration(tc.topic, cur, 0, tc.add, tc.del, topics)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %v %v: %v, want %q", tc.topic, tc.add, tc.del, err, tc.want)
		}
	}
}

func TestEntityDescription(t *testing.T) {
	for _, tc := range [][3]string{
		{cluster.EntityTopics, "orders", "topic 'orders'"},
		{cluster.EntityBrokers, "1", "brokers '1'"},
		{cluster.EntityBrokers, cluster.BrokerDefaultEntity, "default brokers"},
		{cluster.EntityUsers, "alice", "user-principal 'alice'"},
	} {
		if got := EntityDescription(tc[0], tc[1]); got != tc[2] {
			t.Errorf("%s/%s: %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}

func TestAdminEntityDescription(t *testing.T) {
	for _, tc := range [][3]string{
		{cluster.EntityTopics, "orders", "topic orders"},
		{cluster.EntityBrokers, "1", "broker 1"},
		{cluster.EntityBrokers, cluster.BrokerDefaultEntity, "default brokers"},
	} {
		if got := AdminEntityDescription(tc[0], tc[1]); got != tc[2] {
			t.Errorf("%s/%s: %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}
