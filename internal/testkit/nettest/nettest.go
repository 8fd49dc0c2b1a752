// Package nettest runs the small TCP peers the connection tests meet: a
// listener that takes connections and answers nothing, one that closes
// them at once, one that answers as a test says.
package nettest

import (
	"io"
	"net"
	"testing"
)

// Serve runs a listener on loopback whose connections handle takes; it
// closes when the test ends. It returns its address.
func Serve(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return ln.Addr().String()
}

// Silent takes connections, reads what they send and never answers.
func Silent(t testing.TB) string {
	t.Helper()
	return Serve(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c); c.Close() })
}

// Closing takes connections and closes them at once.
func Closing(t testing.TB) string {
	t.Helper()
	return Serve(t, func(c net.Conn) { c.Close() })
}
