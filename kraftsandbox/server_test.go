package kraftsandbox

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// frame is req as a client sends it: size, header (client id "fuzz"),
// body.
func frame(req kmsg.Request, corr int32) []byte {
	return kmsg.NewRequestFormatter(kmsg.FormatterClientID("fuzz")).AppendRequest(nil, req, corr)
}

// exchange writes raw bytes to a broker's listener and reads one
// response frame; closed reports that the sandbox closed the connection
// instead.
func exchange(t *testing.T, addr string, raw []byte) (body []byte, closed bool) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(raw); err != nil {
		return nil, true
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("no answer and the connection stayed open")
		}
		return nil, true
	}
	body = make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(conn, body); err != nil {
		t.Fatal(err)
	}
	return body, false
}

func TestWireRefusals(t *testing.T) {
	c := startTest(t, Config{Brokers: 1, Controllers: 1})
	addr := c.brokers[0].n.addr()

	// An ApiVersions of a version the broker does not know: version 0,
	// UNSUPPORTED_VERSION and the versions of ApiVersions it serves.
	av := kmsg.NewPtrApiVersionsRequest()
	raw := frame(av, 7)
	binary.BigEndian.PutUint16(raw[6:], 99) // the header's api version
	body, closed := exchange(t, addr, raw)
	if closed {
		t.Fatal("ApiVersions v99: connection closed, want an UNSUPPORTED_VERSION answer")
	}
	rd := kbin.Reader{Src: body}
	if corr := rd.Int32(); corr != 7 {
		t.Errorf("correlation id %d, want 7", corr)
	}
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 0
	if err := resp.ReadFrom(rd.Src); err != nil {
		t.Fatal(err)
	}
	if resp.ErrorCode != 35 || len(resp.ApiKeys) != 1 || resp.ApiKeys[0].ApiKey != 18 || resp.ApiKeys[0].MaxVersion != 5 {
		t.Errorf("ApiVersions v99: error %d, keys %+v; want 35 and ApiVersions' versions alone", resp.ErrorCode, resp.ApiKeys)
	}

	cases := map[string][]byte{
		"a Metadata version Kafka 4.4 does not serve": func() []byte {
			raw := frame(kmsg.NewPtrMetadataRequest(), 1)
			binary.BigEndian.PutUint16(raw[6:], 14)
			return raw
		}(),
		"an API key no broker serves": func() []byte {
			raw := frame(kmsg.NewPtrMetadataRequest(), 1)
			binary.BigEndian.PutUint16(raw[4:], 52) // Vote: controllers only
			return raw
		}(),
		"an unknown API key": func() []byte {
			raw := frame(kmsg.NewPtrMetadataRequest(), 1)
			binary.BigEndian.PutUint16(raw[4:], 999)
			return raw
		}(),
		"a frame over socket.request.max.bytes": {0x7f, 0xff, 0xff, 0xff, 0, 3},
		"a negative frame size":                 {0xff, 0xff, 0xff, 0xf0},
		"a truncated header":                    {0, 0, 0, 8, 0, 3, 0, 12, 0, 0, 0, 1},
		"a body that does not decode": func() []byte {
			raw := frame(kmsg.NewPtrCreateTopicsRequest(), 1)[:14]
			raw = append(raw, 0xff, 0xff, 0xff, 0x7f)
			binary.BigEndian.PutUint32(raw, uint32(len(raw)-4))
			return raw
		}(),
	}
	for name, raw := range cases {
		if _, closed := exchange(t, addr, raw); !closed {
			t.Errorf("%s: answered, want the connection closed", name)
		}
	}
	// The broker still serves.
	if _, closed := exchange(t, addr, frame(kmsg.NewPtrMetadataRequest(), 2)); closed {
		t.Fatal("the broker stopped answering after bad input")
	}
}

// FuzzHandle feeds arbitrary request frames (seeded with a well-formed
// request of every API a broker serves, at its oldest and newest
// version) to a broker's request handling: whatever the bytes, it
// answers or refuses, never panics.
func FuzzHandle(f *testing.F) {
	c := startTest(f, Config{Brokers: 3, Controllers: 1, DemoTopics: true, Tick: time.Hour})
	for key := int16(0); key <= kmsg.MaxKey; key++ {
		r, ok := c.served(false, key)
		if !ok {
			continue
		}
		for _, v := range []int16{r.min, r.max} {
			req := kmsg.RequestForKey(key)
			req.SetVersion(v)
			f.Add(frame(req, 1)[4:])
		}
	}
	n := c.brokers[0].n
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, _, err := c.handle(n, body)
		if err == nil && resp != nil {
			resp.AppendTo(nil)
		}
	})
}
