package zkserver

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// knownWords are the four-letter words ZooKeeper 3.8 recognises in the
// first four bytes of a connection (FourLetterCommands); any other four
// bytes are read as a frame length.
var knownWords = []string{
	"conf", "cons", "crst", "dirs", "dump", "envi", "gtmk", "ruok", "stmk", "srst",
	"srvr", "stat", "wchc", "wchp", "wchs", "mntr", "isro", "hash",
}

func isFourLetterWord(w string) bool { return slices.Contains(knownWords, w) }

// version is what srvr and mntr report: ZooKeeper's version (clients and
// tools parse it) plus this implementation's name, in the format
// go-zookeeper's FLWSrvr can parse.
const version = "3.8.0-ktopo-zkserver, built on 01/01/2026 00:00 GMT"

// fourLetter answers a four-letter word (spec §1.1).
func (s *Server) fourLetter(word string) string {
	if !slices.Contains(s.cfg.FourLetterWords, word) {
		return word + " is not executed because it is not in the whitelist.\n"
	}
	st := s.stats()
	var b strings.Builder
	switch word {
	case "ruok":
		return "imok"
	case "srvr", "stat":
		fmt.Fprintf(&b, "Zookeeper version: %s\n", version)
		if word == "stat" {
			b.WriteString("Clients:\n\n")
		}
		fmt.Fprintf(&b, "Latency min/avg/max: 0/0.0/0\nReceived: %d\nSent: %d\nConnections: %d\nOutstanding: 0\nZxid: 0x%x\nMode: standalone\nNode count: %d\n",
			st.received, st.sent, st.connections, st.zxid, st.nodes)
	case "mntr":
		fmt.Fprintf(&b, "zk_version\t%s\n", version)
		fmt.Fprintf(&b, "zk_server_state\tstandalone\n")
		fmt.Fprintf(&b, "zk_ephemerals_count\t%d\n", st.ephemerals)
		fmt.Fprintf(&b, "zk_num_alive_connections\t%d\n", st.connections)
		fmt.Fprintf(&b, "zk_avg_latency\t0.0\nzk_outstanding_requests\t0\n")
		fmt.Fprintf(&b, "zk_znode_count\t%d\n", st.nodes)
		fmt.Fprintf(&b, "zk_global_sessions\t%d\n", st.sessions)
		fmt.Fprintf(&b, "zk_packets_sent\t%d\n", st.sent)
		fmt.Fprintf(&b, "zk_packets_received\t%d\n", st.received)
		fmt.Fprintf(&b, "zk_watch_count\t%d\n", st.watches)
		fmt.Fprintf(&b, "zk_min_latency\t0\nzk_max_latency\t0\n")
		fmt.Fprintf(&b, "zk_approximate_data_size\t%d\n", st.dataSize)
		fmt.Fprintf(&b, "zk_uptime\t%d\n", time.Since(s.start).Milliseconds())
	default:
		// Whitelisted but not implemented here.
		return word + " is not executed because it is not in the whitelist.\n"
	}
	return b.String()
}

// Stats is a snapshot of the server's counters.
type Stats struct {
	Zxid        int64 // last zxid
	Nodes       int   // znode count as ZooKeeper reports it (root counted twice)
	Ephemerals  int
	Sessions    int
	Connections int
	Watches     int // (path, connection) watch registrations
}

type stats struct {
	zxid                                              int64
	nodes, ephemerals, sessions, connections, watches int
	received, sent                                    int64
	dataSize                                          int64
}

func (s *Server) stats() stats {
	var st stats
	s.mu.RLock()
	st.zxid = s.zxid.Load()
	// ZooKeeper stores the root under both "" and "/".
	st.nodes = len(s.tree.nodes) + 1
	st.ephemerals = s.tree.ephemerals
	st.sessions = len(s.sessions)
	st.dataSize = s.tree.dataBytes
	for p := range s.tree.nodes {
		st.dataSize += int64(len(p))
	}
	s.mu.RUnlock()
	s.wmu.Lock()
	st.watches = s.dataW.count() + s.childW.count()
	s.wmu.Unlock()
	s.connMu.Lock()
	st.connections = len(s.conns)
	s.connMu.Unlock()
	st.received, st.sent = s.received.Load(), s.sent.Load()
	return st
}

// Stats returns the server's current counters.
func (s *Server) Stats() Stats {
	st := s.stats()
	return Stats{Zxid: st.zxid, Nodes: st.nodes, Ephemerals: st.ephemerals, Sessions: st.sessions,
		Connections: st.connections, Watches: st.watches}
}
