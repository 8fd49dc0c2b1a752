package cluster

import (
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ktopo/ktopo/assign"
)

// MaxTopicNameLength is Kafka's limit on topic names (Topic.MAX_NAME_LENGTH),
// counted in UTF-16 code units like Java's String.length.
const MaxTopicNameLength = 249

// CollisionWarning is what kafka-topics prints (a warning, not an error) when
// a topic to create has '.' or '_' in its name (spec §2.4).
const CollisionWarning = "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both."

// ConfigWarning returns what kafka-topics prints (a warning, not an error)
// for valid configs it knows to be ignored, or "": setting
// message.format.version (3.x wording; 2.x stops after "in the broker.").
func ConfigWarning(config map[string]string) string {
	v, ok := config["message.format.version"]
	if !ok {
		return ""
	}
	return "WARNING: The configuration message.format.version=" + v + " is specified. " +
		"This configuration will be ignored if the version is newer than the inter.broker.protocol.version specified in the broker " +
		"or if the inter.broker.protocol.version is 3.0 or newer. This configuration is deprecated and it will be removed in Apache Kafka 4.0."
}

// internalTopics are Kafka's internal topics (Topic.isInternal, 3.9).
var internalTopics = [...]string{"__consumer_offsets", "__transaction_state", "__share_group_state"}

// IsInternalTopic reports whether t is one of Kafka's internal topics.
func IsInternalTopic(t string) bool { return slices.Contains(internalTopics[:], t) }

// ValidateTopicName applies Kafka's Topic.validate rules in order (empty,
// "." or "..", longer than 249, illegal characters) and returns an
// InvalidTopicException with the Kafka 3.4–3.9 wording, e.g.
// "Topic name is invalid: 'bad/name' contains one or more characters other
// than ASCII alphanumerics, '.', '_' and '-'".
func ValidateTopicName(name string) error {
	switch {
	case name == "":
		return kafkaErr(ClassInvalidTopic, "Topic name is invalid: the empty string is not allowed")
	case name == "." || name == "..":
		return kafkaErr(ClassInvalidTopic, "Topic name is invalid: '"+name+"' is not allowed")
	case javaLength(name) > MaxTopicNameLength:
		return kafkaErr(ClassInvalidTopic, "Topic name is invalid: the length of '"+name+"' is longer than the max allowed length 249")
	case !legalTopicChars(name):
		return kafkaErr(ClassInvalidTopic, "Topic name is invalid: '"+name+"' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'")
	}
	return nil
}

