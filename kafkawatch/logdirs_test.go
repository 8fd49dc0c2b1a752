package kafkawatch

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// variedLogDirs is a broker's answer at version v with some of everything
// an answer holds: several directories (one failed, one empty), topics
// without partitions, future replicas, offset lags, sizes of every
// magnitude, partitions out of order and with gaps.
func variedLogDirs(v int16) *kmsg.DescribeLogDirsResponse {
	r := kmsg.NewPtrDescribeLogDirsResponse()
	r.Version, r.ThrottleMillis = v, 7
	for d := range 4 {
		dir := kmsg.NewDescribeLogDirsResponseDir()
		dir.Dir, dir.TotalBytes, dir.UsableBytes = fmt.Sprintf("/data/%d", d), int64(d+1)<<40, int64(d)<<39
		dir.IsCordoned = d == 2
		switch d {
		case 1:
			dir.ErrorCode = kerr.KafkaStorageError.Code
		case 3:
			r.Dirs = append(r.Dirs, dir) // no topic
			continue
		}
		for t := range 5 {
			dt := kmsg.NewDescribeLogDirsResponseDirTopic()
			dt.Topic = fmt.Sprintf("t%d", (t+d)%6)
			for _, p := range []int32{3, 0, 1, 7}[:t%5] {
				dp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
				dp.Partition = p
				dp.Size = int64(t+1) << (8 * (int(p) % 6))
				dp.OffsetLag = int64(p * int32(d))
				dp.IsFuture = d == 2 && p == 1
				dt.Partitions = append(dt.Partitions, dp)
			}
			dir.Topics = append(dir.Topics, dt)
		}
		r.Dirs = append(r.Dirs, dir)
	}
	return r
}

// kmsgLogDirs reads an answer with kmsg, as the reading did before it
// read the bytes itself.
func kmsgLogDirs(v int16, raw []byte) (*logDirsResponse, error) {
	k := kmsg.NewPtrDescribeLogDirsResponse()
	k.Version = v
	if err := k.ReadFrom(raw); err != nil {
		return nil, err
	}
	r := &logDirsResponse{DescribeLogDirsResponse: *k}
	r.dirs = logDirsOf(k, &r.reps)
	r.Dirs = nil
	return r, nil
}

// sameLogDirs reports whether two readings of an answer agree (an empty
// list as one of none; kmsg's unknown tags aside).
func sameLogDirs(a, b *logDirsResponse) bool {
	return a.Version == b.Version && a.ThrottleMillis == b.ThrottleMillis && a.ErrorCode == b.ErrorCode &&
		len(a.Dirs) == 0 && len(b.Dirs) == 0 &&
		(len(a.dirs) == 0 && len(b.dirs) == 0 || reflect.DeepEqual(a.dirs, b.dirs)) && reflect.DeepEqual(a.reps, b.reps)
}

// leanLogDirs reads an answer as a reading does.
func leanLogDirs(v int16, raw []byte) (*logDirsResponse, error) {
	req := logDirsRequest{kmsg.NewPtrDescribeLogDirsRequest()}
	req.Version = v
	r := req.ResponseKind().(*logDirsResponse)
	return r, r.ReadFrom(raw)
}

