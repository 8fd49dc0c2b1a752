package cmd

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ktopo/ktopo/sandbox"
)

// updating reports whether the test run was given -update (the flag of
// x/exp/golden, which this package's test imports reach): then the
// generated docs are rewritten instead of compared.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// cmdRefDir holds the command reference: a page per command, generated
// from its cobra help, with a hand-written part the generator keeps.
var cmdRefDir = filepath.Join("..", "docs", "commands")

// The markers around a page's hand-written part.
const (
	handBegin = "<!-- hand-written: the generator keeps everything between this line and the end marker -->"
	handEnd   = "<!-- end of the hand-written part -->"
)

// generatedNote heads every page.
const generatedNote = "<!-- Generated from the cobra command's help (cmd/) by TestCommandReference, except the hand-written part.\n" +
	"     Regenerate: go test ./cmd -run TestCommandReference -update (the test fails while a page is stale). -->\n"

// pageName is the file of a command's page: ktopo_topics_create.md.
func pageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

// documented lists the commands that get a page, depth first, in the
// order "ktopo --help" lists them.
func documented(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			out = append(out, documented(sub)...)
		}
	}
	return out
}

// handWritten returns the hand-written part of a page ("" for a page not
// written yet), or an error when the markers are not there once each, in
// order: the generator never drops text it cannot place.
func handWritten(page string) (string, error) {
	data, err := os.ReadFile(page)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	s := string(data)
	if strings.Count(s, handBegin) != 1 || strings.Count(s, handEnd) != 1 {
		return "", fmt.Errorf("%s: want the hand-written markers once each:\n%s\n%s", page, handBegin, handEnd)
	}
	i, j := strings.Index(s, handBegin)+len(handBegin), strings.Index(s, handEnd)
	if j < i {
		return "", fmt.Errorf("%s: the hand-written end marker comes before the start marker", page)
	}
	return strings.Trim(s[i:j], "\n"), nil
}

// mdEscape makes terminal prose literal Markdown: <t>, __consumer_offsets
// and leader.replication.throttled.* read as written.
var mdEscape = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "<", `\<`, ">", `\>`, "[", `\[`, "]", `\]`, "|", `\|`)

// longMarkdown turns a command's Long help into Markdown: its paragraphs
// as prose, an indented paragraph (a list of options) as it is printed.
func longMarkdown(long string) string {
	var b strings.Builder
	for _, para := range strings.Split(strings.TrimSpace(long), "\n\n") {
		if para == "" {
			continue
		}
		if strings.HasPrefix(para, " ") {
			b.WriteString("```text\n" + para + "\n```\n\n")
			continue
		}
		b.WriteString(mdEscape.Replace(para) + "\n\n")
	}
	return b.String()
}

// flagBlock is a flag set as "--help" prints it, in a text block.
func flagBlock(title string, fs *pflag.FlagSet) string {
	usages := fs.FlagUsagesWrapped(0)
	if usages == "" {
		return ""
	}
	return "## " + title + "\n\n```text\n" + strings.TrimRight(usages, "\n") + "\n```\n\n"
}

// commandPage renders the page of c around its hand-written part.
func commandPage(c *cobra.Command, hand string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n%s.\n\n", c.CommandPath(), generatedNote, mdEscape.Replace(c.Short))
	b.WriteString("```text\n" + c.UseLine() + "\n")
	if c.HasAvailableSubCommands() {
		b.WriteString(c.CommandPath() + " [command]\n")
	}
	b.WriteString("```\n\n")
	b.WriteString(longMarkdown(c.Long))
	if c.Example != "" {
		var ex []string
		for _, line := range strings.Split(c.Example, "\n") {
			ex = append(ex, strings.TrimPrefix(line, "  "))
		}
		b.WriteString("## Examples\n\n```sh\n" + strings.Join(ex, "\n") + "\n```\n\n")
	}
	b.WriteString(handBegin + "\n")
	if hand != "" {
		b.WriteString("\n" + hand + "\n\n")
	}
	b.WriteString(handEnd + "\n\n")
	var subs []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			subs = append(subs, sub)
		}
	}
	if len(subs) > 0 {
		b.WriteString("## Commands\n\n| command | does |\n|---|---|\n")
		for _, sub := range subs {
			fmt.Fprintf(&b, "| [`%s`](%s) | %s |\n", sub.CommandPath(), pageName(sub), mdEscape.Replace(sub.Short))
		}
		b.WriteString("\n")
	}
	b.WriteString(flagBlock("Flags", c.NonInheritedFlags()))
	b.WriteString(flagBlock("Global flags", c.InheritedFlags()))
	b.WriteString("## See also\n\n")
	if p := c.Parent(); p != nil {
		fmt.Fprintf(&b, "- [`%s`](%s): %s\n", p.CommandPath(), pageName(p), mdEscape.Replace(p.Short))
	}
	b.WriteString("- [All commands](README.md); connecting, contexts, TLS and ACLs: [docs/connecting.md](../connecting.md)\n")
	return b.String()
}

