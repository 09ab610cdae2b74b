package wire

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Read-ahead sizing. A list body is read in up to readAheadChunks chunks
// of readAheadChunk bytes, each network read waiting for at least
// readAheadMin bytes (or the end). A watch stream is read in up to
// watchChunks chunks of watchChunk bytes, each read returning what has
// arrived; once the decoder has waited watchIdleAfter for the next event,
// the chunks not in use are let go.
const (
	readAheadChunk  = 128 << 10
	readAheadChunks = 8
	readAheadMin    = 64 << 10
	watchChunk      = 32 << 10
	watchChunks     = 32
	watchIdleAfter  = time.Second
)

// readAhead reads a response body in a goroutine of its own, into a
// bounded set of reused chunks, ahead of the decoder consuming it. Without
// it the decoder reads the socket whenever its buffer runs dry and the
// server's writes stall whenever the decoder is busy: every such hand-off
// waits for the scheduler, which on a loaded machine costs more wall time
// than the decoding itself. With it the transfer runs at the network's
// pace while the decoder works, holding at most a fixed number of chunks.
//
// A watch-list's stream (newWatchReadAhead), whose initial events arrive
// as fast as a list's items, is read the same way in smaller chunks. Its
// reads never wait for more bytes than have arrived, so an event reaches
// the decoder as soon as it is read; and once the stream idles, or its
// initial events have ended (Watch trims at the bookmark that says so), it
// holds only the chunk of the read that waits for the next event.
//
// Read, trim and Close are for one goroutine (the decoder's); the read-ahead
// goroutine is started by newReadAhead or newWatchReadAhead and ended by
// Close, which waits for it.
type readAhead struct {
	src    io.ReadCloser
	chunk  int         // bytes per chunk
	chunks int         // chunks at most
	min    int         // bytes a read waits for
	full   chan []byte // chunks read, in order; closed after the last
	free   chan []byte // chunks consumed, to be reused
	err    error       // why reading ended; written before full is closed
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	// allocated counts the chunks made and not let go: read and not yet
	// consumed, being consumed, or free. The read-ahead goroutine adds
	// the chunks it makes; trim takes off those it lets go and then wakes
	// the goroutine through wake if it waits for a free chunk.
	allocated atomic.Int32
	wake      chan struct{}

	// idleAfter is how long the decoder waits for a watch stream's next
	// chunk before letting the free ones go; zero for a list body.
	idleAfter time.Duration
	idle      *time.Timer

	cur, curBuf []byte // the chunk being consumed: unread part, whole
}

// newReadAhead reads a list body ahead.
func newReadAhead(src io.ReadCloser) *readAhead {
	return startReadAhead(&readAhead{src: src, chunk: readAheadChunk, chunks: readAheadChunks, min: readAheadMin})
}

// newWatchReadAhead reads a watch stream ahead.
func newWatchReadAhead(src io.ReadCloser) *readAhead {
	return startReadAhead(&readAhead{src: src, chunk: watchChunk, chunks: watchChunks, min: 1, idleAfter: watchIdleAfter})
}

func startReadAhead(r *readAhead) *readAhead {
	r.full = make(chan []byte, r.chunks)
	r.free = make(chan []byte, r.chunks)
	r.wake = make(chan struct{}, 1)
	r.stop = make(chan struct{})
	r.done = make(chan struct{})
	go r.run()
	return r
}

func (r *readAhead) run() {
	defer close(r.done)
	defer close(r.full)
	for {
		var buf []byte
		for buf == nil {
			select {
			case buf = <-r.free:
				continue
			default:
			}
			if int(r.allocated.Load()) < r.chunks {
				r.allocated.Add(1)
				buf = make([]byte, r.chunk)
				continue
			}
			select {
			case buf = <-r.free:
			case <-r.wake:
			case <-r.stop:
				r.err = errors.New("read-ahead stopped")
				return
			}
		}
		n, err := io.ReadAtLeast(r.src, buf[:cap(buf)], r.min)
		if n > 0 {
			select {
			case r.full <- buf[:n]:
			case <-r.stop:
				r.err = errors.New("read-ahead stopped")
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF // the body ended before r.min more bytes
			}
			r.err = err
			return
		}
	}
}

// Read returns bytes in the order the body delivered them, then the error
// that ended the body (io.EOF at its end).
func (r *readAhead) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.cur) == 0 {
		b, ok := r.next()
		if !ok {
			return 0, r.err
		}
		r.cur, r.curBuf = b, b
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	if len(r.cur) == 0 {
		// Consumed: the chunk is free for the next read at once.
		r.free <- r.curBuf // never blocks: at most r.chunks exist
		r.curBuf = nil
	}
	return n, nil
}

// next receives the next chunk. A watch stream whose next chunk does not
// come within idleAfter lets its free chunks go before waiting on.
func (r *readAhead) next() ([]byte, bool) {
	if r.idleAfter == 0 {
		b, ok := <-r.full
		return b, ok
	}
	select {
	case b, ok := <-r.full:
		return b, ok
	default:
	}
	if r.idle == nil {
		r.idle = time.NewTimer(r.idleAfter)
	} else {
		r.idle.Reset(r.idleAfter)
	}
	select {
	case b, ok := <-r.full:
		r.idle.Stop()
		return b, ok
	case <-r.idle.C:
	}
	r.trim()
	b, ok := <-r.full
	return b, ok
}

// trim lets every free chunk go.
func (r *readAhead) trim() {
	n := 0
	for {
		select {
		case <-r.free:
			n++
			continue
		default:
		}
		break
	}
	if n == 0 {
		return
	}
	r.allocated.Add(int32(-n))
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Close closes the body, which ends a read in progress, and waits for the
// read-ahead goroutine to end.
func (r *readAhead) Close() error {
	var err error
	r.once.Do(func() {
		close(r.stop)
		err = r.src.Close()
	})
	<-r.done
	return err
}
