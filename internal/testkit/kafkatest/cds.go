package kafkatest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Class data sharing (AppCDS) halves a Kafka JVM's start on this kind of
// machine (a combined KRaft node of 4.4.0: about 2.6 s to "Kafka Server
// started" without, 1.2 s with): the first process of a kind that exits
// cleanly dumps the classes it loaded into an archive in the cache
// (-XX:ArchiveClassesAtExit), later processes map it
// (-XX:SharedArchiveFile). An archive made by another JDK or for other
// jars is refused by the JVM, which then loads classes the ordinary way;
// the key below keeps such an archive from being used at all.

// cdsKind names the archive of a node role: the classes a ZooKeeper-mode
// broker, a KRaft broker, controller or combined node load differ.
func cdsKind(r Role) string {
	switch r {
	case ZKBroker:
		return "zk-broker"
	case KRaftBroker:
		return "kraft-broker"
	case KRaftController:
		return "kraft-controller"
	default:
		return "kraft-combined"
	}
}

// cds is one JVM's class-sharing flags, and what to do once it exited.
type cds struct {
	flags []string
	done  func()
}

var cdsSeq struct {
	sync.Mutex
	n int
}

// classSharing returns the flags that use the archive of kind for the
// dist, or, while there is none, make the JVM dump one when it exits
// (into a file of its own, renamed into place then: concurrent first runs
// never see a half-written archive). KTOPO_NO_CDS=1 turns it off.
func classSharing(d *Dist, kind string) cds {
	none := cds{done: func() {}}
	if os.Getenv("KTOPO_NO_CDS") != "" {
		return none
	}
	key := jvmKey(d)
	if key == "" {
		return none
	}
	dir := filepath.Join(filepath.Dir(d.Libs), "cds")
	archive := filepath.Join(dir, kind+"-"+key+".jsa")
	quiet := []string{"-Xlog:cds=off", "-Xlog:cds+dynamic=off"}
	if _, err := os.Stat(archive); err == nil {
		return cds{flags: append(quiet, "-XX:SharedArchiveFile="+archive), done: func() {}}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return none
	}
	cdsSeq.Lock()
	cdsSeq.n++
	tmp := fmt.Sprintf("%s.%d-%d.tmp", archive, os.Getpid(), cdsSeq.n)
	cdsSeq.Unlock()
	return cds{
		flags: append(quiet, "-XX:ArchiveClassesAtExit="+tmp),
		done: func() {
			// A killed JVM dumps nothing; a clean exit leaves the archive.
			if st, err := os.Stat(tmp); err == nil && st.Size() > 0 {
				if _, err := os.Stat(archive); err != nil {
					_ = os.Rename(tmp, archive)
				}
			}
			_ = os.Remove(tmp)
		},
	}
}

var jvmKeys sync.Map // libs dir → key

// jvmKey identifies the JDK and the jars an archive is valid for: the
// java binary (resolved, with its modification time) and the moment the
// jars were fetched. "" when java cannot be found.
func jvmKey(d *Dist) string {
	if k, ok := jvmKeys.Load(d.Libs); ok {
		return k.(string)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		return ""
	}
	st, err := os.Stat(real)
	if err != nil {
		return ""
	}
	var fetched time.Time
	if m, err := os.Stat(filepath.Join(filepath.Dir(d.Libs), "complete")); err == nil {
		fetched = m.ModTime()
	}
	sum := sha256.Sum256([]byte(real + "\x00" + strconv.FormatInt(st.ModTime().UnixNano(), 10) + "\x00" + strconv.FormatInt(fetched.UnixNano(), 10)))
	k := hex.EncodeToString(sum[:6])
	jvmKeys.Store(d.Libs, k)
	return k
}
