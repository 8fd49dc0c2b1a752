package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEventsStream follows a cluster with ktopo events --output json while
// a controller moves a leader and shrinks an ISR in one write.
func TestEventsStream(t *testing.T) {
	addr := seed(t)
	ev := startEvents(t, addr, "--from-start")
	waitFor := ev.waitFor
	// --from-start: the current state as events, after the connection.
	waitFor("connection", func(m map[string]any) bool { return m["kind"] == "connection" && m["state"] == "connected" })
	waitFor("orders created", func(m map[string]any) bool { return m["kind"] == "topic_created" && m["topic"] == "orders" })

	conn := connectTest(t, addr)
	if _, err := conn.Set("/brokers/topics/orders/partitions/0/state",
		[]byte(`{"controller_epoch":3,"leader":2,"version":1,"leader_epoch":1,"isr":[2]}`), -1); err != nil {
		t.Fatal(err)
	}
	lm := waitFor("leader_moved", func(m map[string]any) bool { return m["kind"] == "leader_moved" })
	if lm["topic"] != "orders" || lm["partition"] != 0.0 || lm["from"] != 1.0 || lm["to"] != 2.0 || lm["leader_epoch"] != 1.0 {
		t.Errorf("leader_moved %v", lm)
	}
	is := waitFor("isr_shrank", func(m map[string]any) bool { return m["kind"] == "isr_shrank" })
	if is["topic"] != "orders" || len(is["removed"].([]any)) != 1 || is["removed"].([]any)[0] != 1.0 {
		t.Errorf("isr_shrank %v", is)
	}
	if err := conn.Delete("/brokers/ids/3", -1); err != nil {
		t.Fatal(err)
	}
	waitFor("broker_gone", func(m map[string]any) bool { return m["kind"] == "broker_gone" && m["broker"] == 3.0 })

	ev.stop()
}

// eventStream is `ktopo events --output json` running in-process.
type eventStream struct {
	t      *testing.T
	lines  chan map[string]any
	cancel context.CancelFunc
	done   chan int
	errOut *strings.Builder
}

// startEvents runs ktopo events --output json on addr (plus args) until
// the test ends or stop is called.
func startEvents(t *testing.T, addr string, args ...string) *eventStream {
	t.Helper()
	return startEventsWith(t, []string{"--zookeeper", addr}, args...)
}

// startEventsWith is startEvents on the cluster the connection flags name.
func startEventsWith(t *testing.T, conn []string, args ...string) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	ev := &eventStream{t: t, lines: make(chan map[string]any, 4096), cancel: cancel, done: make(chan int, 1), errOut: &strings.Builder{}}
	var errMu sync.Mutex
	errw := writerFunc(func(p []byte) (int, error) { errMu.Lock(); defer errMu.Unlock(); return ev.errOut.Write(p) })
	go func() {
		ev.done <- runContext(ctx, append(append(append([]string{"events"}, conn...), "--output", "json"), args...), strings.NewReader(""), pw, errw)
		pw.Close()
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not JSON: %q", sc.Text())
				continue
			}
			ev.lines <- m
		}
		close(ev.lines)
	}()
	t.Cleanup(cancel)
	return ev
}

// waitFor returns the next event that matches, failing after a minute.
func (ev *eventStream) waitFor(what string, match func(map[string]any) bool) map[string]any {
	t := ev.t
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case m, ok := <-ev.lines:
			if !ok {
				t.Fatalf("stream ended waiting for %s (stderr %q)", what, ev.errOut.String())
			}
			if _, err := time.Parse(time.RFC3339Nano, m["time"].(string)); err != nil {
				t.Fatalf("time %v: %v", m["time"], err)
			}
			if match(m) {
				return m
			}
		case <-timeout:
			t.Fatalf("no %s within a minute", what)
		}
	}
}

// stop cancels the command and checks that it ends with status 0.
func (ev *eventStream) stop() {
	t := ev.t
	t.Helper()
	ev.cancel()
	select {
	case code := <-ev.done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, ev.errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("events did not stop when cancelled")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestEventsText: without --from-start the initial state is not printed;
// text lines carry a timestamp and the change in words.
func TestEventsText(t *testing.T) {
	addr := seed(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		runContext(ctx, []string{"events", "--zookeeper", addr}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	lines := make(chan string, 256)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	changed := false
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("stream ended")
			}
			if strings.Contains(line, "topic_created") {
				t.Fatalf("initial state printed without --from-start: %q", line)
			}
			if strings.HasSuffix(line, "connection connected") && !changed {
				// Give the mirror its first load, then change something.
				time.Sleep(300 * time.Millisecond)
				conn := connectTest(t, addr)
				if _, err := conn.Set("/brokers/topics/legacy/partitions/0/state",
					[]byte(`{"controller_epoch":3,"leader":1,"version":1,"leader_epoch":4,"isr":[1,2]}`), -1); err != nil {
					t.Fatal(err)
				}
				changed = true
			}
			if strings.Contains(line, "isr_expanded legacy-0: +[2] isr [1,2]") {
				if _, err := time.Parse("2006-01-02T15:04:05.000Z", line[:24]); err != nil {
					t.Fatalf("timestamp in %q: %v", line, err)
				}
				return
			}
		case <-timeout:
			t.Fatal("no isr_expanded line within 20s")
		}
	}
}
