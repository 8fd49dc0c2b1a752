// Command screenshots draws the pictures of ktopo in the README and
// docs/tui.md from the real program: it builds ktopo, runs it on its
// sandbox (then on its KRaft sandbox) in a detached tmux session, walks through the screens with tmux
// send-keys, reads each screen with its colours (capture-pane -e) and
// renders it to a PNG in docs/images. Run it from the repository's root:
//
//	go run ./tools/screenshots
//
// It needs tmux and DejaVu Sans Mono (Debian: apt-get install tmux
// fonts-dejavu-core); a character that no font has is an error, not a box.
// The sandbox runs with a fixed --seed, --listen address and --pace, and
// each picture is taken once the screen has stopped changing, so that a
// new run rewrites only the pictures whose screens changed (those that show
// times and durations always do).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// options are the command line's.
type options struct {
	out      string // where the PNGs go
	w, h     int    // terminal size in cells
	fontSize float64
	bin      string // a built ktopo ("" builds one)
	port     int    // the sandbox's ZooKeeper port (shown on the overview)
	// kraftPort is the KRaft sandbox's first broker's port (its brokers
	// and controllers on the next ones; 0: free ports).
	kraftPort int
	captures  string // where the raw captures go ("": nowhere)
	only      int    // the first n steps only (0: all)
}

func main() {
	var o options
	var size string
	flag.StringVar(&o.out, "out", "docs/images", "directory the PNGs are written to")
	flag.StringVar(&size, "size", "100x32", "terminal size, COLUMNSxROWS")
	flag.Float64Var(&o.fontSize, "font-size", 13, "font size in pixels")
	flag.StringVar(&o.bin, "ktopo", "", "the ktopo binary to run (default: go build one from this checkout)")
	flag.IntVar(&o.port, "port", 2181, "port of the sandbox's ZooKeeper, shown on the overview (0, or when it is taken: a free one)")
	flag.IntVar(&o.kraftPort, "kraft-port", 9092, "the KRaft sandbox's first broker's port, its 6 brokers and 3 controllers on the next ones (0, or when one is taken: free ports)")
	flag.StringVar(&o.captures, "captures", "", "also save each raw capture (text with SGR sequences) in this directory")
	flag.Parse()
	if _, err := fmt.Sscanf(size, "%dx%d", &o.w, &o.h); err != nil || o.w < 20 || o.h < 10 {
		fmt.Fprintf(os.Stderr, "screenshots: -size %q: want COLUMNSxROWS, e.g. 100x32\n", size)
		os.Exit(2)
	}
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

// run takes the pictures of the scenario (its first o.only steps if set).
func run(o options, log io.Writer) error {
	if _, err := exec.LookPath("tmux"); err != nil {
		return errors.New("tmux is not installed (apt-get install tmux)")
	}
	r, err := newRenderer(o.fontSize, darkTheme)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "ktopo-shots")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := o.bin
	if bin == "" {
		bin = filepath.Join(tmp, "ktopo")
		fmt.Fprintln(log, "building ktopo")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/ktopo/ktopo").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %w\n%s", err, out)
		}
	}
	listen := sandboxAddr(o.port, log)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	// A home of its own: no config file, no contexts, no KTOPO_ZOOKEEPER;
	// UTC, so that the times shown do not depend on the machine.
	env := []string{"HOME=" + tmp, "XDG_CONFIG_HOME=" + tmp, "XDG_STATE_HOME=" + tmp,
		"KTOPO_LOG=" + filepath.Join(tmp, "ktopo.log"), "KTOPO_ZOOKEEPER=", "NO_COLOR=",
		"TERM=xterm-256color", "COLORTERM=truecolor", "TZ=UTC", "LANG=C.UTF-8"}
	steps := scenario()
	if o.only > 0 {
		steps = steps[:o.only]
	}
	if err := walk(o, r, env, tmp, log, steps, bin, "--seed", "1", "--listen", listen, "--pace", scenarioPace); err != nil {
		return err
	}
	if o.only > 0 {
		return nil
	}
	// The KRaft sandbox, on ports of its own from o.kraftPort (the
	// overview shows them), with a short broker session so that a killed
	// broker is fenced within the picture's wait.
	fmt.Fprintln(log, "the KRaft sandbox")
	return walk(o, r, env, tmp, log, kraftScenario(), bin, "--sandbox", "kraft", "--seed", "1",
		"--listen", kraftAddr(o.kraftPort, log), "--session-timeout", kraftSession)
}

