package kafkatest

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

//go:embed java/KtopoToolRunner.java
var runnerSource []byte

// runner is one JVM that runs Kafka tool invocations one after another
// (java/KtopoToolRunner.java): a JVM start costs about a second of CPU on
// this kind of machine, a warm kafka-topics invocation tens of ms.
type runner struct {
	mu    sync.Mutex
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	stale bool
	// cdsDone keeps the class archive the JVM dumped when it ended.
	cdsDone func()
}

var runners struct {
	sync.Mutex
	byDist map[string]*runner
}

// Tool runs a Kafka tool's main class in the dist's long-lived tool JVM
// and returns what it printed and its exit status, as Run does for a whole
// process. Invocations are serialised (the tools print to the JVM's one
// stdout).
func (d *Dist) Tool(mainClass string, args ...string) (Result, error) {
	r, err := d.runner()
	if err != nil {
		return Result{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stale {
		return Result{}, fmt.Errorf("kafkatest: the tool JVM of Kafka %s died", d.Version)
	}
	var req strings.Builder
	fmt.Fprintf(&req, "%d\n%s\n", len(args), mainClass)
	for _, a := range args {
		req.WriteString(strings.ReplaceAll(a, "\n", `\n`) + "\n")
	}
	if _, err := io.WriteString(r.in, req.String()); err != nil {
		r.stale = true
		return Result{}, fmt.Errorf("kafkatest: tool JVM: %w", err)
	}
	var parts [3][]byte
	for i := range parts {
		var n uint32
		if err := binary.Read(r.out, binary.BigEndian, &n); err != nil {
			r.stale = true
			return Result{}, fmt.Errorf("kafkatest: tool JVM: %w", err)
		}
		parts[i] = make([]byte, n)
		if _, err := io.ReadFull(r.out, parts[i]); err != nil {
			r.stale = true
			return Result{}, fmt.Errorf("kafkatest: tool JVM: %w", err)
		}
	}
	code, _ := strconv.Atoi(string(parts[0]))
	return Result{Stdout: string(parts[1]), Stderr: string(parts[2]), Code: code}, nil
}

func (d *Dist) runner() (*runner, error) {
	runners.Lock()
	defer runners.Unlock()
	if r := runners.byDist[d.Libs]; r != nil && !r.stale {
		return r, nil
	}
	jar, err := compileRunner()
	if err != nil {
		return nil, err
	}
	// The archive's kind names the runner's build: an archive made with
	// another runner jar on the class path would not be used.
	cds := classSharing(d, "tools-"+filepath.Base(filepath.Dir(jar)))
	args := append(jvmArgs("512m"), cds.flags...)
	args = append(args, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-cp", jar+string(os.PathListSeparator)+d.Classpath(), "KtopoToolRunner")
	cmd := exec.Command("java", args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr // only the JVM's own failures: the tools' stderr is captured
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("kafkatest: start the tool JVM: %w", err)
	}
	r := &runner{cmd: cmd, in: in, out: bufio.NewReader(out), cdsDone: cds.done}
	if runners.byDist == nil {
		runners.byDist = map[string]*runner{}
	}
	runners.byDist[d.Libs] = r
	return r, nil
}

// compileRunner compiles the runner once into a jar in the cache (it
// needs no Kafka class at compile time: it finds Kafka's Exit by
// reflection). A jar, not a directory of classes: the JVM archives
// classes for sharing (cds.go) only when no directory is on the class path.
func compileRunner() (string, error) {
	sum := sha256.Sum256(runnerSource)
	dir := filepath.Join(CacheDir(), "runner", hex.EncodeToString(sum[:8]))
	jar := filepath.Join(dir, "ktopo-tool-runner.jar")
	if _, err := os.Stat(jar); err == nil {
		return jar, nil
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		return "", fmt.Errorf("%w: javac (a JDK) is needed to run Kafka's tools in one JVM", ErrUnavailable)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(dir, "lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(jar); err == nil {
		return jar, nil
	}
	work, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "KtopoToolRunner.java")
	if err := os.WriteFile(src, runnerSource, 0o644); err != nil {
		return "", err
	}
	if out, err := exec.Command(javac, "-nowarn", "-d", work, src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("kafkatest: javac: %w\n%s", err, out)
	}
	classes, _ := filepath.Glob(filepath.Join(work, "*.class"))
	tmp := filepath.Join(work, "runner.jar")
	if err := writeJar(tmp, classes); err != nil {
		return "", err
	}
	// Renamed into place last: its presence says it is complete.
	return jar, os.Rename(tmp, jar)
}

// writeJar writes the class files into a jar (a zip; no manifest is
// needed on a class path).
func writeJar(path string, classes []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for _, c := range classes {
		b, err := os.ReadFile(c)
		if err != nil {
			f.Close()
			return err
		}
		w, err := zw.Create(filepath.Base(c))
		if err != nil {
			f.Close()
			return err
		}
		if _, err := w.Write(b); err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stopRunners ends every tool JVM.
func stopRunners() {
	runners.Lock()
	defer runners.Unlock()
	for _, r := range runners.byDist {
		r.in.Close()
		_ = r.cmd.Wait()
		r.cdsDone()
	}
	runners.byDist = nil
}
