package proxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// echoServer echoes every line back until the connection ends.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

func start(t *testing.T) (*Proxy, net.Conn, *bufio.Reader) {
	t.Helper()
	p, err := New(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return p, c, bufio.NewReader(c)
}

func roundTrip(c net.Conn, r *bufio.Reader, line string) (string, error) {
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	got, err := r.ReadString('\n')
	return strings.TrimSuffix(got, "\n"), err
}

// readWithin reads a line, giving up after d (the fault under test keeps
// it from arriving; d bounds how long the test waits to see that).
func readWithin(c net.Conn, r *bufio.Reader, d time.Duration) (string, error) {
	_ = c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	s, err := r.ReadString('\n')
	return strings.TrimSuffix(s, "\n"), err
}

func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(p *Proxy)
		// check runs after the fault, with the connection made before it.
		check func(t *testing.T, p *Proxy, c net.Conn, r *bufio.Reader)
	}{
		{
			name:  "reset aborts the open connection with RST",
			fault: func(p *Proxy) { p.Reset() },
			check: func(t *testing.T, p *Proxy, c net.Conn, r *bufio.Reader) {
				_, err := roundTrip(c, r, "after")
				if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) && !errors.Is(err, syscall.EPIPE) {
					t.Fatalf("after Reset: %v, want connection reset", err)
				}
				if _, resets := p.Stats(); resets != 1 {
					t.Errorf("resets = %d, want 1", resets)
				}
				// New connections still work.
				c2, err := net.Dial("tcp", p.Addr())
				if err != nil {
					t.Fatal(err)
				}
				defer c2.Close()
				if got, err := roundTrip(c2, bufio.NewReader(c2), "new"); err != nil || got != "new" {
					t.Errorf("new connection after Reset: %q, %v", got, err)
				}
			},
		},
		{
			name:  "hang stalls without closing; heal delivers what was sent",
			fault: func(p *Proxy) { p.Hang() },
			check: func(t *testing.T, p *Proxy, c net.Conn, r *bufio.Reader) {
				if _, err := io.WriteString(c, "held\n"); err != nil {
					t.Fatal(err)
				}
				if got, err := readWithin(c, r, 200*time.Millisecond); !isTimeout(err) {
					t.Fatalf("while hung: read %q, %v; want a timeout", got, err)
				}
				if p.Open() != 1 {
					t.Errorf("open connections while hung = %d, want 1", p.Open())
				}
				p.Heal()
				if got, err := r.ReadString('\n'); err != nil || got != "held\n" {
					t.Errorf("after Heal: %q, %v; want the held line", got, err)
				}
			},
		},
		{
			name:  "paused accepts leave new connections unanswered until heal",
			fault: func(p *Proxy) { p.PauseAccept() },
			check: func(t *testing.T, p *Proxy, c net.Conn, r *bufio.Reader) {
				if got, err := roundTrip(c, r, "old"); err != nil || got != "old" {
					t.Errorf("open connection while accepts pause: %q, %v", got, err)
				}
				c2, err := net.Dial("tcp", p.Addr())
				if err != nil {
					t.Fatal(err)
				}
				defer c2.Close()
				r2 := bufio.NewReader(c2)
				if _, err := io.WriteString(c2, "new\n"); err != nil {
					t.Fatal(err)
				}
				if got, err := readWithin(c2, r2, 200*time.Millisecond); !isTimeout(err) {
					t.Fatalf("new connection while paused: %q, %v; want a timeout", got, err)
				}
				p.Heal()
				if got, err := r2.ReadString('\n'); err != nil || got != "new\n" {
					t.Errorf("after Heal: %q, %v", got, err)
				}
			},
		},
		{
			name:  "latency delays each chunk",
			fault: func(p *Proxy) { p.SetLatency(300 * time.Millisecond) },
			check: func(t *testing.T, p *Proxy, c net.Conn, r *bufio.Reader) {
				if _, err := io.WriteString(c, "slow\n"); err != nil {
					t.Fatal(err)
				}
				// Two hops of 300ms each: nothing can arrive within 300ms.
				if got, err := readWithin(c, r, 300*time.Millisecond); !isTimeout(err) {
					t.Fatalf("with latency: %q, %v; want a timeout", got, err)
				}
				if got, err := r.ReadString('\n'); err != nil || got != "slow\n" {
					t.Errorf("delayed line: %q, %v", got, err)
				}
			},
		},
		{
			name:  "bandwidth throttles",
			fault: func(p *Proxy) { p.SetBandwidth(10) },
			check: func(t *testing.T, p *Proxy, c net.Conn, r *bufio.Reader) {
				// 20 bytes at 10 B/s take 2s per hop.
				if _, err := io.WriteString(c, strings.Repeat("x", 19)+"\n"); err != nil {
					t.Fatal(err)
				}
				if got, err := readWithin(c, r, 500*time.Millisecond); !isTimeout(err) {
					t.Fatalf("throttled: %q, %v; want a timeout", got, err)
				}
				p.Heal() // the chunk in flight still pays its delay
				if got, err := r.ReadString('\n'); err != nil || len(got) != 20 {
					t.Errorf("throttled line: %q, %v", got, err)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, c, r := start(t)
			if got, err := roundTrip(c, r, "before"); err != nil || got != "before" {
				t.Fatalf("before the fault: %q, %v", got, err)
			}
			tc.fault(p)
			tc.check(t, p, c, r)
		})
	}
}

func TestCloseEndsHungConnections(t *testing.T) {
	p, c, r := start(t)
	if _, err := roundTrip(c, r, "x"); err != nil {
		t.Fatal(err)
	}
	p.Hang()
	if _, err := io.WriteString(c, "stuck\n"); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil { // returns only once every goroutine did
		t.Fatal(err)
	}
	if _, err := r.ReadString('\n'); err == nil {
		t.Error("read after Close succeeded")
	}
	if p.Open() != 0 {
		t.Errorf("open connections after Close: %d", p.Open())
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
