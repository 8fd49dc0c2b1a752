package kafkawatch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// configEntry is a DescribeConfigs config entry with every field set as
// the arguments say (synonyms and documentation when asked).
func configEntry(name string, value *string, source kmsg.ConfigSource, sensitive, synonyms, doc bool) kmsg.DescribeConfigsResponseResourceConfig {
	c := kmsg.NewDescribeConfigsResponseResourceConfig()
	c.Name, c.Value, c.Source, c.IsSensitive = name, value, source, sensitive
	c.IsDefault = source == sourceDefault
	c.ReadOnly = strings.HasPrefix(name, "ro.")
	c.ConfigType = kmsg.ConfigTypeString
	if synonyms {
		for _, s := range []kmsg.ConfigSource{source, sourceStaticBroker, sourceDefault} {
			syn := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
			syn.Name, syn.Value, syn.Source = "log."+name, value, s
			c.ConfigSynonyms = append(c.ConfigSynonyms, syn)
		}
		nul := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
		nul.Name, nul.Source = "null."+name, sourceDefault
		c.ConfigSynonyms = append(c.ConfigSynonyms, nul)
	}
	if doc {
		c.Documentation = str("What " + name + " does, at length.")
	}
	return c
}

// configsResource is a resource of a DescribeConfigs answer.
func configsResource(name string, code int16, msg *string, configs ...kmsg.DescribeConfigsResponseResourceConfig) kmsg.DescribeConfigsResponseResource {
	r := kmsg.NewDescribeConfigsResponseResource()
	r.ResourceType, r.ResourceName, r.ErrorCode, r.ErrorMessage = kmsg.ConfigResourceTypeTopic, name, code, msg
	r.Configs = configs
	return r
}

// configsAnswers are DescribeConfigs answers of topics covering what an
// answer may hold: overrides (with values and null), every source (and
// some no Kafka has), keys inherited by one topic and at the default or
// set otherwise by the next, sensitive entries, synonyms, documentation,
// errors with and without messages (blank ones, an unknown code, a
// message without an error), a topic without configs, one named twice,
// and the topics in an order other than the request's.
func configsAnswers() (answers []*kmsg.DescribeConfigsResponse, names [][]string) {
	add := func(asked []string, rs ...kmsg.DescribeConfigsResponseResource) {
		resp := kmsg.NewPtrDescribeConfigsResponse()
		resp.ThrottleMillis = int32(len(answers))
		resp.Resources = rs
		answers, names = append(answers, resp), append(names, asked)
	}
	add(nil)
	add([]string{"a"}, configsResource("a", 0, nil))
	for _, syn := range []bool{false, true} {
		for _, doc := range []bool{false, true} {
			e := func(name string, value *string, source kmsg.ConfigSource) kmsg.DescribeConfigsResponseResourceConfig {
				return configEntry(name, value, source, strings.HasPrefix(name, "secret."), syn, doc)
			}
			a := configsResource("a", 0, nil,
				e("cleanup.policy", str("compact"), sourceDynamicTopic),
				e("retention.ms", nil, sourceDynamicTopic),
				e("min.insync.replicas", str("2"), sourceDynamicBroker),
				e("max.message.bytes", str("1048588"), sourceDynamicDefaultBroker),
				e("segment.bytes", str("1073741824"), sourceStaticBroker),
				e("segment.ms", str("604800000"), sourceDefault),
				e("flush.ms", nil, sourceDefault),
				e("secret.key", nil, sourceStaticBroker),
				e("secret.other", nil, sourceDynamicTopic),
				e("unknown.source", str("x"), kmsg.ConfigSourceUnknown),
				e("logger.source", str("x"), kmsg.ConfigSourceDynamicBrokerLoggerConfig),
				e("metrics.source", str("x"), kmsg.ConfigSourceClientMetricsConfig),
				e("group.source", str("x"), kmsg.ConfigSourceGroupConfig),
				e("odd.source", str("x"), 42),
				e("negative.source", str("x"), -1),
				e("", str(""), sourceDynamicDefaultBroker),
				e("ro.unclean", str("false"), sourceDefault),
			)
			// b inherits what a had at the default, and the reverse;
			// changes a set value, keeps another, overrides one a
			// inherited, and names a key twice.
			b := configsResource("b", 0, nil,
				e("segment.ms", str("1000"), sourceDynamicDefaultBroker),
				e("min.insync.replicas", str("1"), sourceDefault),
				e("max.message.bytes", str("2000000"), sourceDynamicBroker),
				e("segment.bytes", str("1073741824"), sourceStaticBroker),
				e("cleanup.policy", str("delete"), sourceDefault),
				e("retention.ms", str("5"), sourceStaticBroker),
				e("segment.bytes", str("1"), sourceDynamicTopic),
				e("segment.bytes", str("2"), sourceDynamicTopic),
				e("flush.ms", str("9"), sourceDynamicBroker),
				e("flush.ms", nil, sourceDynamicBroker),
				e("unicode.värde", str("ünïcødé ✓"), sourceStaticBroker),
			)
			denied := configsResource("denied", kerr.TopicAuthorizationFailed.Code, nil, e("segment.ms", str("7"), sourceDynamicTopic), e("other.key", str("y"), sourceStaticBroker))
			refused := configsResource("refused", kerr.InvalidReplicaAssignment.Code, str("  Not what it was.  "), e("leak", str("z"), sourceDynamicBroker))
			blank := configsResource("blank", kerr.UnknownTopicOrPartition.Code, str("   "))
			unknown := configsResource("unknown-code", 9999, str("what now"))
			fine := configsResource("fine", 0, str("a message without an error"), e("retention.ms", str("1"), sourceDynamicTopic))
			empty := configsResource("empty", 0, nil)
			add([]string{"a", "b", "denied", "refused", "blank", "unknown-code", "fine", "empty"}, a, b, denied, refused, blank, unknown, fine, empty)
			// Out of the request's order, with a topic asked twice and
			// one not asked at all.
			a2 := a
			a2.Configs = slices.Clone(b.Configs)
			add([]string{"b", "a", "a"}, a, denied, a2, configsResource("not-asked", 0, nil, e("k", str("v"), sourceDefault)))
			// Every topic an error: nothing inherited.
			add([]string{"denied", "refused"}, denied, refused)
		}
	}
	return answers, names
}

