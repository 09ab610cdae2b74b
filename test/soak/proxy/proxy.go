// Package proxy is a TCP proxy that injects network faults between a client
// and one server: it resets connections mid-stream, hangs them without
// closing, delays and throttles them, and pauses accepting new ones. It
// forwards bytes and never looks at them, so TLS passes through.
package proxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// chunk is the most a forwarder reads before passing bytes on; throttling
// and latency apply per chunk.
const chunk = 16 << 10

// Proxy accepts connections on a loopback port and forwards each to the
// target address. Fault methods apply to open and future connections alike
// until Heal. Methods are safe for concurrent use. Close stops accepting,
// closes every connection and waits for all of the Proxy's goroutines.
type Proxy struct {
	target string
	ln     net.Listener
	wg     sync.WaitGroup

	mu       sync.Mutex
	conns    map[*pair]struct{}
	hung     chan struct{} // closed while forwarding is allowed
	accepts  chan struct{} // closed while new connections are served
	latency  time.Duration
	bps      int // bytes per second per direction and connection; 0 = unlimited
	accepted int
	resets   int
	closed   bool
}

// pair is one proxied connection: the client's side and the server's.
type pair struct {
	client, server net.Conn
	once           sync.Once
	done           chan struct{} // closed by abort
}

// New listens on 127.0.0.1 (a free port) and forwards to target.
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy to %s: %w", target, err)
	}
	p := &Proxy{target: target, ln: ln, conns: map[*pair]struct{}{}, hung: closedChan(), accepts: closedChan()}
	p.wg.Go(p.acceptLoop)
	return p, nil
}

// Addr is the address clients connect to, host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Stats returns how many connections were accepted and reset so far.
func (p *Proxy) Stats() (accepted, resets int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted, p.resets
}

// Open returns the number of open connections.
func (p *Proxy) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// Reset aborts every open connection with a TCP RST on both sides, as a
// crashed middlebox would, and returns how many it reset.
func (p *Proxy) Reset() int {
	p.mu.Lock()
	conns := make([]*pair, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.resets += len(conns)
	p.mu.Unlock()
	for _, c := range conns {
		c.abort()
	}
	return len(conns)
}

// Hang stops forwarding on every connection, open or new, without closing
// any: reads and writes stall as on a silent network, until Heal.
func (p *Proxy) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if isClosed(p.hung) {
		p.hung = make(chan struct{})
	}
}

// PauseAccept leaves new connections unserved (the kernel completes their
// handshake, nothing answers) until Heal.
func (p *Proxy) PauseAccept() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if isClosed(p.accepts) {
		p.accepts = make(chan struct{})
	}
}

// SetLatency delays every chunk of bytes by d in each direction.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// SetBandwidth limits each direction of each connection to bytesPerSecond;
// 0 removes the limit.
func (p *Proxy) SetBandwidth(bytesPerSecond int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bps = bytesPerSecond
}

// Heal ends every fault: hung connections resume (nothing they sent was
// lost), paused accepts are served, latency and throttling are removed.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !isClosed(p.hung) {
		close(p.hung)
	}
	if !isClosed(p.accepts) {
		close(p.accepts)
	}
	p.latency, p.bps = 0, 0
}

// Close stops the proxy: no more accepts, every connection closed, every
// goroutine returned.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.Heal()
	p.Reset()
	p.wg.Wait()
	return err
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (p *Proxy) acceptLoop() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.wg.Go(func() { p.serve(c) })
	}
}

func (p *Proxy) serve(client net.Conn) {
	p.mu.Lock()
	accepts := p.accepts
	p.mu.Unlock()
	<-accepts // Close heals, so this never outlives the proxy
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		abort(client) // as a refused connection would look to the client
		return
	}
	c := &pair{client: client, server: server, done: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.abort()
		return
	}
	p.accepted++
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(func() { p.forward(c, server, client) })
	wg.Go(func() { p.forward(c, client, server) })
	wg.Wait()
	c.abort()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// forward copies src to dst chunk by chunk, applying the current faults.
// When src ends cleanly, dst's write side is closed so the far end sees
// EOF; any error ends both directions.
func (p *Proxy) forward(c *pair, dst, src net.Conn) {
	buf := make([]byte, chunk)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			hung, latency, bps := p.hung, p.latency, p.bps
			p.mu.Unlock()
			select {
			case <-hung:
			case <-c.done:
				return
			}
			if latency > 0 {
				time.Sleep(latency)
			}
			if bps > 0 {
				time.Sleep(time.Duration(n) * time.Second / time.Duration(bps))
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				c.abort()
				return
			}
		}
		if errors.Is(err, io.EOF) {
			if tc, ok := dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			return
		}
		if err != nil {
			c.abort()
			return
		}
	}
}

// abort closes both sides with SO_LINGER 0, so that each peer gets a RST.
func (c *pair) abort() {
	c.once.Do(func() {
		close(c.done)
		abort(c.client)
		abort(c.server)
	})
}

func abort(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
