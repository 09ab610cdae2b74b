package framework

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// lowestPort is the bottom of the range FreePort picks from, above the
// ports that system services commonly use.
const lowestPort = 10000

// handedOut holds the ports FreePort returned in this process, so that two
// servers started by one test never get the same port before either binds.
var handedOut struct {
	sync.Mutex
	ports map[int]bool
}

// FreePort returns a TCP port on 127.0.0.1 that is free now and lies below
// the kernel's ephemeral range. A socket bound to port 0 and the local end
// of an outgoing connection both come from that range, so neither can take
// the port between this call and the caller binding it, and a server that
// restarts finds its port still free. The port is not handed out again by
// this process. Where the ephemeral range leaves no room below it, the port
// comes from the kernel, and only "free a moment ago" holds.
func FreePort() (int, error) {
	top := ephemeralLow() - 1
	handedOut.Lock()
	defer handedOut.Unlock()
	if handedOut.ports == nil {
		handedOut.ports = map[int]bool{}
	}
	if top-lowestPort >= 1000 {
		for range 200 {
			p := lowestPort + rand.IntN(top-lowestPort+1)
			if handedOut.ports[p] {
				continue
			}
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				continue
			}
			l.Close()
			handedOut.ports[p] = true
			return p, nil
		}
	}
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("finding a free port: %w", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !handedOut.ports[p] {
			handedOut.ports[p] = true
			return p, nil
		}
	}
	return 0, errors.New("finding a free port: the kernel kept offering ports already handed out")
}

// ephemeralLow is the first port of the kernel's ephemeral range: Linux's
// ip_local_port_range, else the range IANA suggests, which other systems
// use.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if low, err := strconv.Atoi(f[0]); err == nil && low > 0 {
				return low
			}
		}
	}
	return 49152
}