// readTopicConfigs reads a DescribeConfigs answer of version as the
// poller does.
func readTopicConfigs(version int16, names []string, data []byte) (*topicConfigsResponse, error) {
	req := newTopicConfigsRequest(names)
	req.SetVersion(version)
	r := req.ResponseKind().(*topicConfigsResponse)
	return r, r.ReadFrom(data)
}

// kmsgTopicConfigs reads it as the poller did: kmsg's decoding, taken by
// configPart.read.
func kmsgTopicConfigs(version int16, data []byte) (configPart, *kmsg.DescribeConfigsResponse, error) {
	resp := kmsg.NewPtrDescribeConfigsResponse()
	resp.Version = version
	var part configPart
	if err := resp.ReadFrom(data); err != nil {
		return part, resp, err
	}
	part.read(resp)
	return part, resp, nil
}

// TestTopicConfigsResponse: a DescribeConfigs answer read as bytes gives
// exactly what configPart.read gives of kmsg's decoding, for every
// version (0: IsDefault, no source; 1: sources and synonyms; 3: types
// and documentation; 4: the flexible encoding, read by topicConfigsResponse),
// and every cut of it fails as kmsg fails.
func TestTopicConfigsResponse(t *testing.T) {
	answers, names := configsAnswers()
	for version := int16(0); version <= 4; version++ {
		for i, resp := range answers {
			resp.Version = version
			data := resp.AppendTo(nil)
			want, _, err := kmsgTopicConfigs(version, data)
			if err != nil {
				t.Fatalf("v%d answer %d: kmsg: %v", version, i, err)
			}
			got, err := readTopicConfigs(version, names[i], data)
			if err != nil {
				t.Fatalf("v%d answer %d: %v", version, i, err)
			}
			if !reflect.DeepEqual(got.part, want) {
				t.Fatalf("v%d answer %d:\n got %s\nwant %s", version, i, dumpPart(got.part), dumpPart(want))
			}
			if got.ThrottleMillis != resp.ThrottleMillis || got.Resources != nil {
				t.Fatalf("v%d answer %d: throttle %d, resources %d", version, i, got.ThrottleMillis, len(got.Resources))
			}
			for cut := range data {
				if _, err := readTopicConfigs(version, names[i], data[:cut]); err == nil {
					t.Fatalf("v%d answer %d cut at %d of %d: read", version, i, cut, len(data))
				}
			}
		}
	}
	// The errors are as the poller reported them, and so is a cut
	// answer's.
	resp := answers[2]
	resp.Version = 4
	got, err := readTopicConfigs(4, names[2], resp.AppendTo(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := got.part.configs["denied"].err; !cluster.IsDenied(err) {
		t.Errorf("denied: %v", err)
	}
	if err := got.part.configs["refused"].err; err == nil || err.Error() != "Not what it was. (INVALID_REPLICA_ASSIGNMENT)" {
		t.Errorf("refused: %v", err)
	}
	_, err = readTopicConfigs(4, nil, resp.AppendTo(nil)[:10])
	_, _, kmsgErr := kmsgTopicConfigs(4, resp.AppendTo(nil)[:10])
	if err == nil || !errors.Is(err, kmsgErr) {
		t.Errorf("a cut answer: %v, kmsg's %v", err, kmsgErr)
	}
}

// dumpPart shows a configPart for a failure.
func dumpPart(p configPart) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(p.configs)) {
		fmt.Fprintf(&b, "%q: %+v; ", k, p.configs[k])
	}
	if p.inherited != nil {
		fmt.Fprintf(&b, "set %v unset %v", p.inherited.set, p.inherited.unset)
	}
	return b.String()
}

