package clusterops_test

import (
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// costCluster is 4 brokers and topic t of 3 partitions: 0 on [1 2] led by
// 1, 1 on [2 3] led by 2, 2 on [3 4] led by 3.
func costCluster(t *testing.T) *cluster.Snapshot {
	t.Helper()
	spec := fixture.Spec{ClusterID: "c", Brokers: 4, Controller: 1, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "t", Partitions: 3, RF: 2, Replicas: map[int][]int{0: {1, 2}, 1: {2, 3}, 2: {3, 4}}}}}
	return spec.Model().Snapshot()
}

// costSizes are costCluster's sizes read at at: partitions 0, 1 and 2 of
// 10, 20 and 30 MiB times grow, every replica the partition's size, each
// broker one directory of 1 GiB with usable bytes (1 GiB unless given).
func costSizes(at time.Time, grow int64, usable map[int]int64, prev *cluster.Sizes) *cluster.Sizes {
	b := cluster.NewSizesBuilder(at)
	for id := 1; id <= 4; id++ {
		u, ok := usable[id]
		if !ok {
			u = 1 << 30
		}
		b.Broker(id, []cluster.LogDir{{Path: "/d", Total: 1 << 30, Usable: u}})
	}
	for p, rs := range [][]int{{1, 2}, {2, 3}, {3, 4}} {
		for _, r := range rs {
			b.Replica("t", p, cluster.ReplicaSize{Broker: int32(r), Bytes: int64(p+1) * 10 << 20 * grow})
		}
	}
	return b.Done(prev)
}

func move(p int, cur, target []int) clusterops.PartitionMove {
	return clusterops.PartitionMove{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: p}, Current: cur, Target: target}
}

const mib = 1 << 20

// TestBytesOfMoves: each added replica copies its partition's size from
// the leader; a move that only drops a replica copies nothing; a
// partition no broker reported is counted unknown; without sizes nothing
// is known.
func TestBytesOfMoves(t *testing.T) {
	s := costCluster(t)
	sz := costSizes(time.Unix(100, 0), 1, nil, nil)
	none := map[int]int64{}
	tests := []struct {
		name       string
		moves      []clusterops.PartitionMove
		sizes      *cluster.Sizes
		total      int64
		in, out    map[int]int64
		matrix     map[[2]int]int64
		partitions int
		unknown    int
		known      bool
	}{
		{"none", nil, sz, 0, none, none, map[[2]int]int64{}, 0, 0, true},
		{"one copy", []clusterops.PartitionMove{move(0, []int{1, 2}, []int{1, 3})}, sz,
			10 * mib, map[int]int64{3: 10 * mib}, map[int]int64{1: 10 * mib}, map[[2]int]int64{{1, 3}: 10 * mib}, 1, 0, true},
		{"two copies of one partition, one of another", []clusterops.PartitionMove{
			move(1, []int{2, 3}, []int{1, 4}), move(2, []int{3, 4}, []int{3, 4, 1})}, sz,
			2*20*mib + 30*mib, map[int]int64{1: 50 * mib, 4: 20 * mib}, map[int]int64{2: 40 * mib, 3: 30 * mib},
			map[[2]int]int64{{2, 1}: 20 * mib, {2, 4}: 20 * mib, {3, 1}: 30 * mib}, 2, 0, true},
		{"drop only", []clusterops.PartitionMove{move(2, []int{3, 4}, []int{3})}, sz, 0, none, none, map[[2]int]int64{}, 0, 0, true},
		{"unknown partition", []clusterops.PartitionMove{{TopicPartition: cluster.TopicPartition{Topic: "gone", Partition: 0}, Current: []int{1}, Target: []int{2}}}, sz,
			0, none, none, map[[2]int]int64{}, 1, 1, true},
		{"no sizes", []clusterops.PartitionMove{move(0, []int{1, 2}, []int{1, 3})}, nil, 0, none, none, map[[2]int]int64{}, 1, 0, false},
	}
	for _, tt := range tests {
		mb := clusterops.BytesOfMoves(s, tt.sizes, tt.moves)
		if mb.Total != tt.total || mb.Partitions != tt.partitions || mb.Unknown != tt.unknown || mb.Known != tt.known ||
			!equalMap(mb.In, tt.in) || !equalMap(mb.Out, tt.out) || !equalMap(mb.Matrix, tt.matrix) {
			t.Errorf("%s: %+v", tt.name, mb)
		}
	}
}

