package cluster

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/testvectors"

	"github.com/ktopo/ktopo/assign"
)

// assignmentCases is the part of internal/testkit/testvectors/assignment-cases.json
// this package tests.
type assignmentCases struct {
	BrokerMetadataCases []struct {
		RegisteredBrokers []struct {
			ID   int     `json:"id"`
			Rack *string `json:"rack"`
		} `json:"registeredBrokers"`
		Results []struct {
			Mode          string                                       `json:"mode"`
			BrokerList    []int                                        `json:"brokerList"`
			ExpectedIDs   []int                                        `json:"expectedIds"`
			ExpectedRacks []*string                                    `json:"expectedRacks"`
			ErrorClass    string                                       `json:"errorClass"`
			ErrorMessage  string                                       `json:"errorMessage"`
			CreateTopic   *struct{ Partitions, ReplicationFactor int } `json:"createTopic"`
			ExpectedCount int                                          `json:"expectedPartitionCount"`
		} `json:"results"`
	} `json:"brokerMetadataCases"`
	TopicCreateValidationCases []struct {
		Source            string   `json:"source"`
		ExistingTopics    []string `json:"existingTopics"`
		MarkedForDeletion []string `json:"markedForDeletion"`
		TopicExistsCheck  *bool    `json:"topicExistsCheck"`
		AllTopics         []string `json:"allTopics"`
		Create            string   `json:"create"`
		ErrorClass        string   `json:"errorClass"`
		ErrorMessage      string   `json:"errorMessage"`
	} `json:"topicCreateValidationCases"`
	TopicNameCases struct {
		Valid             []string            `json:"valid"`
		Invalid           []string            `json:"invalid"`
		IllegalChars      []string            `json:"illegalChars"`
		HasCollisionChars map[string][]string `json:"hasCollisionChars"`
		Unify             map[string]string   `json:"unifyCollisionChars"`
		Collide           [][2]string         `json:"collide"`
		DoNotCollide      [][2]string         `json:"doNotCollide"`
	} `json:"topicNameCases"`
	ManualAssignmentValidationCases []struct {
		Source             string           `json:"source"`
		Operation          string           `json:"operation"`
		Assignment         map[string][]int `json:"assignment"`
		Valid              bool             `json:"valid"`
		ErrorClass         string           `json:"errorClass"`
		ErrorMessage       string           `json:"errorMessage"`
		ErrorMessagePrefix string           `json:"errorMessagePrefix"`
		ErrorContains      string           `json:"errorMessageContains"`
	} `json:"manualAssignmentValidationCases"`
}

