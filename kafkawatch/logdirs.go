package kafkawatch

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// A DescribeLogDirs answer of every partition is a broker's every replica:
// 500,000 of them on each of a million-partition cluster's six brokers,
// 12 MB each. kmsg would decode each into a struct (a reading then made a
// million allocations per broker, all garbage once built);
// logDirsResponse walks the bytes instead and keeps each replica in a
// flat array (cluster.BrokerReplicas) that the reading's SizesBuilder
// takes whole.

// logDirsRequest is a DescribeLogDirs request whose response is a
// logDirsResponse.
type logDirsRequest struct{ *kmsg.DescribeLogDirsRequest }

// ResponseKind is a logDirsResponse.
func (r logDirsRequest) ResponseKind() kmsg.Response {
	return &logDirsResponse{DescribeLogDirsResponse: kmsg.DescribeLogDirsResponse{Version: r.Version}}
}

// logDirsResponse is a DescribeLogDirs response: the kmsg one without its
// directories, which are in dirs, and their replicas in reps.
type logDirsResponse struct {
	kmsg.DescribeLogDirsResponse
	dirs []cluster.LogDir
	reps cluster.BrokerReplicas
}

// ReadFrom reads a response of a flexible version (2+, Kafka 2.4); older
// versions are read by kmsg whole.
func (r *logDirsResponse) ReadFrom(b []byte) error {
	r.dirs, r.reps = nil, cluster.BrokerReplicas{}
	if r.Version < 2 {
		if err := r.DescribeLogDirsResponse.ReadFrom(b); err != nil {
			return err
		}
		r.dirs = logDirsOf(&r.DescribeLogDirsResponse, &r.reps)
		r.Dirs = nil
		return nil
	}
	rd := &reader{b: b}
	r.ThrottleMillis = rd.int32()
	if r.Version >= 3 {
		r.ErrorCode = rd.int16()
	}
	nd := rd.arrayLen()
	for d := 0; d < nd && rd.err == nil; d++ {
		code := rd.int16()
		dir := cluster.LogDir{Path: rd.string(), Total: -1, Usable: -1}
		if err := codeError(code, nil); err != nil {
			dir.Err = err.Error()
		}
		nt := rd.arrayLen()
		for t := 0; t < nt && rd.err == nil; t++ {
			r.reps.Topic(rd.nullableBytes())
			np := rd.arrayLen()
			for p := 0; p < np && rd.err == nil; p++ {
				part := rd.int32()
				size := rd.int64()
				lag := rd.int64()
				future := rd.int8() != 0
				rd.tags()
				if rd.err == nil {
					r.reps.Replica(part, int16(d), future, size, lag)
				}
			}
			rd.tags()
		}
		if r.Version >= 4 {
			dir.Total, dir.Usable = rd.int64(), rd.int64()
		}
		if r.Version >= 5 {
			rd.skip(1) // cordoned: read by the poller (cordons)
		}
		rd.tags()
		r.dirs = append(r.dirs, dir)
	}
	rd.tags()
	return rd.err
}

// logDirsOf is a kmsg response's directories, its replicas recorded in
// reps: as logDirsResponse reads them from the bytes.
func logDirsOf(r *kmsg.DescribeLogDirsResponse, reps *cluster.BrokerReplicas) []cluster.LogDir {
	dirs := make([]cluster.LogDir, len(r.Dirs))
	volumes := r.GetVersion() >= 4
	for i := range r.Dirs {
		d := &r.Dirs[i]
		dirs[i] = cluster.LogDir{Path: d.Dir, Total: -1, Usable: -1}
		if volumes {
			dirs[i].Total, dirs[i].Usable = d.TotalBytes, d.UsableBytes
		}
		if err := codeError(d.ErrorCode, nil); err != nil {
			dirs[i].Err = err.Error()
		}
		for j := range d.Topics {
			t := &d.Topics[j]
			reps.Topic([]byte(t.Topic))
			for k := range t.Partitions {
				p := &t.Partitions[k]
				reps.Replica(p.Partition, int16(i), p.IsFuture, p.Size, p.OffsetLag)
			}
		}
	}
	return dirs
}

func (r *reader) int64() int64 { return int64(binary.BigEndian.Uint64(r.take(8))) }
