package cmd

import (
	"os"
	"strings"
	"unsafe"
)

// scrubArgs overwrites the password of a --zk-digest given on the command
// line in the process's own argument list, which ps and /proc/<pid>/cmdline
// show every user of the machine, as MySQL's and PostgreSQL's clients do
// with theirs: "--zk-digest alice:hunter2" then shows as
// "--zk-digest alice:xxxxxxx". The password was visible until then (and
// stays in the shell's history), which is why ktopo warns and points to
// $KTOPO_ZK_DIGEST and the config file's contexts, which never put it
// there.
//
// Go's os.Args strings are the very bytes of the process's argument area
// (the runtime does not copy them), so writing them changes what the
// kernel reports. Nothing else may hold those bytes: the caller passes a
// copy of the digest, and only the real process's os.Args are touched
// (in-process tests run with arguments of their own).
func scrubArgs(digest string) {
	_, pass, ok := strings.Cut(digest, ":")
	if !ok || pass == "" {
		return
	}
	for i, a := range os.Args {
		if i == 0 {
			continue
		}
		for {
			j := strings.Index(a, pass)
			if j < 0 {
				break
			}
			b := unsafe.Slice(unsafe.StringData(os.Args[i]), len(os.Args[i]))
			for k := j; k < j+len(pass); k++ {
				b[k] = 'x'
			}
			a = os.Args[i]
		}
	}
}
