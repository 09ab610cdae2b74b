package framework

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
)

// Partition is a dialer that a test can cut off from the network: Cut
// closes every connection it made and makes new dials fail with
// "connection refused" until Heal. Put Dial into a rest.Config to partition
// one client (e.g. an informer's) while others keep working.
type Partition struct {
	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
	d     net.Dialer
}

// NewPartition returns a healed partition.
func NewPartition() *Partition { return &Partition{conns: map[net.Conn]struct{}{}} }

// Dial connects unless the partition is cut. It has the signature of
// rest.Config.Dial.
func (p *Partition) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	p.mu.Lock()
	cut := p.cut
	p.mu.Unlock()
	if cut {
		return nil, refused(network, address)
	}
	conn, err := p.d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		conn.Close()
		return nil, refused(network, address)
	}
	tc := &trackedConn{Conn: conn, p: p}
	p.conns[tc] = struct{}{}
	return tc, nil
}

func refused(network, address string) error {
	return &net.OpError{Op: "dial", Net: network, Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED},
		Addr: stringAddr{network, address}}
}

type stringAddr struct{ network, address string }

func (a stringAddr) Network() string { return a.network }
func (a stringAddr) String() string  { return a.address }

// Cut closes every open connection and refuses new ones.
func (p *Partition) Cut() {
	p.mu.Lock()
	p.cut = true
	conns := p.conns
	p.conns = map[net.Conn]struct{}{}
	p.mu.Unlock()
	for c := range conns {
		c.(*trackedConn).Conn.Close()
	}
}

// Heal lets new connections through again.
func (p *Partition) Heal() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}

// String describes the partition's state.
func (p *Partition) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("partition{cut: %v, conns: %d}", p.cut, len(p.conns))
}

type trackedConn struct {
	net.Conn
	p    *Partition
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.mu.Unlock()
	})
	return c.Conn.Close()
}
