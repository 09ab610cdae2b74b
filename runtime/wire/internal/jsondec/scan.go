package jsondec

import (
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is how deeply objects and arrays may nest, as in
// encoding/json: deeper documents are an error.
const maxDepth = 10000

// state is one decoding of a document: the bytes, the read position and
// the nesting depth. It is used by one goroutine.
type state struct {
	data  []byte
	i     int
	depth int
	buf   []byte   // scratch for unquoting strings with escapes
	strs  *Strings // shares equal strings; nil: none
}

// SyntaxError is a malformed document: Msg says what was found, Offset
// where (a byte offset into the document). Truncated is set when the
// document ended inside a value, where more bytes could have completed it.
type SyntaxError struct {
	Msg       string
	Offset    int
	Truncated bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("json: %s at offset %d", e.Msg, e.Offset)
}

func (s *state) syntax(format string, args ...any) error {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Offset: s.i}
}

// unexpected is the error for the byte at the read position (or the end).
func (s *state) unexpected(what string) error {
	if s.i >= len(s.data) {
		return &SyntaxError{Msg: "unexpected end of JSON input", Offset: s.i, Truncated: true}
	}
	return s.syntax("invalid character %s %s", quoteChar(s.data[s.i]), what)
}

func quoteChar(c byte) string {
	if c == '"' {
		return `'"'`
	}
	return fmt.Sprintf("%q", rune(c))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// ws skips white space and returns the next byte, or 0 at the end.
func (s *state) ws() byte {
	for s.i < len(s.data) {
		c := s.data[s.i]
		if !isSpace(c) {
			return c
		}
		s.i++
	}
	return 0
}

// cur returns the byte at the read position, or 0 at the end (which no
// value starts with).
func (s *state) cur() byte {
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

// null reads the literal null at the read position.
func (s *state) null() error { return s.literal("null") }

// open consumes the '{' or '[' at the read position and reports whether
// a member or element follows (false after consuming the closing end).
func (s *state) open(end byte) (bool, error) {
	if err := s.push(); err != nil {
		return false, err
	}
	s.i++
	if s.ws() == end {
		s.i++
		s.depth--
		return false, nil
	}
	return true, nil
}

// key reads an object's key and its colon, leaving the read position at
// the value. The key is valid until the next read of a string.
func (s *state) key() ([]byte, error) {
	if s.ws() != '"' {
		return nil, s.unexpected("looking for beginning of object key string")
	}
	k, err := s.strBytes()
	if err != nil {
		return nil, err
	}
	if s.ws() != ':' {
		return nil, s.unexpected("after object key")
	}
	s.i++
	s.ws()
	return k, nil
}

// keyString is key returning a string of its own.
func (s *state) keyString() (string, error) {
	if s.ws() != '"' {
		return "", s.unexpected("looking for beginning of object key string")
	}
	k, err := s.str()
	if err != nil {
		return "", err
	}
	if s.ws() != ':' {
		return "", s.unexpected("after object key")
	}
	s.i++
	s.ws()
	return k, nil
}

// next reads what follows a member (end '}') or an element (end ']'):
// true after a ',' (with the read position at what comes next), false
// after the closing end.
func (s *state) next(end byte) (bool, error) {
	switch s.ws() {
	case ',':
		s.i++
		s.ws()
		return true, nil
	case end:
		s.i++
		s.depth--
		return false, nil
	}
	if end == '}' {
		return false, s.unexpected("after object key:value pair")
	}
	return false, s.unexpected("after array element")
}

func (s *state) push() error {
	s.depth++
	if s.depth > maxDepth {
		return s.syntax("exceeded max depth")
	}
	return nil
}

// literal reads the keyword lit (true, false, null) at the read position.
func (s *state) literal(lit string) error {
	if len(s.data)-s.i >= len(lit) && string(s.data[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return nil
	}
	for k := 0; k < len(lit); k++ {
		if s.i >= len(s.data) {
			return s.unexpected("")
		}
		if s.data[s.i] != lit[k] {
			return s.unexpected("in literal " + lit)
		}
		s.i++
	}
	return nil
}

// number reads a number at the read position and returns its bytes.
func (s *state) number() ([]byte, error) {
	start := s.i
	d := s.data
	if s.i < len(d) && d[s.i] == '-' {
		s.i++
	}
	if s.i >= len(d) {
		return nil, s.unexpected("")
	}
	switch c := d[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		for s.i++; s.i < len(d) && d[s.i] >= '0' && d[s.i] <= '9'; s.i++ {
		}
	default:
		return nil, s.unexpected("in numeric literal")
	}
	if s.i < len(d) && d[s.i] == '.' {
		s.i++
		if s.i >= len(d) || d[s.i] < '0' || d[s.i] > '9' {
			return nil, s.unexpected("after decimal point in numeric literal")
		}
		for s.i++; s.i < len(d) && d[s.i] >= '0' && d[s.i] <= '9'; s.i++ {
		}
	}
	if s.i < len(d) && (d[s.i] == 'e' || d[s.i] == 'E') {
		s.i++
		if s.i < len(d) && (d[s.i] == '+' || d[s.i] == '-') {
			s.i++
		}
		if s.i >= len(d) || d[s.i] < '0' || d[s.i] > '9' {
			return nil, s.unexpected("in exponent of numeric literal")
		}
		for s.i++; s.i < len(d) && d[s.i] >= '0' && d[s.i] <= '9'; s.i++ {
		}
	}
	return d[start:s.i], nil
}

// rawString reads a string at the read position (which holds '"') and
// returns its bytes between the quotes, and whether they hold an escape
// or bytes that are not ASCII (and so need unquoting).
func (s *state) rawString() ([]byte, bool, error) {
	d := s.data
	s.i++
	start := s.i
	escaped := false
	for s.i < len(d) {
		c := d[s.i]
		switch {
		case c == '"':
			b := d[start:s.i]
			s.i++
			return b, escaped, nil
		case c == '\\':
			escaped = true
			s.i++
			if s.i >= len(d) {
				return nil, false, s.unexpected("")
			}
			switch d[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				s.i++
				for k := 0; k < 4; k++ {
					if s.i >= len(d) {
						return nil, false, s.unexpected("")
					}
					if !isHex(d[s.i]) {
						return nil, false, s.unexpected("in \\u hexadecimal character escape")
					}
					s.i++
				}
			default:
				return nil, false, s.unexpected("in string escape code")
			}
		case c < 0x20:
			return nil, false, s.unexpected("in string literal")
		default:
			if c >= utf8.RuneSelf {
				escaped = true
			}
			s.i++
		}
	}
	return nil, false, s.unexpected("")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// str reads a string and returns it unquoted. The result does not alias
// the document.
func (s *state) str() (string, error) {
	b, escaped, err := s.rawString()
	if err != nil {
		return "", err
	}
	if escaped {
		s.buf = unquote(s.buf[:0], b)
		b = s.buf
	}
	if s.strs != nil {
		return s.strs.get(b), nil
	}
	return string(b), nil
}

// strBytes is str for a caller that only looks at the result before the
// next read: the result may alias the document or a scratch buffer.
func (s *state) strBytes() ([]byte, error) {
	b, escaped, err := s.rawString()
	if err != nil || !escaped {
		return b, err
	}
	s.buf = unquote(s.buf[:0], b)
	return s.buf, nil
}

// unquote appends the text of the string body b (already checked by
// rawString) to dst, resolving escapes as encoding/json does: a lone or
// mismatched surrogate and every byte of invalid UTF-8 become U+FFFD.
func unquote(dst, b []byte) []byte {
	for r := 0; r < len(b); {
		c := b[r]
		switch {
		case c == '\\':
			r++
			switch b[r] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := hex4(b[r+1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if len(b)-r >= 6 && b[r] == '\\' && b[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(b[r+2:])); dec != unicode.ReplacementChar {
							dst = utf8.AppendRune(dst, dec)
							r += 6
							continue
						}
					}
					rr = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, b[r])
			}
			r++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(b[r:])
			dst = utf8.AppendRune(dst, rr)
			r += size
		}
	}
	return dst
}

// hex4 decodes four hex digits (checked by rawString).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// skip reads one value of any kind, checking its syntax, and returns its
// bytes.
func (s *state) skip() ([]byte, error) {
	c := s.ws()
	start := s.i
	switch c {
	case '{':
		if err := s.push(); err != nil {
			return nil, err
		}
		s.i++
		if s.ws() == '}' {
			s.i++
			s.depth--
			return s.data[start:s.i], nil
		}
		for {
			if s.ws() != '"' {
				return nil, s.unexpected("looking for beginning of object key string")
			}
			if _, _, err := s.rawString(); err != nil {
				return nil, err
			}
			if s.ws() != ':' {
				return nil, s.unexpected("after object key")
			}
			s.i++
			if _, err := s.skip(); err != nil {
				return nil, err
			}
			switch s.ws() {
			case ',':
				s.i++
				continue
			case '}':
				s.i++
				s.depth--
				return s.data[start:s.i], nil
			}
			return nil, s.unexpected("after object key:value pair")
		}
	case '[':
		if err := s.push(); err != nil {
			return nil, err
		}
		s.i++
		if s.ws() == ']' {
			s.i++
			s.depth--
			return s.data[start:s.i], nil
		}
		for {
			if _, err := s.skip(); err != nil {
				return nil, err
			}
			switch s.ws() {
			case ',':
				s.i++
				continue
			case ']':
				s.i++
				s.depth--
				return s.data[start:s.i], nil
			}
			return nil, s.unexpected("after array element")
		}
	case '"':
		if _, _, err := s.rawString(); err != nil {
			return nil, err
		}
	case 't':
		if err := s.literal("true"); err != nil {
			return nil, err
		}
	case 'f':
		if err := s.literal("false"); err != nil {
			return nil, err
		}
	case 'n':
		if err := s.literal("null"); err != nil {
			return nil, err
		}
	default:
		if c == '-' || c >= '0' && c <= '9' {
			if _, err := s.number(); err != nil {
				return nil, err
			}
			break
		}
		return nil, s.unexpected("looking for beginning of value")
	}
	return s.data[start:s.i], nil
}

// Skip returns the length of the JSON value at the start of data (after
// white space), checking its syntax; it is how a caller cuts one value
// out of a longer text. A value that data ends inside is a *SyntaxError
// with Truncated set. A number that ends where data ends is returned
// whole: a caller reading a stream checks whether more digits follow.
func Skip(data []byte) (int, error) {
	return SkipAt(data, 0)
}

// SkipAt is Skip for a value nested depth levels deep in its document:
// the nesting limit counts from the document's top, as a decoder reading
// the whole document counts it.
func SkipAt(data []byte, depth int) (int, error) {
	s := state{data: data, depth: depth}
	if _, err := s.skip(); err != nil {
		return 0, err
	}
	return s.i, nil
}

// String returns the text of v, one JSON string literal that Skip
// accepted (a value Members hands over; white space may follow), unquoted
// as encoding/json unquotes it and held in strs when strs is not nil. ok
// is false when v is anything else (null, a number, an object...), for the
// caller to decode it the slow way and report the error it expects.
func String(v []byte, strs *Strings) (str string, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	s := state{data: v, strs: strs}
	str, err := s.str()
	if s.ws(); err != nil || s.i != len(v) {
		return "", false
	}
	return str, true
}

// Members calls fn with the key and the value's bytes of each member of
// the object data, in order; data must be one object that Skip accepted.
// The key is unquoted; fn must not keep it.
func Members(data []byte, fn func(key []byte, value []byte) error) error {
	s := state{data: data}
	if s.ws() != '{' {
		return s.unexpected("looking for beginning of object")
	}
	s.i++
	if s.ws() == '}' {
		return nil
	}
	for {
		if s.ws() != '"' {
			return s.unexpected("looking for beginning of object key string")
		}
		k, err := s.strBytes()
		if err != nil {
			return err
		}
		if s.ws() != ':' {
			return s.unexpected("after object key")
		}
		s.i++
		v, err := s.skip()
		if err != nil {
			return err
		}
		if err := fn(k, v); err != nil {
			return err
		}
		switch s.ws() {
		case ',':
			s.i++
		case '}':
			return nil
		default:
			return s.unexpected("after object key:value pair")
		}
	}
}
