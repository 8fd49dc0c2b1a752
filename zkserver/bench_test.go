package zkserver_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/zktest"
	"github.com/ktopo/ktopo/zkserver"
)

// benchTargets returns the embedded server and, when installed, Apache's.
func benchTargets(b *testing.B) map[string]string {
	s, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	out := map[string]string{"embedded": s.Addr()}
	if zktest.Kind() == "apache" {
		out["apache"] = zktest.Addr(b)
	}
	return out
}

func benchConn(b *testing.B, addr string) *zk.Conn {
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(tlog{b}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

var benchSeq atomic.Int64

// BenchmarkGetData: pipelined getData of a 150-byte znode from 64
// goroutines sharing one go-zookeeper connection (spec's benchmark shape).
func BenchmarkGetData(b *testing.B) {
	for _, name := range []string{"embedded", "apache"} {
		b.Run(name, func(b *testing.B) {
			addr, ok := benchTargets(b)[name]
			if !ok {
				b.Skip("Apache ZooKeeper not installed")
			}
			c := benchConn(b, addr)
			p := fmt.Sprintf("/bench-get-%d", benchSeq.Add(1))
			if _, err := c.Create(p, make([]byte, 150), 0, zk.WorldACL(zk.PermAll)); err != nil {
				b.Fatal(err)
			}
			b.SetParallelism(64 / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, _, err := c.Get(p); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
		})
	}
}

// BenchmarkMultiCreate1000: one multi of 1,000 creates of 150 bytes.
func BenchmarkMultiCreate1000(b *testing.B) {
	for _, name := range []string{"embedded", "apache"} {
		b.Run(name, func(b *testing.B) {
			addr, ok := benchTargets(b)[name]
			if !ok {
				b.Skip("Apache ZooKeeper not installed")
			}
			c := benchConn(b, addr)
			data := make([]byte, 150)
			for i := 0; b.Loop(); i++ {
				parent := fmt.Sprintf("/bench-multi-%d-%d", benchSeq.Add(1), i)
				if _, err := c.Create(parent, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
					b.Fatal(err)
				}
				ops := make([]any, 1000)
				for j := range ops {
					ops[j] = &zk.CreateRequest{Path: fmt.Sprintf("%s/bench-topic-name-%06d", parent, j), Data: data, Acl: zk.WorldACL(zk.PermAll)}
				}
				if _, err := c.Multi(ops...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "creates/s")
		})
	}
}

// BenchmarkMemory100k loads 100,000 znodes of 150 bytes into the embedded
// server and reports the heap they take.
func BenchmarkMemory100k(b *testing.B) {
	for b.Loop() {
		s, err := zkserver.Start(zkserver.Config{})
		if err != nil {
			b.Fatal(err)
		}
		c := benchConn(b, s.Addr())
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c.Create("/bench", nil, 0, zk.WorldACL(zk.PermAll))
		data := make([]byte, 150)
		for i := 0; i < 100; i++ {
			ops := make([]any, 1000)
			for j := range ops {
				ops[j] = &zk.CreateRequest{Path: fmt.Sprintf("/bench/bench-topic-name-%06d", i*1000+j), Data: data, Acl: zk.WorldACL(zk.PermAll)}
			}
			if _, err := c.Multi(ops...); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "MiB/100k-znodes")
		c.Close()
		_ = s.Close()
	}
}