// commandIndex renders docs/commands/README.md: every command, a line each.
func commandIndex(cmds []*cobra.Command) string {
	var b strings.Builder
	b.WriteString("# Command reference\n\n" + generatedNote + "\n")
	b.WriteString("Every command's page: its `--help` (usage, description, examples, flags) and, where there is more to say,\n")
	b.WriteString("worked examples with their output. Every command but `version` (and `plan`, given `--brokers`) reads or writes a\n")
	b.WriteString("cluster: in ZooKeeper mode its ZooKeeper (`--zookeeper`, `--context`), in KRaft mode its brokers (`--bootstrap-server`);\n")
	b.WriteString("`migration` is for ZooKeeper mode only; `sandbox` runs a simulated cluster of either kind (`--kraft`); the others work on both\n")
	b.WriteString("(each page says how they differ).\n")
	b.WriteString("How to name the cluster and secure the connection is in [docs/connecting.md](../connecting.md); what differs on\n")
	b.WriteString("KRaft in [docs/kraft.md](../kraft.md).\n\n")
	b.WriteString("| command | does |\n|---|---|\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "| [`%s`](%s) | %s |\n", c.CommandPath(), pageName(c), mdEscape.Replace(c.Short))
	}
	b.WriteString("\n## The examples' sandbox\n\n")
	b.WriteString("The examples that say so ran on a sandbox started afresh with a seed, so that you can run them\n")
	b.WriteString("again and get the same plans (times, dates and topic ids differ):\n\n")
	b.WriteString("```sh\nktopo sandbox --demo-topics --seed 1 --listen 127.0.0.1:2181   # in one terminal: 6 brokers in 3 racks\n")
	b.WriteString("export KTOPO_ZOOKEEPER=127.0.0.1:2181                          # in another, then the example\n```\n\n")
	b.WriteString("A KRaft cluster to try the `--bootstrap-server` examples on is `ktopo sandbox --kraft --demo-topics`: it prints the\n")
	b.WriteString("`--bootstrap-server` (and `--bootstrap-controller`) to give them.\n")
	return b.String()
}

// stableHelpEnv makes the help texts independent of the machine: the
// config and log paths they name read as ~/.config/… and ~/.local/state/….
func stableHelpEnv(t *testing.T) {
	t.Setenv("HOME", "/home/ktopo")
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "KTOPO_LOG"} {
		t.Setenv(v, "")
	}
}

