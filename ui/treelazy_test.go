package ui

import (
	"context"
	"errors"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/scaletree"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestTreeBuiltFromMirror: on a real mirror the ZooKeeper screen holds no
// node of the cluster until it is first shown; then it has the mirror's
// tree (a partition's state with its data) and follows later changes.
func TestTreeBuiltFromMirror(t *testing.T) {
	root := zktest.ChrootPath("lazytree")
	addr := zktest.Addr(t)
	direct := zktest.Connect(t, addr)
	if err := zktest.CreateAll(direct, path.Dir(root)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	if err := (scaletree.Scale{Topics: 4, Partitions: 3, Brokers: 3}).Write(direct, root); err != nil {
		t.Fatal(err)
	}
	conn, err := zkwatch.Connect(context.Background(), addr+root, zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mirror, err := zkwatch.NewMirror(conn, zksource.Shape(), zksource.TUIMirror())
	if err != nil {
		t.Fatal(err)
	}
	defer mirror.Close()
	a := New(Config{Source: zksource.New(mirror, conn), Prober: zksource.Prober{Browser: conn}, Connect: addr + root, Mode: ModeReadOnly})
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	next := func(what string, done func() bool) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for !done() {
			select {
			case b := <-mirror.Batches():
				a.Update(mirrorBatch(b))
			case <-deadline:
				t.Fatalf("no %s", what)
			}
		}
	}
	next("load", func() bool { return a.loaded })
	if rows := a.Tree().Rows(); len(rows) > 1 {
		t.Fatalf("the tree has rows before it was shown: %v", rows)
	}
	state := "/brokers/topics/" + scaletree.Topic(0) + "/partitions/1/state"
	press(a, "3")
	a.Tree().Select(state)
	if !strings.Contains(screen(a), `"leader"`) || !slices.Contains(a.Tree().Rows(), state) {
		t.Fatalf("the shown tree lacks %s:\n%s", state, screen(a))
	}
	if _, err := direct.Set(root+state, []byte(`{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":77,"isr":[2]}`), -1); err != nil {
		t.Fatal(err)
	}
	next("the change", func() bool {
		for line := range strings.SplitSeq(screen(a), "\n") {
			if strings.Contains(line, `"leader_epoch"`) && strings.Contains(line, "77") {
				return true
			}
		}
		return false
	})
}
