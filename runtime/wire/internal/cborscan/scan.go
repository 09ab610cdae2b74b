// Package cborscan finds the boundaries of CBOR data items (RFC 8949) in
// a byte slice without decoding them, checking that they are well-formed
// as it goes. It is what lets a list or watch stream be cut into items
// that are decoded one at a time.
//
// Well-formed means RFC 8949's definition (section 3 and appendix C):
// reserved additional-information values, indefinite lengths on major
// types that have none, a break outside an indefinite-length item, a
// chunk of an indefinite-length string that is not a definite string of
// the same major type, and a two-byte simple value below 32 are errors.
// Validity (UTF-8 in text strings, duplicate map keys, tag contents) is
// left to the decoder of the item.
package cborscan

import (
	"encoding/binary"
	"fmt"
)

// Major types (the high three bits of an item's initial byte).
const (
	MajorUint   = 0
	MajorNegint = 1
	MajorBytes  = 2
	MajorText   = 3
	MajorArray  = 4
	MajorMap    = 5
	MajorTag    = 6
	MajorSimple = 7
)

// Additional-information values of an initial byte with a meaning of
// their own.
const (
	aiOneByte    = 24
	aiEightBytes = 27
	aiIndefinite = 31
)

// Break ends an indefinite-length item.
const Break = 0xff

// MaxDepth bounds the nesting of arrays, maps, tags and indefinite-length
// strings in one item; apimachinery's CBOR decoder allows the same depth.
const MaxDepth = 10000

// SelfDescribed is the head of tag 55799 ("self-described CBOR"), which
// apimachinery's CBOR serializer puts before every object it encodes.
const SelfDescribed = "\xd9\xd9\xf7"

// SyntaxError reports bytes that are not a well-formed CBOR item.
// Truncated is set when the bytes end inside an item that could go on:
// more bytes may make it well-formed.
type SyntaxError struct {
	Msg       string
	Offset    int
	Truncated bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("cbor: %s at offset %d", e.Msg, e.Offset)
}

func truncated(off int) error {
	return &SyntaxError{Msg: "unexpected end of data", Offset: off, Truncated: true}
}

// Head is an item's initial byte and argument.
type Head struct {
	Major byte
	// Info is the additional information (the low five bits).
	Info byte
	// Arg is the argument: the value of an integer, the length of a
	// string, the number of elements of an array or pairs of a map, the
	// tag number, or the simple value or float bits. It is 0 for an
	// indefinite length (Indefinite is then true).
	Arg uint64
	// Indefinite is set for an indefinite-length string, array or map,
	// and for a break (major type 7, additional information 31).
	Indefinite bool
}

// ReadHead reads the head at the start of b and returns it with its
// length in bytes.
func ReadHead(b []byte) (Head, int, error) {
	if len(b) == 0 {
		return Head{}, 0, truncated(0)
	}
	h := Head{Major: b[0] >> 5, Info: b[0] & 0x1f}
	switch {
	case h.Info < aiOneByte:
		h.Arg = uint64(h.Info)
		return h, 1, nil
	case h.Info <= aiEightBytes:
		size := 1 << (h.Info - aiOneByte)
		if len(b) < 1+size {
			return Head{}, 0, truncated(len(b))
		}
		switch size {
		case 1:
			h.Arg = uint64(b[1])
		case 2:
			h.Arg = uint64(binary.BigEndian.Uint16(b[1:]))
		case 4:
			h.Arg = uint64(binary.BigEndian.Uint32(b[1:]))
		default:
			h.Arg = binary.BigEndian.Uint64(b[1:])
		}
		if h.Major == MajorSimple && size == 1 && h.Arg < 32 {
			return Head{}, 0, &SyntaxError{Msg: fmt.Sprintf("simple value %d in two bytes", h.Arg), Offset: 0}
		}
		return h, 1 + size, nil
	case h.Info == aiIndefinite:
		switch h.Major {
		case MajorUint, MajorNegint, MajorTag:
			return Head{}, 0, &SyntaxError{Msg: fmt.Sprintf("indefinite length on major type %d", h.Major), Offset: 0}
		}
		h.Indefinite = true
		return h, 1, nil
	}
	return Head{}, 0, &SyntaxError{Msg: fmt.Sprintf("reserved additional information %d (initial byte 0x%02x)", h.Info, b[0]), Offset: 0}
}

