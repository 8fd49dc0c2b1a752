package render

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// TestDescribeJSONStreamed: the topic-at-a-time output is byte for byte
// what encoding the whole document at once gives, filtered or not.
func TestDescribeJSONStreamed(t *testing.T) {
	s := fixture.Small().Model().Snapshot()
	for _, tc := range []struct {
		pattern string
		d       DescribeFilter
		topics  int
	}{
		{"", DescribeFilter{}, 6},
		{"orders|payments", DescribeFilter{}, 2},
		{"", DescribeFilter{UnderReplicated: true}, 5}, // all but legacy (broker 6 down, 9 never registered, shrunk ISRs)
		{"no-such-topic", DescribeFilter{}, 0},
	} {
		f, err := cluster.NewTopicFilter(tc.pattern, false)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteDescribeJSON(&got, s, f, tc.d); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Topics []describeJSON `json:"topics"`
		}
		if err := json.Unmarshal(got.Bytes(), &doc); err != nil {
			t.Fatalf("%q: %v\n%s", tc.pattern, err, got.String())
		}
		if doc.Topics == nil {
			doc.Topics = []describeJSON{}
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(doc); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("%q %+v:\n%s\nwant\n%s", tc.pattern, tc.d, got.String(), want.String())
		}
		if len(doc.Topics) != tc.topics {
			t.Errorf("%q %+v: %d topics, want %d", tc.pattern, tc.d, len(doc.Topics), tc.topics)
		}
	}
}
