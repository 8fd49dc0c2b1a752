package zkserver_test

import (
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/zkserver"
)

// Start an embedded server on a free loopback port and use it with
// go-zookeeper.
func Example() {
	srv, err := zkserver.Start(zkserver.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	conn, _, err := zk.Connect([]string{srv.Addr()}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	if _, err := conn.Create("/hello", []byte("world"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		panic(err)
	}
	data, stat, _ := conn.Get("/hello")
	children, _, _ := conn.Children("/")
	fmt.Println(string(data), stat.Version, children)
	// Output: world 0 [hello zookeeper]
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}
