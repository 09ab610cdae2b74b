package wire

import (
	"errors"
	"fmt"
	"io"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
)

// Initial sizes of a jsonStream's buffer, which doubles for a value that
// does not fit: a list is read in large pieces while it lasts; a watch
// stream lives as long as its watch and carries one event at a time.
const (
	jsonListBuffer  = 256 << 10
	jsonWatchBuffer = 16 << 10
)

// jsonStream cuts a JSON text read from r into tokens and whole values.
// The bytes a value is returned in are valid until the next call. It is
// used by one goroutine.
type jsonStream struct {
	r   io.Reader
	buf []byte
	off int   // buf[off:] is unread
	err error // why r ended; io.EOF at its end
}

func newJSONStream(r io.Reader, size int) *jsonStream {
	return &jsonStream{r: r, buf: make([]byte, 0, size)}
}

// more reads more bytes, keeping the unread ones; it returns false when r
// has ended.
func (j *jsonStream) more() bool {
	if j.err != nil {
		return false
	}
	if j.off > 0 {
		n := copy(j.buf, j.buf[j.off:])
		j.buf, j.off = j.buf[:n], 0
	}
	if len(j.buf) == cap(j.buf) {
		nb := make([]byte, len(j.buf), 2*cap(j.buf))
		copy(nb, j.buf)
		j.buf = nb
	}
	for {
		n, err := j.r.Read(j.buf[len(j.buf):cap(j.buf)])
		j.buf = j.buf[:len(j.buf)+n]
		if err != nil {
			j.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// readErr is the error for a text that ended where more was needed.
func (j *jsonStream) readErr() error {
	if j.err == nil || errors.Is(j.err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return j.err
}

// peek skips white space and returns the next byte without consuming it;
// at the end of the text it returns the reason (io.EOF at a clean end).
func (j *jsonStream) peek() (byte, error) {
	for {
		for j.off < len(j.buf) {
			switch c := j.buf[j.off]; c {
			case ' ', '\t', '\r', '\n':
				j.off++
			default:
				return c, nil
			}
		}
		if !j.more() {
			return 0, j.err
		}
	}
}

// expect consumes the byte c, which must come next.
func (j *jsonStream) expect(c byte) error {
	got, err := j.peek()
	if err != nil {
		return eofIsUnexpected(err)
	}
	if got != c {
		return fmt.Errorf("want %q, got %q", c, got)
	}
	j.off++
	return nil
}

// value returns the bytes of the next value, with its syntax checked.
func (j *jsonStream) value() ([]byte, error) {
	if _, err := j.peek(); err != nil {
		return nil, eofIsUnexpected(err)
	}
	for {
		n, err := jsondec.Skip(j.buf[j.off:])
		var se *jsondec.SyntaxError
		switch {
		case err == nil && (j.off+n < len(j.buf) || j.err != nil):
			v := j.buf[j.off : j.off+n]
			j.off += n
			return v, nil
		case err == nil, errors.As(err, &se) && se.Truncated:
			// The value, or a number, may go on in bytes not read yet.
			if !j.more() {
				if err == nil {
					continue
				}
				return nil, j.readErr()
			}
		default:
			return nil, err
		}
	}
}

// decode calls dec with the unread bytes, from the start of the next
// value; dec decodes the value and returns how many bytes it took. While
// dec finds the value cut off by the end of what was read, decode reads
// more and calls dec again from the value's start.
func (j *jsonStream) decode(dec func([]byte) (int, error)) error {
	if _, err := j.peek(); err != nil {
		return eofIsUnexpected(err)
	}
	for {
		n, err := dec(j.buf[j.off:])
		if err == nil {
			j.off += n
			return nil
		}
		var se *jsondec.SyntaxError
		if !errors.As(err, &se) || !se.Truncated {
			return err
		}
		if !j.more() {
			return j.readErr()
		}
	}
}

// key reads an object's key and the colon after it.
func (j *jsonStream) key() (string, error) {
	c, err := j.peek()
	if err != nil {
		return "", eofIsUnexpected(err)
	}
	if c != '"' {
		return "", fmt.Errorf("want an object key, got %q", c)
	}
	b, err := j.value()
	if err != nil {
		return "", err
	}
	var k string
	if err := unmarshalJSON(b, &k); err != nil {
		return "", err
	}
	return k, j.expect(':')
}

// first reports whether an object or array whose opening byte was
// consumed has a first member or element, consuming end if not.
func (j *jsonStream) first(end byte) (bool, error) {
	c, err := j.peek()
	if err != nil {
		return false, eofIsUnexpected(err)
	}
	if c == end {
		j.off++
		return false, nil
	}
	return true, nil
}

// next consumes the ',' between members or elements and reports whether
// another follows, or consumes the closing end and reports false.
func (j *jsonStream) next(end byte) (bool, error) {
	c, err := j.peek()
	if err != nil {
		return false, eofIsUnexpected(err)
	}
	switch c {
	case ',':
		j.off++
		return true, nil
	case end:
		j.off++
		return false, nil
	}
	return false, fmt.Errorf("want ',' or %q, got %q", end, c)
}