// javaLength counts UTF-16 code units (each invalid UTF-8 byte counts one).
func javaLength(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

func legalTopicChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// HasCollisionChars reports whether t contains '.' or '_' (Topic.hasCollisionChars).
func HasCollisionChars(t string) bool { return strings.ContainsAny(t, "._") }

// UnifyCollisionChars replaces every '.' with '_' (Topic.unifyCollisionChars).
func UnifyCollisionChars(t string) string { return strings.ReplaceAll(t, ".", "_") }

// TopicsCollide reports whether a and b are equal once '.' and '_' are
// unified (Topic.hasCollision); a topic collides with itself.
func TopicsCollide(a, b string) bool { return UnifyCollisionChars(a) == UnifyCollisionChars(b) }

// ExistingTopics is what topic creation and deletion checks need to know
// about the cluster. *Snapshot implements it; NewTopicSet builds one from
// lists.
type ExistingTopics interface {
	// TopicExists reports whether /brokers/topics/<name> exists.
	TopicExists(name string) bool
	// MarkedForDeletion reports whether /admin/delete_topics/<name> exists.
	MarkedForDeletion(name string) bool
	// AllTopics returns the children of /brokers/topics.
	AllTopics() []string
}

// TopicSet is a fixed ExistingTopics.
type TopicSet struct {
	topics []string
	exists map[string]bool
	marked map[string]bool
}

// NewTopicSet returns an ExistingTopics holding topics, of which
// markedForDeletion have a deletion marker (markers of topics not in topics
// count too, as in ZooKeeper).
func NewTopicSet(topics, markedForDeletion []string) *TopicSet {
	s := &TopicSet{topics: slices.Clone(topics), exists: map[string]bool{}, marked: map[string]bool{}}
	for _, t := range topics {
		s.exists[t] = true
	}
	for _, t := range markedForDeletion {
		s.marked[t] = true
	}
	return s
}

// TopicExists implements ExistingTopics.
func (s *TopicSet) TopicExists(name string) bool { return s.exists[name] }

// MarkedForDeletion implements ExistingTopics.
func (s *TopicSet) MarkedForDeletion(name string) bool { return s.marked[name] }

// AllTopics implements ExistingTopics.
func (s *TopicSet) AllTopics() []string { return s.topics }

// ValidateTopicCreate runs AdminZkClient.validateTopicCreate (spec §2.2) in
// Kafka's order, first failure wins:
//
//  1. the name (ValidateTopicName) → InvalidTopicException;
//  2. a deletion marker exists (Kafka 3.1+) → TopicExistsException "Topic '<t>' is marked for deletion.";
//  3. the topic exists → TopicExistsException "Topic '<t>' already exists.";
//  4. if the name has '.' or '_': the name is among all topics (race guard) →
//     "already exists"; colliding topics → InvalidTopicException
//     "Topic '<t>' collides with existing topics: <a>, <b>" (names sorted);
//     5–7. the assignment checks of assign.ValidateManual (same replica count,
//     no duplicate replica, consecutive 0-based ids with Kafka's sum quirk);
//  8. the config (ValidateTopicConfig).
//
// Broker ids in the assignment are not checked: Kafka does not check them at
// creation either. Errors are *KafkaError.
func ValidateTopicCreate(name string, assignment map[int][]int, config map[string]string, existing ExistingTopics) error {
	if err := ValidateTopicName(name); err != nil {
		return err
	}
	if err := validateTopicNotExisting(name, existing); err != nil {
		return err
	}
	if err := ValidateAssignment(assignment); err != nil {
		return err
	}
	if s, ok := existing.(*Snapshot); ok && s.KRaft() != nil {
		return ValidateKnownTopicConfig(config)
	}
	return ValidateTopicConfig(config)
}

// validateTopicNotExisting is items 2–4 of §2.2.
func validateTopicNotExisting(name string, existing ExistingTopics) error {
	if existing == nil {
		return nil
	}
	if existing.MarkedForDeletion(name) {
		return kafkaErr(ClassTopicExists, "Topic '"+name+"' is marked for deletion.")
	}
	if existing.TopicExists(name) {
		return kafkaErr(ClassTopicExists, "Topic '"+name+"' already exists.")
	}
	if !HasCollisionChars(name) {
		return nil
	}
	all := existing.AllTopics()
	if slices.Contains(all, name) {
		return kafkaErr(ClassTopicExists, "Topic '"+name+"' already exists.")
	}
	var colliding []string
	for _, t := range all {
		if TopicsCollide(name, t) {
			colliding = append(colliding, t)
		}
	}
	if len(colliding) > 0 {
		slices.Sort(colliding)
		return kafkaErr(ClassInvalidTopic, "Topic '"+name+"' collides with existing topics: "+strings.Join(colliding, ", "))
	}
	return nil
}

// ValidateTopicNameAvailable runs items 1–4 of §2.2 only (name rules, deletion
// marker, existence, collisions): what a form can check while the user types
// the name.
func ValidateTopicNameAvailable(name string, existing ExistingTopics) error {
	if err := ValidateTopicName(name); err != nil {
		return err
	}
	return validateTopicNotExisting(name, existing)
}

// ValidateAssignment runs items 5–7 of §2.2 (assign.ValidateManual) and
// returns its error as a *KafkaError. The duplicate-replica message renders
// the map as "Map(0 -> List(0, 0))" with partitions in ascending order
// (Kafka prints the Scala map in hash order; its tests only check the prefix
// "Duplicate replica assignment found: ").
func ValidateAssignment(assignment map[int][]int) error {
	return AsKafkaError(assign.ValidateManual(assign.Assignment(assignment)))
}

// AsKafkaError converts an *assign.Error into a *KafkaError (same class and
// message) so that callers see one error type.
func AsKafkaError(err error) error {
	if err == nil {
		return nil
	}
	var ae *assign.Error
	if errors.As(err, &ae) {
		return kafkaErr(ae.Class, ae.Message)
	}
	return err
}

// Messages kafka-topics prints when marking a topic for deletion (ZooKeeper
// mode, spec §2.5).
const DeletionNote = "Note: This will have no impact if delete.topic.enable is not set to true."

// TopicMarkedForDeletionMessage is "Topic <t> is marked for deletion.".
func TopicMarkedForDeletionMessage(t string) string { return "Topic " + t + " is marked for deletion." }

// TopicAlreadyMarkedMessage is kafka-topics' "Topic <t> is already marked for deletion.".
func TopicAlreadyMarkedMessage(t string) string {
	return "Topic " + t + " is already marked for deletion."
}

// TopicDoesNotExistError is kafka-topics' IllegalArgumentException for a
// --topic that matches nothing: "Topic '<t>' does not exist as expected".
func TopicDoesNotExistError(t string) error {
	return kafkaErr(ClassIllegalArgument, "Topic '"+t+"' does not exist as expected")
}

// ValidateTopicDelete checks a deletion request for topic t (spec §1.7,
// §2.4): the topic must exist (UnknownTopicOrPartitionException
// "Topic `<t>` to delete does not exist"), must not be internal
// (AdminOperationException "Topic <t> is a kafka internal topic and is not
// allowed to be marked for deletion.") and must not be marked already
// (TopicAlreadyMarkedForDeletionException "topic <t> is already marked for
// deletion"; kafka-topics prints TopicAlreadyMarkedMessage instead of failing).
func ValidateTopicDelete(t string, existing ExistingTopics) error {
	if existing == nil || !existing.TopicExists(t) {
		return kafkaErr(ClassUnknownTopicOrPartition, "Topic `"+t+"` to delete does not exist")
	}
	if IsInternalTopic(t) {
		return kafkaErr(ClassAdminOperation, "Topic "+t+" is a kafka internal topic and is not allowed to be marked for deletion.")
	}
	if existing.MarkedForDeletion(t) {
		return kafkaErr(ClassTopicAlreadyMarkedForDeletion, "topic "+t+" is already marked for deletion")
	}
	return nil
}
