package framework

import (
	"fmt"
	"net"
)

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago. The
// caller binds it soon after; a clash makes the server fail to start, which
// Start reports with the server's log.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
