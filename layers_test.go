package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers holds the package layering docs/architecture.md describes:
// the model, the ports and the Kafka-protocol backends depend on no
// ZooKeeper client; the TUI depends on the ports alone (no backend, so no
// ZooKeeper or Kafka client: cmd, the composition root, gives it its
// source and writer); and no domain package draws (Bubble Tea, lipgloss).
func TestLayers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH: the layering is read with go list")
	}
	const mod = "github.com/ktopo/ktopo/"
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	forbid := func(pkg string, why string, bad ...string) {
		t.Helper()
		for _, d := range deps(pkg) {
			for _, b := range bad {
				if d == b || strings.HasPrefix(d, b+"/") {
					t.Errorf("%s depends on %s: %s", pkg, d, why)
				}
			}
		}
	}
	for _, p := range []string{"cluster", "clusterops", "clusterwatch", "kafkawatch", "kafkaops"} {
		forbid(p, "the model, the ports and the Kafka-protocol backends know no ZooKeeper client", "github.com/go-zookeeper/zk")
	}
	forbid("ui", "the TUI reaches a cluster through the ports only",
		"github.com/go-zookeeper/zk", "github.com/twmb/franz-go/pkg/kgo", "github.com/twmb/franz-go/pkg/kmsg",
		mod+"zkwatch", mod+"zkops", mod+"kafkaops", mod+"kafkawatch", mod+"clusterwatch/zksource", mod+"sandbox", mod+"kraftsandbox")
	// The KRaft sandbox is a server: it speaks the Kafka protocol to
	// ktopo's clients and shares none of their code, so that a bug in
	// ktopo's reader or writer cannot hide in the simulation it is tested
	// on (it shares the model's rules: placement, validation, Kafka's
	// messages, which the differential test checks against real Kafka).
	forbid("kraftsandbox", "the KRaft sandbox shares no code with ktopo's clients",
		"github.com/go-zookeeper/zk", "github.com/twmb/franz-go/pkg/kgo", mod+"kafkawatch", mod+"kafkaops",
		mod+"zkwatch", mod+"zkops", mod+"sandbox", mod+"clusterwatch")
	for _, p := range []string{"cluster", "clusterops", "clusterwatch", "clusterwatch/zksource", "kafkawatch", "kafkaops",
		"zkops", "zkwatch", "assign", "sandbox", "kraftsandbox", "zkserver"} {
		forbid(p, "a domain package draws nothing", "charm.land/bubbletea/v2", "charm.land/lipgloss/v2")
	}
	// The list above names every package of the module's first level
	// that is not the TUI, the command line or internal.
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	known := []string{"cluster", "clusterops", "clusterwatch", "clusterwatch/zksource", "kafkawatch", "kafkaops", "zkops",
		"zkwatch", "assign", "sandbox", "kraftsandbox", "zkserver"}
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(p, mod)
		if rel == strings.TrimSuffix(mod, "/") || strings.HasPrefix(rel, "ui") || strings.HasPrefix(rel, "cmd") ||
			strings.HasPrefix(rel, "internal/") || strings.HasPrefix(rel, "tools/") {
			continue
		}
		if !slices.Contains(known, rel) && !slices.ContainsFunc(known, func(k string) bool { return strings.HasPrefix(rel, k+"/") }) {
			t.Errorf("package %s is new: say in TestLayers (and docs/architecture.md) which layer it is in", rel)
		}
	}
}