func loadCases(t *testing.T) assignmentCases {
	t.Helper()
	var c assignmentCases
	if err := json.Unmarshal(testvectors.AssignmentCases, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func wantKafkaErr(t *testing.T, err error, class, msg string) {
	t.Helper()
	var ke *KafkaError
	if !errors.As(err, &ke) {
		t.Fatalf("error %v (%T), want %s %q", err, err, class, msg)
	}
	if ke.Class != class || ke.Message != msg {
		t.Errorf("got %s %q\nwant %s %q", ke.Class, ke.Message, class, msg)
	}
}

func TestTopicNamesFromKafkaTests(t *testing.T) {
	c := loadCases(t).TopicNameCases
	for _, n := range c.Valid {
		if strings.HasPrefix(n, "<any 249") {
			n = strings.Repeat("a.b_c-", 41) + "xyz" // 249 legal chars
		}
		if err := ValidateTopicName(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	for _, n := range c.Invalid {
		if n == "<250 x 'a'>" {
			n = strings.Repeat("a", 250)
		}
		if err := ValidateTopicName(n); ErrorClass(err) != ClassInvalidTopic {
			t.Errorf("%q accepted (%v)", n, err)
		}
	}
	for _, ch := range c.IllegalChars {
		name := "Is" + ch + "illegal"
		wantKafkaErr(t, ValidateTopicName(name), ClassInvalidTopic,
			"Topic name is invalid: '"+name+"' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'")
	}
	for want, names := range c.HasCollisionChars {
		for _, n := range names {
			if strconv.FormatBool(HasCollisionChars(n)) != want {
				t.Errorf("HasCollisionChars(%q) != %s", n, want)
			}
		}
	}
	for in, want := range c.Unify {
		if got := UnifyCollisionChars(in); got != want {
			t.Errorf("Unify(%q) = %q, want %q", in, got, want)
		}
	}
	for _, p := range c.Collide {
		if !TopicsCollide(p[0], p[1]) {
			t.Errorf("%v should collide", p)
		}
	}
	for _, p := range c.DoNotCollide {
		if TopicsCollide(p[0], p[1]) {
			t.Errorf("%v should not collide", p)
		}
	}
}

func TestTopicNameMessages(t *testing.T) {
	long := strings.Repeat("x", 250)
	for _, tc := range []struct{ name, msg string }{
		{"", "Topic name is invalid: the empty string is not allowed"},
		{".", "Topic name is invalid: '.' is not allowed"},
		{"..", "Topic name is invalid: '..' is not allowed"},
		{long, "Topic name is invalid: the length of '" + long + "' is longer than the max allowed length 249"},
		{"bad/name", "Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
		// Length is checked before characters, in UTF-16 units.
		{strings.Repeat("é", 250), "Topic name is invalid: the length of '" + strings.Repeat("é", 250) + "' is longer than the max allowed length 249"},
		{strings.Repeat("😀", 125), "Topic name is invalid: the length of '" + strings.Repeat("😀", 125) + "' is longer than the max allowed length 249"},
		{strings.Repeat("😀", 124), "Topic name is invalid: '" + strings.Repeat("😀", 124) + "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
	} {
		wantKafkaErr(t, ValidateTopicName(tc.name), ClassInvalidTopic, tc.msg)
	}
	if ValidateTopicName("...") != nil || ValidateTopicName(strings.Repeat("x", 249)) != nil {
		t.Error("legal names rejected")
	}
	if !IsInternalTopic("__consumer_offsets") || !IsInternalTopic("__share_group_state") || IsInternalTopic("_x") {
		t.Error("internal topics")
	}
	if !strings.HasPrefix(CollisionWarning, "WARNING: Due to limitations in metric names") {
		t.Error(CollisionWarning)
	}
}

// concurrentTopics reproduces testMockedConcurrentTopicCreation: the
// existence check says no, but the topic list already has the name.
type concurrentTopics struct{ all []string }

func (c concurrentTopics) TopicExists(string) bool       { return false }
func (c concurrentTopics) MarkedForDeletion(string) bool { return false }
func (c concurrentTopics) AllTopics() []string           { return c.all }

func TestTopicCreateValidationFromKafkaTests(t *testing.T) {
	for _, tc := range loadCases(t).TopicCreateValidationCases {
		t.Run(tc.Source, func(t *testing.T) {
			var existing ExistingTopics = NewTopicSet(tc.ExistingTopics, tc.MarkedForDeletion)
			if tc.TopicExistsCheck != nil && !*tc.TopicExistsCheck {
				existing = concurrentTopics{tc.AllTopics}
			}
			err := ValidateTopicCreate(tc.Create, map[int][]int{0: {0}}, nil, existing)
			wantKafkaErr(t, err, tc.ErrorClass, tc.ErrorMessage)
		})
	}
}

func TestManualAssignmentFromKafkaTests(t *testing.T) {
	for _, tc := range loadCases(t).ManualAssignmentValidationCases {
		if tc.Operation != "" && !strings.HasPrefix(tc.Operation, "CreateTopics") {
			continue // add-partitions cases belong to package assign
		}
		a := map[int][]int{}
		for k, v := range tc.Assignment {
			p, _ := strconv.Atoi(k)
			a[p] = v
		}
		err := ValidateTopicCreate("t", a, nil, NewTopicSet(nil, nil))
		switch {
		case tc.Valid:
			if err != nil {
				t.Errorf("%v: %v", a, err)
			}
		case ErrorClass(err) != tc.ErrorClass:
			t.Errorf("%v: %v, want %s", a, err, tc.ErrorClass)
		case tc.ErrorMessage != "" && err.Error() != tc.ErrorMessage,
			tc.ErrorMessagePrefix != "" && !strings.HasPrefix(err.Error(), tc.ErrorMessagePrefix),
			tc.ErrorContains != "" && !strings.Contains(err.Error(), tc.ErrorContains):
			t.Errorf("%v: %q", a, err)
		}
	}
}

func TestTopicCreateOrder(t *testing.T) {
	existing := NewTopicSet([]string{"a.b", "a_b2", "x", "__consumer_offsets", "c.d", "c-d"}, []string{"gone", "x"})
	ok := map[int][]int{0: {1, 2}, 1: {2, 3}}
	for _, tc := range []struct {
		name   string
		assign map[int][]int
		config map[string]string
		class  string
		msg    string
	}{
		// 1 before everything
		{"bad name", nil, map[string]string{"nope": "1"}, ClassInvalidTopic, "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
		// 2 marked for deletion before exists
		{"x", ok, nil, ClassTopicExists, "Topic 'x' is marked for deletion."},
		{"gone", ok, nil, ClassTopicExists, "Topic 'gone' is marked for deletion."},
		// 3 exists
		{"c-d", ok, nil, ClassTopicExists, "Topic 'c-d' already exists."},
		{"__consumer_offsets", ok, nil, ClassTopicExists, "Topic '__consumer_offsets' already exists."},
		// 4 collisions (sorted, comma+space)
		{"a_b", ok, nil, ClassInvalidTopic, "Topic 'a_b' collides with existing topics: a.b"},
		{"c_d", nil, nil, ClassInvalidTopic, "Topic 'c_d' collides with existing topics: c.d"},
		// 5–7 assignment
		{"new", nil, nil, ClassInvalidReplicaAssignment, "All partitions should have the same number of replicas"},
		{"new", map[int][]int{0: {1, 2}, 1: {1}}, nil, ClassInvalidReplicaAssignment, "All partitions should have the same number of replicas"},
		{"new", map[int][]int{0: {1, 1}, 1: {3, 3}}, nil, ClassInvalidReplicaAssignment, "Duplicate replica assignment found: Map(0 -> List(1, 1), 1 -> List(3, 3))"},
		{"new", map[int][]int{1: {1}, 2: {2}}, nil, ClassInvalidReplicaAssignment, "partitions should be a consecutive 0-based integer sequence"},
		// 8 config
		{"new", ok, map[string]string{"retention.ms": "x"}, ClassConfig, "Invalid value x for configuration retention.ms: Not a number of type LONG"},
	} {
		err := ValidateTopicCreate(tc.name, tc.assign, tc.config, existing)
		wantKafkaErr(t, err, tc.class, tc.msg)
	}
	// Negative ids pass the sum test, as in Kafka; unknown brokers are fine.
	if err := ValidateTopicCreate("new", map[int][]int{-3: {7}, 1: {8}, 2: {9}, 3: {10}}, nil, existing); err != nil {
		t.Error(err)
	}
	if err := ValidateTopicCreate("a.c", ok, map[string]string{"cleanup.policy": "compact"}, existing); err != nil {
		t.Error(err)
	}
	// nil ExistingTopics: name, assignment and config only.
	if err := ValidateTopicCreate("x", ok, nil, nil); err != nil {
		t.Error(err)
	}
	wantKafkaErr(t, ValidateTopicNameAvailable("a_b", existing), ClassInvalidTopic, "Topic 'a_b' collides with existing topics: a.b")
	if ValidateTopicNameAvailable("fresh", existing) != nil {
		t.Error("fresh")
	}
	if !errors.Is(ValidateTopicNameAvailable("x", existing), &KafkaError{Class: ClassTopicExists}) {
		t.Error("errors.Is by class")
	}
}

func TestTopicDelete(t *testing.T) {
	existing := NewTopicSet([]string{"a", "b", "__consumer_offsets"}, []string{"b"})
	if err := ValidateTopicDelete("a", existing); err != nil {
		t.Error(err)
	}
	wantKafkaErr(t, ValidateTopicDelete("zz", existing), ClassUnknownTopicOrPartition, "Topic `zz` to delete does not exist")
	wantKafkaErr(t, ValidateTopicDelete("b", existing), ClassTopicAlreadyMarkedForDeletion, "topic b is already marked for deletion")
	wantKafkaErr(t, ValidateTopicDelete("__consumer_offsets", existing), ClassAdminOperation,
		"Topic __consumer_offsets is a kafka internal topic and is not allowed to be marked for deletion.")
	wantKafkaErr(t, ValidateTopicDelete("a", nil), ClassUnknownTopicOrPartition, "Topic `a` to delete does not exist")
	if TopicMarkedForDeletionMessage("a") != "Topic a is marked for deletion." ||
		TopicAlreadyMarkedMessage("a") != "Topic a is already marked for deletion." ||
		DeletionNote != "Note: This will have no impact if delete.topic.enable is not set to true." {
		t.Error("delete messages")
	}
	wantKafkaErr(t, TopicDoesNotExistError("q"), ClassIllegalArgument, "Topic 'q' does not exist as expected")
}

func TestBrokerMetadatasFromKafkaTests(t *testing.T) {
	for _, c := range loadCases(t).BrokerMetadataCases {
		var reg []assign.Broker
		for _, b := range slices.Backward(c.RegisteredBrokers) { // order must not matter
			ab := assign.Broker{ID: b.ID}
			if b.Rack != nil {
				ab.Rack, ab.HasRack = *b.Rack, true
			}
			reg = append(reg, ab)
		}
		for _, r := range c.Results {
			mode := map[string]RackAwareMode{"Enforced": RackAwareEnforced, "Safe": RackAwareSafe, "Disabled": RackAwareDisabled}[r.Mode]
			if mode.String() != r.Mode {
				t.Fatal(r.Mode)
			}
			got, err := BrokerMetadatas(reg, mode, r.BrokerList)
			if r.ErrorClass != "" {
				wantKafkaErr(t, err, r.ErrorClass, r.ErrorMessage)
				continue
			}
			mustNoErr(t, err)
			if r.CreateTopic != nil {
				res, err := assign.Assign(got, r.CreateTopic.Partitions, r.CreateTopic.ReplicationFactor, assign.Fixed(0))
				mustNoErr(t, err)
				if len(res.Assignment) != r.ExpectedCount {
					t.Errorf("%s: %d partitions", r.Mode, len(res.Assignment))
				}
				continue
			}
			var ids []int
			for i, b := range got {
				ids = append(ids, b.ID)
				want := r.ExpectedRacks[i]
				if (want == nil) == b.HasRack || (want != nil && *want != b.Rack) {
					t.Errorf("%s %v: broker %d rack %q/%v", r.Mode, r.BrokerList, b.ID, b.Rack, b.HasRack)
				}
			}
			if !slices.Equal(ids, r.ExpectedIDs) {
				t.Errorf("%s %v: ids %v, want %v", r.Mode, r.BrokerList, ids, r.ExpectedIDs)
			}
		}
	}
	// The input is not modified.
	in := []assign.Broker{assign.BR(2, "a"), assign.BR(1, "b")}
	if _, err := BrokerMetadatas(in, RackAwareDisabled, nil); err != nil || !in[0].HasRack || in[0].ID != 2 {
		t.Error("input modified", in, err)
	}
}

func TestTopicConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		config map[string]string
		class  string
		msg    string
	}{
		{map[string]string{"retention.ms": "86400000", "cleanup.policy": "compact,delete"}, "", ""},
		{map[string]string{"zzz": "1", "aaa": "2"}, ClassInvalidConfiguration, "Unknown topic config name: aaa"},
		{map[string]string{"retention.ms": "-2"}, ClassConfig, "Invalid value -2 for configuration retention.ms: Value must be at least -1"},
		{map[string]string{"segment.bytes": "13"}, ClassConfig, "Invalid value 13 for configuration segment.bytes: Value must be at least 14"},
		{map[string]string{"segment.bytes": " +13 "}, ClassConfig, "Invalid value 13 for configuration segment.bytes: Value must be at least 14"},
		{map[string]string{"segment.bytes": "2147483648"}, ClassConfig, "Invalid value 2147483648 for configuration segment.bytes: Not a number of type INT"},
		{map[string]string{"segment.ms": "1.5"}, ClassConfig, "Invalid value 1.5 for configuration segment.ms: Not a number of type LONG"},
		{map[string]string{"max.message.bytes": " x "}, ClassConfig, "Invalid value  x  for configuration max.message.bytes: Not a number of type INT"},
		{map[string]string{"min.insync.replicas": "0"}, ClassConfig, "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"},
		{map[string]string{"min.insync.replicas": "٣"}, "", ""}, // Java parses Unicode digits
		{map[string]string{"min.cleanable.dirty.ratio": "1.5"}, ClassConfig, "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"},
		{map[string]string{"min.cleanable.dirty.ratio": "2"}, ClassConfig, "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"},
		{map[string]string{"min.cleanable.dirty.ratio": "-1e10"}, ClassConfig, "Invalid value -1.0E10 for configuration min.cleanable.dirty.ratio: Value must be at least 0"},
		{map[string]string{"min.cleanable.dirty.ratio": "0x1p-1"}, "", ""},
		{map[string]string{"min.cleanable.dirty.ratio": ".25f"}, "", ""},
		{map[string]string{"min.cleanable.dirty.ratio": "NaN"}, "", ""},
		{map[string]string{"min.cleanable.dirty.ratio": "half"}, ClassConfig, "Invalid value half for configuration min.cleanable.dirty.ratio: Not a number of type DOUBLE"},
		{map[string]string{"cleanup.policy": "compact, Delete"}, ClassConfig, "Invalid value Delete for configuration cleanup.policy: String must be one of: compact, delete"},
		{map[string]string{"cleanup.policy": "compact,"}, ClassConfig, "Invalid value  for configuration cleanup.policy: String must be one of: compact, delete"},
		{map[string]string{"cleanup.policy": ""}, "", ""},
		{map[string]string{"compression.type": "brotli"}, ClassConfig, "Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"},
		{map[string]string{"compression.type": " zstd "}, "", ""},
		{map[string]string{"compression.gzip.level": "0"}, ClassConfig, "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1"},
		{map[string]string{"compression.gzip.level": "-1"}, "", ""},
		{map[string]string{"compression.zstd.level": "23"}, ClassConfig, "Invalid value 23 for configuration compression.zstd.level: Value must be no more than 22"},
		{map[string]string{"unclean.leader.election.enable": "TRUE"}, "", ""},
		{map[string]string{"unclean.leader.election.enable": "yes"}, ClassConfig, "Invalid value yes for configuration unclean.leader.election.enable: Expected value to be either true or false"},
		{map[string]string{"message.timestamp.type": "createtime"}, ClassConfig, "Invalid value createtime for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime"},
		{map[string]string{"message.format.version": "2.8.1"}, "", ""},
		{map[string]string{"message.format.version": "0.10.0-IV1"}, "", ""},
		{map[string]string{"message.format.version": "3.3-IV3"}, "", ""},
		{map[string]string{"message.format.version": "9.9"}, ClassConfig, "Invalid value 9.9 for configuration message.format.version: Version 9.9 is not a valid version"},
		{map[string]string{"leader.replication.throttled.replicas": "0:1, 1:2"}, "", ""},
		{map[string]string{"leader.replication.throttled.replicas": "*"}, "", ""},
		{map[string]string{"follower.replication.throttled.replicas": "0:x,1:2"}, ClassConfig, "Invalid value [0:x, 1:2] for configuration follower.replication.throttled.replicas: follower.replication.throttled.replicas must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."},
		{map[string]string{"leader.replication.throttled.replicas": "*,0:1"}, ClassConfig, "Invalid value [*, 0:1] for configuration leader.replication.throttled.replicas: leader.replication.throttled.replicas must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."},
		{map[string]string{"min.compaction.lag.ms": "10", "max.compaction.lag.ms": "5"}, ClassInvalidConfiguration, "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"},
		{map[string]string{"max.compaction.lag.ms": "5"}, "", ""},
		{map[string]string{"local.retention.ms": "-2", "remote.storage.enable": "false"}, "", ""},
		// Values are checked in LogConfig's definition order, not by name.
		{map[string]string{"cleanup.policy": "x", "segment.ms": "0"}, ClassConfig, "Invalid value 0 for configuration segment.ms: Value must be at least 1"},
	} {
		err := ValidateTopicConfig(tc.config)
		if tc.class == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.config, err)
			}
			continue
		}
		wantKafkaErr(t, err, tc.class, tc.msg)
	}
	wantKafkaErr(t, ValidateTopicConfigValue("retention.ms", "-5"), ClassConfig, "Invalid value -5 for configuration retention.ms: Value must be at least -1")
	wantKafkaErr(t, ValidateTopicConfigValue("nope", "1"), ClassInvalidConfiguration, "Unknown topic config name: nope")
}

func TestTopicConfigTable(t *testing.T) {
	keys := TopicConfigKeys()
	if len(keys) != 36 {
		t.Errorf("%d keys", len(keys))
	}
	if !slices.IsSortedFunc(keys, func(a, b TopicConfigKey) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("not sorted")
	}
	for _, k := range keys {
		if k.Doc == "" {
			t.Errorf("%s: no doc", k.Name)
		}
		// Every default is itself a valid value (message.format.version too).
		if err := ValidateTopicConfigValue(k.Name, k.Default); err != nil {
			t.Errorf("%s default %q: %v", k.Name, k.Default, err)
		}
	}
	k, ok := LookupTopicConfig("compression.zstd.level")
	if !ok || k.Type != TypeInt || k.Default != "3" || k.Since != "3.8" || k.Type.String() != "int" {
		t.Errorf("%+v", k)
	}
	if _, ok := LookupTopicConfig("log.retention.ms"); ok {
		t.Error("broker key accepted")
	}
	if EffectiveMinISR(map[string]string{"min.insync.replicas": "2"}, 1) != 2 ||
		EffectiveMinISR(map[string]string{"min.insync.replicas": "x"}, 3) != 3 ||
		EffectiveMinISR(nil, 1) != 1 {
		t.Error("EffectiveMinISR")
	}
}

func TestParseConfigArgs(t *testing.T) {
	const bad = `requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".`
	for _, tc := range []struct {
		args []string
		want map[string]string
		msg  string
	}{
		{[]string{"retention.ms=1000", " cleanup.policy = compact "}, map[string]string{"retention.ms": "1000", "cleanup.policy": "compact"}, ""},
		{[]string{"retention.ms=1", "retention.ms=2"}, map[string]string{"retention.ms": "2"}, ""},
		{[]string{"cleanup.policy=compact, delete"}, map[string]string{"cleanup.policy": "compact, delete"}, ""},
		{nil, map[string]string{}, ""},
		{[]string{"retention.ms"}, nil, bad},
		{[]string{"retention.ms="}, nil, bad},
		{[]string{"retention.ms=1=2"}, nil, bad},
		{[]string{"a==b"}, nil, bad},
		{[]string{"="}, nil, bad},
		{[]string{""}, nil, bad},
		{[]string{"ok.not=1", "bad"}, nil, bad}, // format before names
		{[]string{"=1"}, nil, "Unknown topic config name: "},
		{[]string{"retention.ms=abc"}, nil, "Invalid value abc for configuration retention.ms: Not a number of type LONG"},
	} {
		got, err := ParseConfigArgs(tc.args)
		if tc.msg != "" {
			if err == nil || err.Error() != tc.msg {
				t.Errorf("%q: %v, want %q", tc.args, err, tc.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: %v", tc.args, got)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%q: %v", tc.args, got)
			}
		}
	}
	_, err := ParseConfigArgs([]string{"x"})
	if ErrorClass(err) != ClassIllegalArgument {
		t.Error(err)
	}
}

func TestJavaHelpers(t *testing.T) {
	for f, want := range map[float64]string{
		0.5: "0.5", 2: "2.0", 1e7: "1.0E7", 1.5e-4: "1.5E-4", 0.001: "0.001", 1234567.5: "1234567.5",
		-3e10: "-3.0E10", 1e21: "1.0E21", 123456789: "1.23456789E8",
	} {
		if got := javaDoubleString(f); got != want {
			t.Errorf("%v: %s, want %s", f, got, want)
		}
	}
	for s, ok := range map[string]bool{
		"1": true, "-1.5": true, "+.5": true, "1e3": true, "1E-3": true, "1d": true, "2F": true, "Infinity": true,
		"-Infinity": true, "NaN": true, "0x1p3": true, "0X1.8P-2d": true, "1e400": true,
		"": false, ".": false, "e3": false, "1e": false, "inf": false, "nan": false, "0x1": false, "1_0": false, "NaNd": false, "1 ": false,
	} {
		if _, got := javaParseDouble(s); got != ok {
			t.Errorf("javaParseDouble(%q) ok=%v", s, got)
		}
	}
	for _, tc := range []struct {
		in    string
		limit int
		want  []string
	}{
		{"a=b", 0, []string{"a", "b"}},
		{"a = b", 0, []string{"a", "b"}},
		{"=b", 0, []string{"", "b"}},
		{"a=", 0, []string{"a"}},
		{"a==b", 0, []string{"a", "", "b"}},
		{"=", 0, []string{}},
		{"", 0, []string{""}},
		{"ab", 0, []string{"ab"}},
		{"a, b ,c,", -1, []string{"a", "b", "c", ""}},
	} {
		sep := byte('=')
		if tc.limit < 0 {
			sep = ','
		}
		if got := javaRegexSplit(tc.in, sep, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("split %q: %q, want %q", tc.in, got, tc.want)
		}
	}
}
