package kraftsandbox

import (
	"context"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDescribeConfigsSharedEntries checks that the topics of one
// DescribeConfigs without overrides (whose entries are built once a
// request) are described as each alone is: beside a topic with
// overrides and one asked for some configs only.
func TestDescribeConfigsSharedEntries(t *testing.T) {
	c := startTest(t, Config{})
	if err := c.CreateTopicsBulk("s-", 4, 1, 3); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.topics["s-00001"].configs["retention.ms"] = "1000"
	c.mu.Unlock()
	cl := client(t, c)
	ctx := context.Background()
	describe := func(rs ...kmsg.DescribeConfigsRequestResource) []kmsg.DescribeConfigsResponseResource {
		t.Helper()
		req := kmsg.NewPtrDescribeConfigsRequest()
		req.Resources, req.IncludeSynonyms = rs, true
		resp, err := req.RequestWith(ctx, cl.Broker(1))
		if err != nil {
			t.Fatal(err)
		}
		return resp.Resources
	}
	res := func(name string, only ...string) kmsg.DescribeConfigsRequestResource {
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, name
		if only != nil {
			r.ConfigNames = only
		}
		return r
	}
	asked := []kmsg.DescribeConfigsRequestResource{res("s-00000"), res("s-00001"), res("s-00002", "retention.ms", "cleanup.policy"), res("s-00003")}
	together := describe(asked...)
	if len(together) != len(asked) {
		t.Fatalf("%d resources, want %d", len(together), len(asked))
	}
	for i, r := range asked {
		alone := describe(r)[0]
		if !reflect.DeepEqual(together[i], alone) {
			t.Errorf("%s described with others differs from alone:\n%+v\nwant\n%+v", r.ResourceName, together[i], alone)
		}
	}
	if n := len(together[2].Configs); n != 2 {
		t.Errorf("s-00002 asked for 2 configs: %d", n)
	}
	if n, m := len(together[0].Configs), len(together[3].Configs); n < 30 || n != m {
		t.Errorf("topics without overrides: %d and %d configs", n, m)
	}
}