func equalMap[K comparable](a, b map[K]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestMoveETA: the slowest broker's bytes over the throttle less what its
// partitions grow; never when they grow at least as fast as the throttle;
// unknown without a throttle or sizes.
func TestMoveETA(t *testing.T) {
	s := costCluster(t)
	first := costSizes(time.Unix(100, 0), 1, nil, nil)
	// Ten seconds later every partition is twice its size: partition 0
	// grew 1 MiB/s, 1 2 MiB/s, 2 3 MiB/s.
	grown := costSizes(time.Unix(110, 0), 2, nil, first)
	moves := []clusterops.PartitionMove{move(0, []int{1, 2}, []int{1, 3}), move(2, []int{3, 4}, []int{1, 4})}
	sixty, seven := 60.0, 7.0
	sevenths := time.Duration(sixty / seven * float64(time.Second))
	tests := []struct {
		name     string
		sizes    *cluster.Sizes
		throttle int64
		want     clusterops.ETA
		text     string
	}{
		// Without rates: broker 1 receives 30 MiB (partition 2) and sends
		// 10 (partition 0, which it leads), broker 3 the other way round:
		// 30 MiB at 10 MiB/s; broker 1 comes first.
		{"no growth", first, 10 * mib, clusterops.ETA{Known: true, Duration: 3 * time.Second, Broker: 1, In: true}, "about 3s (broker 1 receiving)"},
		// Sizes doubled: broker 1 receives 60 MiB growing 3 MiB/s: 60 / (10
		// − 3) s.
		{"growth", grown, 10 * mib, clusterops.ETA{Known: true, Duration: sevenths, Broker: 1, In: true}, "about 9s (broker 1 receiving)"},
		{"never", grown, 3 * mib, clusterops.ETA{Known: true, Never: true, Broker: 1, In: true}, "never: the partitions broker 1 is receiving grow faster than the throttle"},
		{"no throttle", grown, -1, clusterops.ETA{}, "unknown"},
		{"no sizes", nil, 10 * mib, clusterops.ETA{}, "unknown"},
	}
	for _, tt := range tests {
		e := clusterops.BytesOfMoves(s, tt.sizes, moves).ETA(tt.throttle)
		if e != tt.want || e.String() != tt.text {
			t.Errorf("%s: %+v %q, want %+v %q", tt.name, e, e.String(), tt.want, tt.text)
		}
	}
}

// TestCheckDisk: a broker receiving more than its usable bytes is refused,
// worst first; one that fits, or does not report its volume, is not.
func TestCheckDisk(t *testing.T) {
	s := costCluster(t)
	// Brokers 3 and 4 receive 10 MiB, 1 and 2 30 MiB.
	moves := []clusterops.PartitionMove{move(0, []int{1, 2}, []int{3, 4}), move(2, []int{3, 4}, []int{1, 2})}
	tests := []struct {
		name   string
		usable map[int]int64
		want   []clusterops.DiskShortfall
	}{
		{"fits", nil, nil},
		{"exactly", map[int]int64{1: 30 * mib}, nil},
		{"one", map[int]int64{3: 5 * mib}, []clusterops.DiskShortfall{{Broker: 3, Incoming: 10 * mib, Usable: 5 * mib}}},
		{"worst first", map[int]int64{3: 5 * mib, 1: 1 * mib}, []clusterops.DiskShortfall{{Broker: 1, Incoming: 30 * mib, Usable: mib}, {Broker: 3, Incoming: 10 * mib, Usable: 5 * mib}}},
		{"volume unknown", map[int]int64{3: -1}, nil},
	}
	for _, tt := range tests {
		sz := costSizes(time.Unix(1, 0), 1, tt.usable, nil)
		got := clusterops.CheckDisk(sz, clusterops.BytesOfMoves(s, sz, moves))
		if len(got) != len(tt.want) {
			t.Errorf("%s: %+v", tt.name, got)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: %+v", tt.name, got)
			}
		}
	}
	d := clusterops.DiskShortfall{Broker: 3, Incoming: 12 << 30, Usable: 9<<30 + 512<<20}
	if got, want := d.Error(), "broker 3 would receive 12.0 GiB but its log directories have 9.50 GiB usable"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if clusterops.CheckDisk(nil, clusterops.BytesOfMoves(s, nil, moves)) != nil {
		t.Error("refused without sizes")
	}
}

// TestProgressReestimate: a move the cluster no longer runs counts as
// copied; the time left is the bytes left at the rate measured between
// two progresses, or before one the preview's estimate scaled to what is
// left.
func TestProgressReestimate(t *testing.T) {
	s := costCluster(t)
	sz := costSizes(time.Unix(100, 0), 1, nil, nil)
	done := clusterops.ProgressOf(s, sz, []clusterops.PartitionMove{move(0, []int{1, 2}, []int{1, 3})})
	if !done.Known || done.Copied != 10*mib || done.Total != 10*mib || done.Percent() != 100 || len(done.Partitions) != 0 {
		t.Fatalf("%+v", done)
	}
	if e := done.Reestimate(nil, clusterops.ETA{Known: true, Duration: time.Minute}); !e.Known || e.Duration != 0 {
		t.Fatalf("%+v", e)
	}
	if p := clusterops.ProgressOf(s, nil, nil); p.Known {
		t.Fatalf("%+v", p)
	}
	prev := clusterops.MoveProgress{At: time.Unix(100, 0), Copied: 10 * mib, Total: 100 * mib, Known: true}
	now := clusterops.MoveProgress{At: time.Unix(110, 0), Copied: 30 * mib, Total: 100 * mib, Known: true}
	// 20 MiB in 10 s: 70 MiB left take 35 s.
	if e := now.Reestimate(&prev, clusterops.ETA{}); !e.Known || e.Duration != 35*time.Second {
		t.Fatalf("%+v", e)
	}
	// No rate yet: 70 % of the preview's 100 s.
	if e := now.Reestimate(nil, clusterops.ETA{Known: true, Duration: 100 * time.Second, Broker: 2}); e.Duration != 70*time.Second || e.Broker != 2 {
		t.Fatalf("%+v", e)
	}
	if e := now.Reestimate(nil, clusterops.ETA{Known: true, Never: true}); !e.Never {
		t.Fatalf("%+v", e)
	}
}

// TestAbout: an estimate under a second is not "about under 1s".
func TestAbout(t *testing.T) {
	for d, want := range map[time.Duration]string{
		300 * time.Millisecond:     "under 1s",
		0:                          "under 1s",
		2 * time.Second:            "about 2s",
		250 * time.Second:          "about 4m10s",
		2*time.Hour + time.Hour/12: "about 2h05m",
	} {
		if got := clusterops.About(d); got != want {
			t.Errorf("About(%v) = %q, want %q", d, got, want)
		}
	}
	if got := (clusterops.ETA{Known: true, Duration: 400 * time.Millisecond, Broker: 2}).String(); got != "under 1s (broker 2 sending)" {
		t.Errorf("a short ETA: %q", got)
	}
}
