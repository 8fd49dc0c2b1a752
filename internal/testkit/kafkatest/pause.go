package kafkatest

import "syscall"

// Pause freezes the broker's process (SIGSTOP), as a long GC pause or a
// stalled machine would: its sockets stay open, it sends nothing, and its
// ZooKeeper session expires on the server while it is frozen.
func (b *Broker) Pause() { b.sendSignal(syscall.SIGSTOP) }

// Resume lets a paused broker run again (SIGCONT). A broker frozen for
// longer than its session timeout finds its session expired and
// registers again with a new one.
func (b *Broker) Resume() { b.sendSignal(syscall.SIGCONT) }

func (b *Broker) sendSignal(sig syscall.Signal) {
	b.mu.Lock()
	cmd := b.cmd
	b.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
	}
}