// TestTopicConfigsResponseAllocations: reading an answer costs no
// allocation a topic that neither overrides nor inherits anything new
// (its name is the request's string; its keys and values are known).
func TestTopicConfigsResponseAllocations(t *testing.T) {
	allocs := func(topics int) float64 {
		names, data := benchTopicConfigs(t, topics, 0)
		return testing.AllocsPerRun(20, func() {
			if _, err := readTopicConfigs(4, names, data); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(250), allocs(1000)
	// The configs map grows with the topics: a few allocations, not one
	// a topic.
	if large-small > 50 {
		t.Fatalf("250 topics: %v allocations, 1000: %v", small, large)
	}
}

// FuzzTopicConfigsResponse: any bytes read as a DescribeConfigs answer
// neither panic nor read what kmsg fails, and give what kmsg's decoding
// gives when kmsg reads them; every cut of an answer kmsg reads fails.
func FuzzTopicConfigsResponse(f *testing.F) {
	answers, names := configsAnswers()
	for i, resp := range answers {
		for _, version := range []int16{3, 4} {
			resp.Version = version
			data := resp.AppendTo(nil)
			f.Add(version, strings.Join(names[i], ","), data)
			f.Add(version, "", data[:len(data)/2])
		}
	}
	f.Fuzz(func(t *testing.T, version int16, asked string, data []byte) {
		version = min(max(version, 0), 4)
		var names []string
		if asked != "" {
			names = strings.Split(asked, ",")
		}
		got, err := readTopicConfigs(version, names, data)
		want, resp, kmsgErr := kmsgTopicConfigs(version, data)
		if (err == nil) != (kmsgErr == nil) {
			t.Fatalf("v%d: error %v, kmsg's %v", version, err, kmsgErr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(got.part, want) {
			t.Fatalf("v%d:\n got %s\nwant %s", version, dumpPart(got.part), dumpPart(want))
		}
		// Some 64 cuts (TestTopicConfigsResponse cuts its answers
		// everywhere): every cut costs a read.
		enc := resp.AppendTo(nil)
		for cut := 0; cut < len(enc); cut += max(1, len(enc)/64) {
			if _, err := readTopicConfigs(version, names, enc[:cut]); err == nil {
				t.Fatalf("v%d: cut at %d of %d read", version, cut, len(enc))
			}
		}
	})
}

// TestTopicConfigsRouting: franz-go sends the request to the broker
// asked, or to any when none is (Client.Request does not shard it as it
// would a kmsg request), at every version; the answer is what the kmsg
// request sent through franz-go's sharding gave.
func TestTopicConfigsRouting(t *testing.T) {
	c, err := kraftsandbox.Start(kraftsandbox.Config{Brokers: 3, Controllers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, maxVersion := range []int16{4, 2} {
		versions := kversion.Stable()
		versions.SetMaxKeyVersion(keyDescribeConfigs, maxVersion)
		cl, err := kgo.NewClient(kgo.SeedBrokers(SplitBootstrap(c.Bootstrap())...), kgo.MaxVersions(versions))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		names := []string{"routed-a", "routed-b", "routed-c"}
		if maxVersion == 4 {
			req := kmsg.NewPtrCreateTopicsRequest()
			for i, n := range names {
				ct := kmsg.NewCreateTopicsRequestTopic()
				ct.Topic, ct.NumPartitions, ct.ReplicationFactor = n, 1, 1
				if i != 1 {
					cc := kmsg.NewCreateTopicsRequestTopicConfig()
					cc.Name, cc.Value = "retention.ms", kmsg.StringPtr(strconv.Itoa(1000*(i+1)))
					ct.Configs = append(ct.Configs, cc)
				}
				req.Topics = append(req.Topics, ct)
			}
			if _, err := req.RequestWith(ctx, cl); err != nil {
				t.Fatal(err)
			}
		}
		meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		// Every broker knows the topics before they are asked about.
		for _, b := range meta.Brokers {
			for {
				part := askTopicConfigs(ctx, cl, 0, b.NodeID, names)
				if part.err == nil && !slices.ContainsFunc(names, func(n string) bool { return part.configs[n].err != nil }) {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("broker %d: %v %s", b.NodeID, part.err, dumpPart(part))
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		old := kmsg.NewPtrDescribeConfigsRequest()
		for _, n := range append(slices.Clone(names), "routed-missing") {
			r := kmsg.NewDescribeConfigsRequestResource()
			r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, n
			old.Resources = append(old.Resources, r)
		}
		resp, err := old.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Version != maxVersion {
			t.Fatalf("answered at v%d, want v%d", resp.Version, maxVersion)
		}
		var want configPart
		want.read(resp)
		want.topics = len(old.Resources)
		if v := want.configs["routed-a"].entries; len(v) != 1 || v[0] != (cluster.ConfigEntry{Key: "retention.ms", Value: "1000"}) {
			t.Fatalf("v%d: routed-a's configs %+v", maxVersion, v)
		}
		brokers := []int32{-1}
		for _, b := range meta.Brokers {
			brokers = append(brokers, b.NodeID)
		}
		for _, b := range brokers {
			got := askTopicConfigs(ctx, cl, 0, b, append(slices.Clone(names), "routed-missing"))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("v%d broker %d:\n got %s\nwant %s", maxVersion, b, dumpPart(got), dumpPart(want))
			}
		}
		// A broker that is not there: any other answers.
		if got := askTopicConfigs(ctx, cl, time.Second, 99, append(slices.Clone(names), "routed-missing")); !reflect.DeepEqual(got, want) {
			t.Fatalf("v%d broker 99:\n got %s (%v)\nwant %s", maxVersion, dumpPart(got), got.err, dumpPart(want))
		}
	}
}

// benchTopicConfigs is an answer of topics as Kafka 4.4 gives ktopo's
// request (no synonyms, no documentation) of its 37 topic configs
// (kraftsandbox/testdata): each at Kafka's default but retention.ms,
// which the cluster's dynamic default sets; every overrideEvery-th topic
// overrides two (0: none does).
func benchTopicConfigs(tb testing.TB, topics, overrideEvery int) ([]string, []byte) {
	f, err := os.Open("../kraftsandbox/testdata/configs-4.4-topic.tsv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	type def struct {
		name string
		typ  kmsg.ConfigType
		def  *string
	}
	var defs []def
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, "\t")
		d := def{name: fs[0]}
		d.typ, _ = kmsg.ParseConfigType(fs[1])
		if fs[2] != `\N` {
			d.def = str(fs[2])
		}
		defs = append(defs, d)
	}
	if len(defs) != 37 {
		tb.Fatalf("%d topic configs", len(defs))
	}
	resp := kmsg.NewPtrDescribeConfigsResponse()
	resp.Version = 4
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("bench-topic-%06d", i)
		r := kmsg.NewDescribeConfigsResponseResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, names[i]
		for _, d := range defs {
			c := kmsg.NewDescribeConfigsResponseResourceConfig()
			c.Name, c.Value, c.Source, c.ConfigType = d.name, d.def, sourceDefault, d.typ
			switch {
			case overrideEvery > 0 && i%overrideEvery == 0 && (d.name == "retention.ms" || d.name == "cleanup.policy"):
				c.Source, c.Value = sourceDynamicTopic, str(fmt.Sprint("compact-or-", i))
			case d.name == "retention.ms":
				c.Source, c.Value = sourceDynamicDefaultBroker, str("86400000")
			}
			r.Configs = append(r.Configs, c)
		}
		resp.Resources = append(resp.Resources, r)
	}
	return names, resp.AppendTo(nil)
}

// BenchmarkTopicConfigsDecode reads a DescribeConfigs answer of 250
// topics (a request's) of 37 configs each, every 10th topic with two
// overrides: as kmsg decodes it and configPart.read takes it (kmsg), and
// as topicConfigsResponse reads it (bytes).
func BenchmarkTopicConfigsDecode(b *testing.B) {
	names, data := benchTopicConfigs(b, configChunk, 10)
	b.Run("kmsg", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := kmsgTopicConfigs(4, data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bytes", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := readTopicConfigs(4, names, data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
