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
	// limit bounds the length of one object or array (0: no bound); a
	// longer one is errObjectTooLarge once its end was read, and is not
	// buffered whole.
	limit int
	// depth is how deeply the values value reads are nested in their
	// document, for its nesting limit.
	depth int
	// scanned counts the bytes examined to find where values end and
	// handed to decoders, for tests: it grows linearly with the text
	// however its bytes arrive.
	scanned int64
}

func newJSONStream(r io.Reader, size, limit int) *jsonStream {
	return &jsonStream{r: r, buf: make([]byte, 0, size), limit: limit}
}

// maxEvent is the largest watch event (a JSON value, a CBOR item or a
// protobuf frame) read, as client-go's streaming decoder bounds them.
const maxEvent = 16 << 20

// errObjectTooLarge is client-go's error for an event longer than
// maxEvent.
var errObjectTooLarge = errors.New("object to decode was longer than maximum allowed size")

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
		size := 2 * cap(j.buf)
		if j.limit > 0 {
			size = min(size, max(cap(j.buf), j.limit+1))
		}
		if size == cap(j.buf) {
			// A value other than an object or array (see whole) longer
			// than limit.
			j.err = errObjectTooLarge
			return false
		}
		nb := make([]byte, len(j.buf), size)
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
	c, err := j.peek()
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	if c == '{' || c == '[' {
		if err := j.whole(); err != nil {
			return nil, err
		}
		j.scanned += int64(len(j.buf) - j.off)
		n, err := jsondec.SkipAt(j.buf[j.off:], j.depth)
		if err != nil {
			if se := (*jsondec.SyntaxError)(nil); errors.As(err, &se) && se.Truncated {
				return nil, j.readErr()
			}
			return nil, err
		}
		v := j.buf[j.off : j.off+n]
		j.off += n
		return v, nil
	}
	for {
		j.scanned += int64(len(j.buf) - j.off)
		n, err := jsondec.SkipAt(j.buf[j.off:], j.depth)
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

// whole reads until the object or array that starts at the read position
// is buffered whole, or r ended: it finds the value's end by its
// brackets, outside strings, resuming after each read where the previous
// one stopped, so that a value costs time linear in its size however its
// bytes arrive. The syntax is checked afterwards by whoever decodes it.
// A value longer than limit is read to its end without being kept, and is
// errObjectTooLarge; if r ends first, it is r's end.
func (j *jsonStream) whole() error {
	pos, depth := 0, 0 // pos: bytes of the value scanned, from j.off
	inString, escaped, tooLarge := false, false, false
	for {
		b := j.buf[j.off:]
		for i := pos; i < len(b); i++ {
			c := b[i]
			if inString {
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					j.scanned += int64(i + 1 - pos)
					if tooLarge {
						j.off += i + 1
						return errObjectTooLarge
					}
					if j.limit > 0 && i+1 > j.limit {
						j.off += i + 1
						return errObjectTooLarge
					}
					return nil
				}
			}
		}
		j.scanned += int64(len(b) - pos)
		pos = len(b)
		if j.limit > 0 && pos > j.limit {
			// Too long: drop what was scanned, keep scanning for its end.
			tooLarge = true
			j.off += pos
			pos = 0
		}
		if !j.more() {
			if tooLarge {
				return j.readErr()
			}
			return nil // the caller's scan reports the value cut off
		}
	}
}

// decode calls dec with the unread bytes, from the start of the next
// value; dec decodes the value and returns how many bytes it took. An
// object or array is read whole first (see whole); for any other value,
// while dec finds it cut off by the end of what was read, decode reads
// more and calls dec again from the value's start.
func (j *jsonStream) decode(dec func([]byte) (int, error)) error {
	c, err := j.peek()
	if err != nil {
		return eofIsUnexpected(err)
	}
	whole := c == '{' || c == '['
	if whole {
		if err := j.whole(); err != nil {
			return err
		}
	}
	for {
		j.scanned += int64(len(j.buf) - j.off)
		n, err := dec(j.buf[j.off:])
		if err == nil {
			j.off += n
			return nil
		}
		var se *jsondec.SyntaxError
		if !errors.As(err, &se) || !se.Truncated {
			return err
		}
		if whole || !j.more() {
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