// TestCommandReference fails while docs/commands differs from what the
// cobra commands' help generates (go test ./cmd -run TestCommandReference
// -update rewrites it, keeping each page's hand-written part), and when a
// page belongs to no command.
func TestCommandReference(t *testing.T) {
	stableHelpEnv(t)
	cmds := documented(newRootCmd())
	want := map[string]string{"README.md": commandIndex(cmds)}
	for _, c := range cmds {
		hand, err := handWritten(filepath.Join(cmdRefDir, pageName(c)))
		if err != nil {
			t.Fatal(err)
		}
		want[pageName(c)] = commandPage(c, hand)
	}
	entries, err := os.ReadDir(cmdRefDir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok {
			t.Errorf("docs/commands/%s is no command's page: move its hand-written part to the command's page, then delete it", e.Name())
		}
	}
	if updating() {
		if err := os.MkdirAll(cmdRefDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var stale []string
	for name, content := range want {
		path := filepath.Join(cmdRefDir, name)
		if updating() {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			stale = append(stale, name)
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Errorf("docs/commands is stale (%s): go test ./cmd -run TestCommandReference -update", strings.Join(stale, ", "))
	}
}

// A documented "ktopo plan" run: the command after "$ " and the lines it
// prints, up to the end of the block or the next "$ ".
var docRun = regexp.MustCompile("(?m)^\\$ (ktopo plan [^\n|]*)\n((?:[^$`][^\n]*\n|\n)*)")

// TestPlanExamples runs every "$ ktopo plan …" of the docs (plan needs no
// cluster) and compares what it prints, standard output and error, with
// what the docs show, byte for byte.
func TestPlanExamples(t *testing.T) {
	n := 0
	for _, doc := range []string{"../README.md", filepath.Join(cmdRefDir, "ktopo_plan.md")} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docRun.FindAllStringSubmatch(string(data), -1) {
			n++
			_, out, errOut := runCLI(t, strings.Fields(m[1])[1:]...)
			if got, want := strings.TrimRight(out+errOut, "\n"), strings.TrimRight(m[2], "\n"); got != want {
				t.Errorf("%s: $ %s\nprints:\n%s\nthe docs show:\n%s", doc, m[1], got, want)
			}
		}
	}
	if n < 3 {
		t.Errorf("found %d plan examples in the docs, want the README's and the reference's", n)
	}
}

// mdLink is a Markdown link or image: its target up to an optional title.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// headingSlug is the anchor GitHub gives a heading: lower case, only
// letters, digits, spaces, hyphens and underscores kept, spaces as hyphens.
func headingSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docText splits a Markdown file into its prose (code blocks left out,
// where a "# comment" is no heading and "](x)" no link) and its anchors.
func docText(t *testing.T, path string) (prose string, anchors map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors = map[string]bool{}
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if h := strings.TrimLeft(line, "#"); h != line && strings.HasPrefix(h, " ") {
			anchors[headingSlug(strings.TrimSpace(h))] = true
		}
		b.WriteString(line + "\n")
	}
	return b.String(), anchors
}

// TestDocLinks: every relative link of the README, CONTRIBUTING.md and
// docs/ (the command reference included) names a file that exists, and
// every #anchor a heading of that file.
func TestDocLinks(t *testing.T) {
	docs := []string{"../README.md", "../CONTRIBUTING.md"}
	for _, glob := range []string{"../docs/*.md", "../docs/commands/*.md"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, m...)
	}
	for _, doc := range docs {
		prose, own := docText(t, doc)
		for _, m := range mdLink.FindAllStringSubmatch(prose, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			anchors := own
			if file != "" {
				path := filepath.Join(filepath.Dir(doc), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link to %s: %v", doc, target, err)
					continue
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(file, ".md") {
					t.Errorf("%s: link to %s: an anchor in a file that is not Markdown", doc, target)
					continue
				}
				_, anchors = docText(t, path)
			}
			if !anchors[anchor] {
				t.Errorf("%s: link to %s: no such heading", doc, target)
			}
		}
	}
}

// walkthroughName is a topic a walkthrough creates: "type `NAME`".
var walkthroughName = regexp.MustCompile("type `([^`]+)`")

// TestWalkthroughTopics: the topics the walkthroughs of the README and
// docs/tui.md create in the sandbox are not its demo topics (the creation
// would stop at "Topic 'payments' already exists.").
func TestWalkthroughTopics(t *testing.T) {
	n := 0
	for _, doc := range []string{"../README.md", "../docs/tui.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range walkthroughName.FindAllStringSubmatch(string(data), -1) {
			n++
			for _, demo := range sandbox.DemoTopics() {
				if m[1] == demo.Name {
					t.Errorf("%s: the walkthrough creates %q, a demo topic of the sandbox it runs on", doc, m[1])
				}
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d walkthrough topic names (type `NAME`), want the README's and docs/tui.md's", n)
	}
}

// TestEventsHelpNamesEveryKind: "ktopo events --help" (and so its
// reference page) lists every kind of change the events carry, for jq
// filters.
func TestEventsHelpNamesEveryKind(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "cluster", "change.go"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := regexp.MustCompile(`ChangeKind = "([a-z_]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(kinds) < 10 {
		t.Fatalf("found %d change kinds in cluster/change.go", len(kinds))
	}
	var long string
	for _, c := range newRootCmd().Commands() {
		if c.Name() == "events" {
			long = c.Long
		}
	}
	words := strings.FieldsFunc(long, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '.' })
	for _, k := range append(kinds, []string{"", "connection"}) {
		if !slices.Contains(words, k[1]) {
			t.Errorf("ktopo events --help does not name the kind %s", k[1])
		}
	}
}

// TestHelpNamesItsModes: a command's help (its reference page) is true for
// every kind of cluster it works on, which it declares (modesAnnotation):
//   - every command declares its modes;
//   - one that works on both kinds names both in its Long (ZooKeeper and
//     KRaft, and their flags --zookeeper and --bootstrap-server), and a
//     runnable one has an example of each (a line with --zookeeper, one
//     with --bootstrap-server); its Short, when it names one kind or one
//     kind's mechanism (ZooKeeper, KRaft, a znode, an /admin path), names
//     both kinds;
//   - one that works in ZooKeeper mode only says so: its Long has
//     "ZooKeeper mode only" and its Short names ZooKeeper;
//   - one that reads no cluster names neither flag.
//
// It cannot tell whether each sentence is true; it fails the help that,
// as `topics describe` and `topics delete` did, describes one kind of
// cluster only.
func TestHelpNamesItsModes(t *testing.T) {
	for _, c := range documented(newRootCmd()) {
		t.Run(c.CommandPath(), func(t *testing.T) {
			long, short, example := c.Long, c.Short, c.Example
			switch m := c.Annotations[modesAnnotation]; m {
			case modesBoth:
				for _, want := range []string{"ZooKeeper", "KRaft", "--zookeeper", "--bootstrap-server"} {
					if !strings.Contains(long, want) {
						t.Errorf("works on ZooKeeper and KRaft, and its Long never names %s", want)
					}
				}
				if c.Runnable() {
					for _, flag := range []string{"--zookeeper", "--bootstrap-server"} {
						if !strings.Contains(example, flag) {
							t.Errorf("works on ZooKeeper and KRaft, and no example uses %s", flag)
						}
					}
				}
				oneKind := strings.Contains(short, "ZooKeeper") || strings.Contains(short, "KRaft") ||
					strings.Contains(short, "znode") || strings.Contains(short, "/admin")
				if oneKind && !(strings.Contains(short, "ZooKeeper") && strings.Contains(short, "KRaft")) {
					t.Errorf("works on ZooKeeper and KRaft, and its Short names one: %q", short)
				}
			case modesZooKeeper:
				if !strings.Contains(long, "ZooKeeper mode only") || !strings.Contains(short, "ZooKeeper") {
					t.Errorf("works in ZooKeeper mode only, and its help does not say so (Long: \"ZooKeeper mode only\", Short: ZooKeeper): %q", short)
				}
			case modesKRaft:
				if !strings.Contains(long, "KRaft clusters only") || !strings.Contains(short, "KRaft") {
					t.Errorf("works on KRaft clusters only, and its help does not say so (Long: \"KRaft clusters only\", Short: KRaft): %q", short)
				}
			case modesNone:
				if strings.Contains(long, "--zookeeper") || strings.Contains(long, "--bootstrap-server") {
					t.Error("reads no cluster, and its Long names a cluster's flag")
				}
			default:
				t.Errorf("declares no modes (%s %q): give it Annotations: modes(modesBoth, modesZooKeeper, modesKRaft or modesNone)", modesAnnotation, m)
			}
		})
	}
}