// sizesDump writes out everything sizes built from answers hold.
func sizesDump(s *cluster.Sizes) string {
	var sb strings.Builder
	for _, id := range s.BrokerIDs() {
		d, _ := s.Broker(id)
		fmt.Fprintf(&sb, "broker %d %d bytes %d replicas %+v\n", id, d.Bytes, d.Replicas, d.Dirs)
	}
	for _, t := range s.Topics() {
		disk, data, ok := s.TopicBytes(t)
		fmt.Fprintf(&sb, "%s %d %d %v:", t, disk, data, ok)
		for p := range 10 {
			if ps, ok := s.Partition(t, p); ok {
				fmt.Fprintf(&sb, " %d%+v", p, ps)
			}
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestLogDirsLeanAsKmsg: an answer read from its bytes is what kmsg reads
// of it, at every version, down to the sizes built from it.
func TestLogDirsLeanAsKmsg(t *testing.T) {
	for v := int16(0); v <= 5; v++ {
		for _, ans := range []*kmsg.DescribeLogDirsResponse{variedLogDirs(v), {Version: v}, func() *kmsg.DescribeLogDirsResponse {
			r := variedLogDirs(v)
			r.ErrorCode = kerr.ClusterAuthorizationFailed.Code
			return r
		}()} {
			raw := ans.AppendTo(nil)
			want, err := kmsgLogDirs(v, raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err := leanLogDirs(v, raw)
			if err != nil {
				t.Fatalf("v%d: %v", v, err)
			}
			if !sameLogDirs(got, want) {
				t.Errorf("v%d: read\n%+v\nkmsg read\n%+v", v, got, want)
			}
			if len(ans.Dirs) > 0 && (got.reps.Len() == 0 || len(got.dirs) != 4) {
				t.Errorf("v%d: %d replicas in %d dirs", v, got.reps.Len(), len(got.dirs))
			}
			built := make([]string, 2)
			for i, r := range []*logDirsResponse{got, want} {
				b := cluster.NewSizesBuilder(time.Unix(0, 0))
				addBroker(b, 1, r)
				built[i] = sizesDump(b.Done(nil))
			}
			if built[0] != built[1] {
				t.Errorf("v%d: built\n%s\nfrom kmsg\n%s", v, built[0], built[1])
			}
		}
	}
	// The sizes of the varied answer, as a screen reads them.
	r, _ := leanLogDirs(4, variedLogDirs(4).AppendTo(nil))
	b := cluster.NewSizesBuilder(time.Unix(0, 0))
	addBroker(b, 1, r)
	s := b.Done(nil)
	d, _ := s.Broker(1)
	if d.Dirs[1].Err == "" || d.Dirs[0].Total != 1<<40 || d.Dirs[3].Replicas != 0 {
		t.Errorf("dirs %+v", d.Dirs)
	}
	// t5-1 is on /data/1 and (future, moving) on /data/2, reported in
	// that order: its future replica comes last and is not its size.
	p, ok := s.Partition("t5", 1)
	if !ok || len(p.Replicas) != 2 || p.Replicas[0].Future || !p.Replicas[1].Future || p.Replicas[1].Dir != 2 {
		t.Fatalf("t5-1: %+v %v", p, ok)
	}
	if r, ok := s.Replica("t5", 1, 1); !ok || r.Future || r.Dir != 1 {
		t.Errorf("t5-1 on broker 1: %+v %v", r, ok)
	}
	if _, ok := s.Partition("t5", 2); ok {
		t.Error("t5-2 was not reported but is known")
	}
}

// TestLogDirsTruncated: an answer cut short anywhere is an error, never a
// panic.
func TestLogDirsTruncated(t *testing.T) {
	for v := int16(2); v <= 5; v++ {
		raw := variedLogDirs(v).AppendTo(nil)
		for n := range len(raw) {
			if _, err := leanLogDirs(v, raw[:n]); err == nil {
				t.Fatalf("v%d: %d of %d bytes read without an error", v, n, len(raw))
			}
		}
	}
}

// FuzzLogDirs: any bytes are read without a panic, and as kmsg reads them
// when both read them.
func FuzzLogDirs(f *testing.F) {
	for v := int16(0); v <= 5; v++ {
		f.Add(v, variedLogDirs(v).AppendTo(nil))
		f.Add(v, logDirsAnswer(3, 2))
	}
	f.Add(int16(4), []byte{0, 0, 0, 0, 0, 0, 2, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, v int16, raw []byte) {
		v = min(max(v, 0), 5)
		got, err := leanLogDirs(v, raw)
		want, kerr := kmsgLogDirs(v, raw)
		if err != nil || kerr != nil {
			return
		}
		if !sameLogDirs(got, want) {
			t.Errorf("v%d: read\n%+v\nkmsg read\n%+v", v, got, want)
		}
		b := cluster.NewSizesBuilder(time.Unix(0, 0))
		addBroker(b, 1, got)
		b.Done(nil)
	})
}