// frame is an array, map, tag or indefinite-length string whose contents
// are being skipped.
type frame struct {
	// left counts the items still to come, or for an indefinite-length
	// item the items seen so far.
	left  uint64
	indef bool
	isMap bool
	chunk int8 // for an indefinite-length string, the major type of its chunks; else -1
}

// Skip returns the length of the well-formed CBOR item at the start of b.
// An error is a *SyntaxError.
func Skip(b []byte) (int, error) {
	var s Scanner
	return s.Scan(b)
}

// Scanner finds the end of one item whose bytes arrive in pieces: each
// Scan resumes where the previous one stopped, so that an item costs time
// linear in its size however it arrives. Its zero value is ready for an
// item.
type Scanner struct {
	stack []frame
	off   int // the bytes scanned: the start of the next head
}

// Scan reports the length of the well-formed CBOR item at the start of b,
// as Skip does; b must start with the bytes given to the previous calls.
// While the item is cut off by the end of b, the error is a *SyntaxError
// with Truncated set and a later call with more bytes goes on from where
// this one stopped; any other error is final.
func (s *Scanner) Scan(b []byte) (int, error) {
	stack, off := s.stack, s.off
	defer func() { s.stack = stack }()
	for {
		s.off = off
		h, n, err := ReadHead(b[off:])
		if err != nil {
			se := err.(*SyntaxError) //nolint:errorlint // ReadHead returns only this type
			se.Offset += off
			return 0, se
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if top != nil && top.chunk >= 0 && !(h.Major == MajorSimple && h.Indefinite) {
			if h.Major != byte(top.chunk) || h.Indefinite {
				return 0, &SyntaxError{Msg: fmt.Sprintf("a chunk of an indefinite-length string of major type %d has major type %d or is itself indefinite", top.chunk, h.Major), Offset: off}
			}
		}
		off += n
		done := false // the item whose head was read is complete
		switch h.Major {
		case MajorUint, MajorNegint:
			done = true
		case MajorBytes, MajorText:
			if h.Indefinite {
				stack = append(stack, frame{indef: true, chunk: int8(h.Major)})
				break
			}
			if h.Arg > uint64(len(b)-off) {
				return 0, truncated(len(b)) // s.off is still this head's
			}
			off += int(h.Arg)
			done = true
		case MajorArray, MajorMap:
			count := h.Arg
			if h.Major == MajorMap {
				if count > 1<<62 {
					return 0, &SyntaxError{Msg: fmt.Sprintf("a map of %d pairs", count), Offset: off - n}
				}
				count *= 2
			}
			switch {
			case h.Indefinite:
				stack = append(stack, frame{indef: true, isMap: h.Major == MajorMap, chunk: -1})
			case count == 0:
				done = true
			default:
				stack = append(stack, frame{left: count, chunk: -1})
			}
		case MajorTag:
			stack = append(stack, frame{left: 1, chunk: -1})
		case MajorSimple:
			if !h.Indefinite {
				done = true
				break
			}
			if top == nil || !top.indef {
				return 0, &SyntaxError{Msg: "a break outside an indefinite-length item", Offset: off - n}
			}
			if top.isMap && top.left%2 == 1 {
				return 0, &SyntaxError{Msg: "an indefinite-length map ends after a key without its value", Offset: off - n}
			}
			stack = stack[:len(stack)-1]
			done = true
		}
		if len(stack) > MaxDepth {
			return 0, &SyntaxError{Msg: fmt.Sprintf("nesting deeper than %d", MaxDepth), Offset: off - n}
		}
		for done {
			if len(stack) == 0 {
				return off, nil
			}
			top := &stack[len(stack)-1]
			if top.indef {
				top.left++ // counts the items of an indefinite-length map
				break
			}
			top.left--
			if top.left > 0 {
				break
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// Discard forgets the bytes scanned so far: the next Scan's b must start
// with the bytes that followed them. It returns how many there were.
func (s *Scanner) Discard() int {
	n := s.off
	s.off = 0
	return n
}

// Scanned returns how many bytes of the item were scanned.
func (s *Scanner) Scanned() int { return s.off }
