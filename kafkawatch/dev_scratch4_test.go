package kafkawatch

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestScratchTiming(t *testing.T) {
	bs := os.Getenv("KTOPO_DEV_BOOTSTRAP")
	if bs == "" {
		t.Skip()
	}
	cl, _ := NewClient(Dial{Bootstrap: SplitBootstrap(bs)})
	ctx := context.Background()
	apis, _, _ := fetchVersions(ctx, cl)
	lay := newLayout("PLAINTEXT")
	for i := 0; i < 4; i++ {
		t0 := time.Now()
		v, err := fetchCore(ctx, cl, apis, lay)
		d := time.Since(t0)
		t1 := time.Now()
		lay.apply(v)
		t.Logf("core %v apply %v err %v topics %d", d, time.Since(t1), err, len(v.topics))
	}
	names := lay.names()
	t0 := time.Now()
	describeTopicConfigs(ctx, cl, names[:250], configChunk)
	t.Logf("configs of 250: %v", time.Since(t0))
	t0 = time.Now()
	describeTopicConfigs(ctx, cl, names, configChunk)
	t.Logf("configs of all %d: %v", len(names), time.Since(t0))
}
