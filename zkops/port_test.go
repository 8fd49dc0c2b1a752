package zkops

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

func TestMaybeWritten(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{kafkaErr(cluster.ClassTopicExists, "Topic 'x' already exists."), false},
		{fmt.Errorf("create topic x: %w", zk.ErrNodeExists), false},
		{fmt.Errorf("create topic x: %w", zk.ErrNoAuth), false},
		{fmt.Errorf("create topic x: %w", zk.ErrConnectionClosed), true},
		{fmt.Errorf("create topic x: %w", zk.ErrSessionExpired), true},
		{errors.New("no reply"), true},
	} {
		if got := MaybeWritten(tc.err); got != tc.want {
			t.Errorf("%v: %v", tc.err, got)
		}
	}
}