// walk runs ktopo with args in a terminal of its own and takes steps.
func walk(o options, r *renderer, env []string, tmp string, log io.Writer, steps []step, bin string, args ...string) error {
	t, err := startTerm(o.w, o.h, env, append([]string{bin}, args...)...)
	if err != nil {
		return err
	}
	defer t.close()
	for _, st := range steps {
		if err := st.take(t, r, o, log); err != nil {
			logData, _ := os.ReadFile(filepath.Join(tmp, "ktopo.log"))
			return fmt.Errorf("%s: %w\nktopo's log ends:\n%s", st.label(), err, tail(string(logData), 20))
		}
	}
	_ = t.keys("q")
	return nil
}

// kraftAddr is 127.0.0.1:port when the KRaft sandbox's nine ports from
// port are free, else 127.0.0.1:0 (free ports, which the picture shows).
func kraftAddr(port int, log io.Writer) string {
	if port == 0 {
		return "127.0.0.1:0"
	}
	for p := port; p < port+9; p++ {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			fmt.Fprintf(log, "127.0.0.1:%d is taken: the KRaft sandbox listens on free ports, which the picture shows\n", p)
			return "127.0.0.1:0"
		}
		l.Close()
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// sandboxAddr is 127.0.0.1:port, or a free port when port is 0 or taken.
func sandboxAddr(port int, log io.Writer) string {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if port == 0 {
		return addr
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(log, "%s is taken: the sandbox listens on a free port, which the overview's picture shows\n", addr)
		return "127.0.0.1:0"
	}
	l.Close()
	return addr
}

// take runs one step: its keys, its wait, and its picture if it has one.
func (st step) take(t *term, r *renderer, o options, log io.Writer) error {
	for _, k := range st.keys {
		var err error
		if text, ok := strings.CutPrefix(k, literal); ok {
			err = t.typeText(text)
		} else {
			err = t.keys(k)
		}
		if err != nil {
			return err
		}
		if k == "Escape" {
			// An ESC followed at once by a key reads as alt+key.
			time.Sleep(300 * time.Millisecond)
		}
	}
	if _, err := t.waitFor(waitDeadline, st.want, st.gone); err != nil {
		return err
	}
	if st.name == "" {
		return nil
	}
	var data []byte
	var err error
	if st.live {
		data, err = t.capture()
	} else {
		data, err = t.settle(settleQuiet, waitDeadline)
	}
	if err != nil {
		return err
	}
	s, err := parseCapture(data, o.w, o.h)
	if err != nil {
		return err
	}
	// The screen may have moved on since the wait (a live picture): check
	// it still shows what the step is about.
	for _, w := range st.want {
		if !strings.Contains(s.text(), w) {
			return fmt.Errorf("the captured screen lacks %q:\n%s", w, s.text())
		}
	}
	if o.captures != "" {
		if err := os.WriteFile(filepath.Join(o.captures, st.name+".ansi"), data, 0o644); err != nil {
			return err
		}
	}
	png, err := r.encode(s)
	if err != nil {
		return err
	}
	path := filepath.Join(o.out, st.name+".png")
	what := "written"
	if old, err := os.ReadFile(path); err == nil {
		what = "updated"
		if bytes.Equal(old, png) {
			what = "unchanged"
		}
	}
	if what != "unchanged" {
		if err := os.WriteFile(path, png, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "%-34s %-9s %3d KB  %s\n", path, what, (len(png)+512)/1024, st.title)
	return nil
}

func (st step) label() string {
	if st.name != "" {
		return st.name
	}
	return st.title
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
