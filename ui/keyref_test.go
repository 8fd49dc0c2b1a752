package ui

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/ktopo/ktopo/ui/keys"
)

// keyRefPath is the generated key reference.
var keyRefPath = filepath.Join("..", "docs", "keys.md")

// groupTitles introduce the keymap's groups in the reference, in order.
var groupTitles = []struct{ field, title, about string }{
	{"Global", "Everywhere", "On every screen, unless a text field has the keyboard; in a text field only `f1`, `ctrl+c` and the field's own keys act. " +
		"On a KRaft cluster the ZooKeeper-only tabs are absent, on a ZooKeeper cluster the KRaft-only one, and the others keep their numbers (Events is `4` on both)."},
	{"List", "Lists", "The list screens (topics, topic, broker, events), the tree and the overview's broker cards."},
	{"Filter", "Filters and sorting", "The topics, topic and events screens. On the topics `s` cycles name, partitions, under-replicated, offline, under min ISR and, once sizes are known, size (biggest first)."},
	{"Input", "Text fields", "While a filter (`/`) or the `:` line has the keyboard; every other key types."},
	{"Tree", "ZooKeeper tree", ""},
	{"Wizard", "Topic creation wizard", "Each stage enables its own keys (form, preview, confirmation, progress, summary); the form's fields take every other key."},
	{"Ops", "Operations", "On the overview's broker cards and rack headings, and in the what-if. The what-if only reads, so it works in read-only mode too; a drain, a topic's reassignment (`R`), added partitions (`a`, both on the topic screen) a preferred election (`p`; in the sandbox `p` is the sandbox's own, at once) and config changes (`e`) write, so read-only mode refuses them."},
	{"Operation", "Operation wizard", "Draining a broker (`d` on its card), moving a topic's partitions or changing its replication factor (`R` on a topic), adding partitions (`a` on a topic), a preferred leader election (`p`, on a real cluster), a topic's config overrides (`e` on a topic): the preview, the exact znodes, the confirmation, the progress. It also uses the creation wizard's scrolling, popup and pace keys above."},
	{"Sandbox", "Sandbox", "Only when ktopo runs its own sandbox cluster. On the KRaft sandbox's Quorum tab, `x` kills or restarts the voter or observer under the cursor and `m` moves the quorum's leader."},
}

// keyReference renders docs/keys.md from the keymap, the tab table and
// the `:` commands.
func keyReference() string {
	var b strings.Builder
	b.WriteString("# Key reference\n\n")
	b.WriteString("Generated from the keymap (`ui/keys`) and the shell's tab and `:` command tables; do not edit.\n")
	b.WriteString("After changing a key, run `go test ./ui -run TestKeyReference -update` (`go test ./... -update`\n")
	b.WriteString("fails in the packages that have no goldens); the test fails while this file is stale.\n")
	row := func(bd key.Binding, name string) {
		ks := make([]string, len(bd.Keys()))
		for i, k := range bd.Keys() {
			ks[i] = "`" + k + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.Join(ks, " "), bd.Help().Desc, name)
	}
	head := func(title, about string) {
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		if about != "" {
			b.WriteString(about + "\n\n")
		}
		b.WriteString("| keys | does | binding |\n|---|---|---|\n")
	}
	a := New(Config{})
	km := reflect.ValueOf(keys.Default())
	for _, g := range groupTitles {
		group := km.FieldByName(g.field)
		head(g.title, g.about)
		for i := range group.NumField() {
			if bd, ok := group.Field(i).Interface().(key.Binding); ok {
				row(bd, g.field+"."+group.Type().Field(i).Name)
			}
		}
		if g.field == "Global" {
			for _, t := range a.tabs {
				name := "tab " + t.label
				switch {
				case t.zookeeper:
					name += " (ZooKeeper only)"
				case t.kraft:
					name += " (KRaft only)"
				}
				row(t.key, name)
			}
		}
	}
	b.WriteString("\n## `:` commands\n\nThe `:` line completes the first name with `tab`.\n\n| command | names | does |\n|---|---|---|\n")
	for _, c := range a.commands() {
		usage := c.usage
		if usage == "" {
			usage = ":" + c.names[0]
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", usage, "`"+strings.Join(c.names, "` `")+"`", c.about)
	}
	return b.String()
}

// TestKeyReference fails when docs/keys.md is not what the keymap says;
// -update (golden's flag) rewrites it.
func TestKeyReference(t *testing.T) {
	km := reflect.TypeFor[keys.Map]()
	if km.NumField() != len(groupTitles) {
		t.Fatalf("keys.Map has %d groups and the reference %d: give the new group a title", km.NumField(), len(groupTitles))
	}
	want := keyReference()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(keyRefPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(keyRefPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(want)) {
		t.Fatalf("%s is stale: run go test ./ui -run TestKeyReference -update", keyRefPath)
	}
}
