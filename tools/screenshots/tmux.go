package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// term is one program running in a detached tmux session of a private
// tmux server: a real terminal, read with capture-pane (as the end-to-end
// tests in cmd do).
type term struct {
	socket string
	w, h   int
}

// startTerm runs argv in a new w×h tmux session with the environment env
// added to tmux's own.
func startTerm(w, h int, env []string, argv ...string) (*term, error) {
	t := &term{socket: fmt.Sprintf("ktopo-shots-%d-%d", os.Getpid(), time.Now().UnixNano()), w: w, h: h}
	args := []string{"-L", t.socket, "-f", "/dev/null", "new-session", "-d", "-s", "shots",
		"-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "env"}
	args = append(append(args, env...), argv...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("tmux new-session: %w: %s", err, out)
	}
	// Keep the pane when the program exits, so that its last screen (an
	// error, say) can still be read.
	if err := t.tmux("set-option", "-t", "shots", "remain-on-exit", "on"); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

func (t *term) tmux(args ...string) error {
	out, err := exec.Command("tmux", append([]string{"-L", t.socket}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("tmux %s: %w: %s", args[0], err, out)
	}
	return nil
}

// close ends the tmux server and the program in it, and removes the
// server's socket, which tmux leaves behind.
func (t *term) close() {
	path, _ := exec.Command("tmux", "-L", t.socket, "display-message", "-p", "#{socket_path}").Output()
	_ = t.tmux("kill-server")
	if p := strings.TrimSpace(string(path)); strings.HasSuffix(p, "/"+t.socket) {
		_ = os.Remove(p)
	}
}

// capture returns the screen with its colours and attributes as SGR
// sequences.
func (t *term) capture() ([]byte, error) {
	out, err := exec.Command("tmux", "-L", t.socket, "capture-pane", "-e", "-p", "-t", "shots").Output()
	if err != nil {
		return nil, fmt.Errorf("tmux capture-pane: %w", err)
	}
	return out, nil
}

// keys sends tmux key names ("Enter", "Escape", "C-u") or literal text.
func (t *term) keys(keys ...string) error {
	return t.tmux(append([]string{"send-keys", "-t", "shots"}, keys...)...)
}

// typeText sends s literally.
func (t *term) typeText(s string) error {
	return t.tmux("send-keys", "-t", "shots", "-l", s)
}

// poll is how often the screen is read while waiting.
const poll = 50 * time.Millisecond

// waitFor reads the screen until every want is on it and none of
// notWant, or the deadline passes.
func (t *term) waitFor(deadline time.Duration, want, notWant []string) (*screen, error) {
	end := time.Now().Add(deadline)
	var last *screen
	for {
		data, err := t.capture()
		if err != nil {
			return nil, err
		}
		s, err := parseCapture(data, t.w, t.h)
		if err != nil {
			return nil, err
		}
		last = s
		text := s.text()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(text, w)
		}
		for _, w := range notWant {
			ok = ok && !strings.Contains(text, w)
		}
		if ok {
			return s, nil
		}
		if time.Now().After(end) {
			return nil, fmt.Errorf("the screen never showed %q without %q; it shows:\n%s", want, notWant, last.text())
		}
		time.Sleep(poll)
	}
}

// settle reads the screen until it stays the same, colours included, for
// quiet, so that a flash or a transition in progress is not what the
// picture shows.
func (t *term) settle(quiet, deadline time.Duration) ([]byte, error) {
	end := time.Now().Add(deadline)
	prev, err := t.capture()
	if err != nil {
		return nil, err
	}
	since := time.Now()
	for {
		time.Sleep(poll)
		cur, err := t.capture()
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(cur, prev) {
			prev, since = cur, time.Now()
		}
		if time.Since(since) >= quiet {
			return cur, nil
		}
		if time.Now().After(end) {
			return nil, fmt.Errorf("the screen did not settle for %s within %s", quiet, deadline)
		}
	}
}
