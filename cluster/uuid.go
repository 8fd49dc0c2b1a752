package cluster

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"strings"
)

// UUID is a Kafka Uuid (topic id, cluster id): 16 bytes, rendered as
// URL-safe base64 without padding (22 characters).
type UUID [16]byte

// ZeroUUID is Kafka's Uuid.ZERO_UUID ("AAAAAAAAAAAAAAAAAAAAAA"), never a valid topic id.
var ZeroUUID UUID

// MetadataTopicID is Kafka's Uuid.METADATA_TOPIC_ID (0, 1), reserved and
// never handed out as a topic id.
var MetadataTopicID = UUID{15: 1}

// String renders the id as Kafka does (base64url, no padding).
func (u UUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// IsZero reports whether u is the all-zero id.
func (u UUID) IsZero() bool { return u == ZeroUUID }

// ParseUUID parses the 22-character base64url form.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 22 {
		return u, errors.New("invalid UUID " + quoteShort(s) + ": expected 22 base64url characters")
	}
	n, err := base64.RawURLEncoding.Decode(u[:], []byte(s))
	if err != nil || n != 16 {
		return UUID{}, errors.New("invalid UUID " + quoteShort(s) + ": not base64url")
	}
	// Reject non-canonical encodings (trailing bits set) so that
	// ParseUUID(s).String() == s.
	if u.String() != s {
		return UUID{}, errors.New("invalid UUID " + quoteShort(s) + ": non-canonical base64url")
	}
	return u, nil
}

// NewTopicID returns a random topic id the way Kafka 3.x's Uuid.randomUuid
// does: a version-4 UUID, redrawn while it is the zero id, the metadata topic
// id, or its string form starts with '-' (such ids confuse command-line
// parsers). It panics only if the system's random source fails.
func NewTopicID() UUID {
	u, err := NewTopicIDFrom(rand.Reader)
	if err != nil {
		panic("cluster: crypto/rand failed: " + err.Error())
	}
	return u
}

// NewTopicIDFrom is NewTopicID drawing from r (for deterministic tests).
func NewTopicIDFrom(r io.Reader) (UUID, error) {
	for {
		var u UUID
		if _, err := io.ReadFull(r, u[:]); err != nil {
			return ZeroUUID, err
		}
		// java.util.UUID.randomUUID: version 4, IETF variant.
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		if u == ZeroUUID || u == MetadataTopicID || strings.HasPrefix(u.String(), "-") {
			continue
		}
		return u, nil
	}
}

// NewClusterID returns a fresh cluster id for /cluster/id, in the same
// format as a topic id (Kafka: 16 random UUID bytes, base64url, no padding).
func NewClusterID() string { return NewTopicID().String() }

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return "'" + s + "'"
}
