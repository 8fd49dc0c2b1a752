package cmd

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// The build information of each way ktopo gets built, as "go version -m"
// prints it (and debug.ParseBuildInfo reads it).
func TestDescribeBuild(t *testing.T) {
	const head = "go\tgo1.26.8\npath\tgithub.com/ktopo/ktopo\n"
	const vcs = "build\tvcs=git\nbuild\tvcs.revision=0c04d1a837682f778217bf81c1e92c921b592397\nbuild\tvcs.time=2026-12-04T14:59:05Z\n"
	for _, c := range []struct{ name, info, want string }{
		{"go run, -buildvcs=false", head + "mod\tgithub.com/ktopo/ktopo\t(devel)\t\n", "dev"},
		{"go install @v1.2.3", head + "mod\tgithub.com/ktopo/ktopo\tv1.2.3\th1:abc=\n", "v1.2.3"},
		{"go install @latest of an untagged commit", head + "mod\tgithub.com/ktopo/ktopo\tv0.0.0-20261204145905-0c04d1a83768\th1:abc=\n",
			"v0.0.0-20261204145905-0c04d1a83768"},
		{"go build in a clean checkout", head + "mod\tgithub.com/ktopo/ktopo\tv0.0.0-20261204145905-0c04d1a83768\t\n" + vcs + "build\tvcs.modified=false\n",
			"v0.0.0-20261204145905-0c04d1a83768"},
		{"go build with changes", head + "mod\tgithub.com/ktopo/ktopo\tv0.0.0-20261204145905-0c04d1a83768+dirty\t\n" + vcs + "build\tvcs.modified=true\n",
			"v0.0.0-20261204145905-0c04d1a83768+dirty"},
		{"go build at a tag", head + "mod\tgithub.com/ktopo/ktopo\tv1.2.3\t\n" + vcs + "build\tvcs.modified=false\n",
			"v1.2.3 (commit 0c04d1a83768, 2026-12-04T14:59:05Z)"},
		{"a commit without a module version", head + "mod\tgithub.com/ktopo/ktopo\t(devel)\t\n" + vcs + "build\tvcs.modified=true\n",
			"dev (commit 0c04d1a83768, 2026-12-04T14:59:05Z, modified)"},
	} {
		bi, err := debug.ParseBuildInfo(c.info)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := describeBuild(bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := describeBuild(nil); got != "dev" {
		t.Errorf("no build information: %q", got)
	}
}

// TestVersionOfASourceBuild builds ktopo as a user does from a git checkout
// (a copy of this tree's Go files committed to a fresh repository; a git
// worktree is not one the toolchain stamps) and runs "ktopo version": it
// names the commit, then "+dirty" once a file is changed.
func TestVersionOfASourceBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ktopo twice; not under -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			// kraftsandbox's testdata holds what it embeds (real Kafka
			// 4.4's config tables): the build needs it.
			if name := d.Name(); rel != "." && rel != embeddedTestdata && (strings.HasPrefix(name, ".") || name == "testdata" || name == "docs" || name == "tools" || name == "testkit") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(src, rel), 0o755)
		}
		if (strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")) || rel == "go.mod" || rel == "go.sum" || filepath.Dir(rel) == embeddedTestdata {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(src, rel), data, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir, name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir = dir
		// -trimpath: the packages' build cache entries do not depend on the
		// copy's directory.
		c.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true -trimpath", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(src, "git", "init", "-q")
	run(src, "git", "add", "-A")
	run(src, "git", "commit", "-q", "-m", "source build")
	rev := run(src, "git", "rev-parse", "HEAD")[:12]
	bin := filepath.Join(t.TempDir(), "ktopo")
	run(src, "go", "build", "-o", bin, ".")
	if got := run(src, bin, "version"); !strings.HasPrefix(got, "ktopo v0.0.0-") || !strings.HasSuffix(got, "-"+rev) {
		t.Errorf("ktopo version of commit %s: %q", rev, got)
	}
	f, err := os.OpenFile(filepath.Join(src, "main.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n// changed\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	run(src, "go", "build", "-o", bin, ".")
	if got := run(src, bin, "version"); !strings.HasSuffix(got, "-"+rev+"+dirty") {
		t.Errorf("ktopo version of commit %s with a change: %q", rev, got)
	}
	if got := run(src, bin, "--version"); !strings.HasSuffix(got, "-"+rev+"+dirty") {
		t.Errorf("ktopo --version of commit %s with a change: %q", rev, got)
	}
}

// embeddedTestdata is the one testdata directory a build of ktopo reads
// (kraftsandbox embeds Kafka 4.4's config tables from it).
var embeddedTestdata = filepath.Join("kraftsandbox", "testdata")
