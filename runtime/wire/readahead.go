package wire

import (
	"errors"
	"io"
	"sync"
)

// Read-ahead sizing for list bodies: up to readAheadChunks chunks of
// readAheadChunk bytes are read before the decoder needs them, and each
// network read waits for at least readAheadMin bytes (or the end).
const (
	readAheadChunk  = 128 << 10
	readAheadChunks = 8
	readAheadMin    = 64 << 10
)

// readAhead reads a response body in a goroutine of its own, into a
// bounded set of reused chunks, ahead of the decoder consuming it. Without
// it the decoder reads the socket whenever its buffer runs dry and the
// server's writes stall whenever the decoder is busy: every such hand-off
// waits for the scheduler, which on a loaded machine costs more wall time
// than the decoding itself. With it the transfer runs at the network's
// pace while the decoder works, holding at most readAheadChunks chunks.
//
// Read and Close are for one goroutine (the decoder's); the read-ahead
// goroutine is started by newReadAhead and ended by Close, which waits for
// it.
type readAhead struct {
	src  io.ReadCloser
	full chan []byte // chunks read, in order; closed after the last
	free chan []byte // chunks consumed, to be reused
	err  error       // why reading ended; written before full is closed
	stop chan struct{}
	done chan struct{}
	once sync.Once

	cur, curBuf []byte // the chunk being consumed: unread part, whole
}

func newReadAhead(src io.ReadCloser) *readAhead {
	r := &readAhead{
		src:  src,
		full: make(chan []byte, readAheadChunks),
		free: make(chan []byte, readAheadChunks),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go r.run()
	return r
}

func (r *readAhead) run() {
	defer close(r.done)
	defer close(r.full)
	allocated := 0
	for {
		var buf []byte
		select {
		case buf = <-r.free:
		default:
			if allocated < readAheadChunks {
				allocated++
				buf = make([]byte, readAheadChunk)
				break
			}
			select {
			case buf = <-r.free:
			case <-r.stop:
				r.err = errors.New("read-ahead stopped")
				return
			}
		}
		n, err := io.ReadAtLeast(r.src, buf[:cap(buf)], readAheadMin)
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
				err = io.EOF // the body ended before readAheadMin more bytes
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
		if r.curBuf != nil {
			r.free <- r.curBuf // never blocks: at most readAheadChunks exist
			r.curBuf = nil
		}
		b, ok := <-r.full
		if !ok {
			return 0, r.err
		}
		r.cur, r.curBuf = b, b
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
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
