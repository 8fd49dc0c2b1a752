package proto

// Opcodes (spec §5).
const (
	OpNotify               = 0
	OpCreate               = 1
	OpDelete               = 2
	OpExists               = 3
	OpGetData              = 4
	OpSetData              = 5
	OpGetACL               = 6
	OpSetACL               = 7
	OpGetChildren          = 8
	OpSync                 = 9
	OpPing                 = 11
	OpGetChildren2         = 12
	OpCheck                = 13
	OpMulti                = 14
	OpCreate2              = 15
	OpReconfig             = 16
	OpCheckWatches         = 17
	OpRemoveWatches        = 18
	OpCreateContainer      = 19
	OpDeleteContainer      = 20
	OpCreateTTL            = 21
	OpMultiRead            = 22
	OpAuth                 = 100
	OpSetWatches           = 101
	OpSASL                 = 102
	OpGetEphemerals        = 103
	OpGetAllChildrenNumber = 104
	OpSetWatches2          = 105
	OpAddWatch             = 106
	OpWhoAmI               = 107
	OpCreateSession        = -10
	OpCloseSession         = -11
	OpError                = -1
)

// Error codes (spec §14).
const (
	ErrOK                      = 0
	ErrRuntimeInconsistency    = -2
	ErrMarshalling             = -5
	ErrUnimplemented           = -6
	ErrBadArguments            = -8
	ErrNoNode                  = -101
	ErrNoAuth                  = -102
	ErrBadVersion              = -103
	ErrNoChildrenForEphemerals = -108
	ErrNodeExists              = -110
	ErrNotEmpty                = -111
	ErrSessionExpired          = -112
	ErrInvalidACL              = -114
	ErrAuthFailed              = -115
	ErrNoWatcher               = -121
	ErrReconfigDisabled        = -123
)

// Special xids (spec §4).
const (
	XidNotification = -1
	XidPing         = -2
	XidAuth         = -4
	XidSetWatches   = -8
)

// Watch event types (spec §10.3).
const (
	EventNodeCreated         = 1
	EventNodeDeleted         = 2
	EventNodeDataChanged     = 3
	EventNodeChildrenChanged = 4
)

// StateSyncConnected is the only keeper state a server puts on the wire.
const StateSyncConnected = 3

// ACL permission bits (spec §13.4).
const (
	PermRead   = 1
	PermWrite  = 2
	PermCreate = 4
	PermDelete = 8
	PermAdmin  = 16
	PermAll    = 31
)

// ACL is one access control entry.
type ACL struct {
	Perms  int32
	Scheme string
	ID     string
}

// Stat is a znode's metadata as clients see it.
type Stat struct {
	Czxid          int64
	Mzxid          int64
	Ctime          int64
	Mtime          int64
	Version        int32
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64
	DataLength     int32
	NumChildren    int32
	Pzxid          int64
}

// ConnectRequest opens or re-attaches a session.
type ConnectRequest struct {
	ProtocolVersion int32
	LastZxidSeen    int64
	TimeOut         int32
	SessionID       int64
	Passwd          []byte
	ReadOnly        bool
	HasReadOnly     bool // the request carried the optional readOnly byte
}

// DecodeConnectRequest decodes a ConnectRequest payload (44 or 45 bytes and
// more for longer passwords).
func DecodeConnectRequest(b []byte) (ConnectRequest, error) {
	d := NewDecoder(b)
	var r ConnectRequest
	r.ProtocolVersion = d.Int()
	r.LastZxidSeen = d.Long()
	r.TimeOut = d.Int()
	r.SessionID = d.Long()
	r.Passwd = d.Buffer()
	if d.Remaining() > 0 {
		r.ReadOnly = d.Bool()
		r.HasReadOnly = true
	}
	return r, d.Err()
}

// Encode appends the request as its jute record (no frame length).
func (r *ConnectRequest) Encode(e *Encoder) {
	e.Int(r.ProtocolVersion)
	e.Long(r.LastZxidSeen)
	e.Int(r.TimeOut)
	e.Long(r.SessionID)
	e.Buffer(r.Passwd)
	if r.HasReadOnly {
		e.Bool(r.ReadOnly)
	}
}

// MultiHeader precedes every op in a multi request and every result in a
// multi response.
type MultiHeader struct {
	Type int32
	Done bool
	Err  int32
}
