package protodec

import (
	"errors"
	"fmt"
	"io"
)

// The errors of malformed input carry the texts of the errors of the
// generated code, so that a message names the same fault either way.
var (
	errInvalidLength = errors.New("proto: negative length found during unmarshaling")
	errOverflow      = errors.New("proto: integer overflow")
	errEndOfGroup    = errors.New("proto: unexpected end of group")
)

// Wire types of the protobuf encoding.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

// uvarint reads a varint at b[i:]. Like the generated code, it reads at
// most ten bytes, keeping the low 64 bits (an eleventh byte is an
// overflow), and reads up to the end of b, whatever the length of the
// field it is in.
func uvarint(b []byte, i int) (uint64, int, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if i >= len(b) {
			return 0, i, io.ErrUnexpectedEOF
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i, nil
		}
	}
	return 0, i, errOverflow
}

// length reads the length of a length-delimited value at b[i:] and
// returns where its bytes start and end. A length is read as a signed
// int: one that is negative, or that overflows when added to the
// position, is an invalid length; one that runs past the end of b is a
// truncation.
func length(b []byte, i int) (start, end int, err error) {
	v, i, err := uvarint(b, i)
	if err != nil {
		return 0, 0, err
	}
	n := int(v)
	if n < 0 {
		return 0, 0, errInvalidLength
	}
	end = i + n
	if end < 0 {
		return 0, 0, errInvalidLength
	}
	if end > len(b) {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return i, end, nil
}

// skip returns the size of the field (tag included) at the start of b, as
// the generated code measures a field it does not know: groups are
// skipped to their matching end, fixed-size values are not checked
// against the end of b (the caller compares the size with what is left),
// and wire types 6 and 7 are errors.
func skip(b []byte) (int, error) {
	i, depth := 0, 0
	for i < len(b) {
		tag, ni, err := uvarint(b, i)
		if err != nil {
			return 0, err
		}
		i = ni
		switch wt := int(tag & 7); wt {
		case wireVarint:
			if i, err = skipVarint(b, i); err != nil {
				return 0, err
			}
		case wireFixed64:
			i += 8
		case wireBytes:
			v, ni, err := uvarint(b, i)
			if err != nil {
				return 0, err
			}
			n := int(v)
			if n < 0 {
				return 0, errInvalidLength
			}
			i = ni + n
		case wireStartGroup:
			depth++
		case wireEndGroup:
			if depth == 0 {
				return 0, errEndOfGroup
			}
			depth--
		case wireFixed32:
			i += 4
		default:
			return 0, fmt.Errorf("proto: illegal wireType %d", wt)
		}
		if i < 0 {
			return 0, errInvalidLength
		}
		if depth == 0 {
			return i, nil
		}
	}
	return 0, io.ErrUnexpectedEOF
}

// skipVarint steps over a varint at b[i:] without decoding it.
func skipVarint(b []byte, i int) (int, error) {
	for range 10 {
		if i >= len(b) {
			return i, io.ErrUnexpectedEOF
		}
		i++
		if b[i-1] < 0x80 {
			return i, nil
		}
	}
	return i, errOverflow
}

// skipUnknown steps over the unknown field starting at pre, within a
// message ending at end.
func skipUnknown(b []byte, pre, end int) (int, error) {
	n, err := skip(b[pre:])
	if err != nil {
		return 0, err
	}
	if n < 0 || pre+n < 0 {
		return 0, errInvalidLength
	}
	if pre+n > end {
		return 0, io.ErrUnexpectedEOF
	}
	return pre + n, nil
}

func wrongWireType(wt int, field string) error {
	return fmt.Errorf("proto: wrong wireType = %d for field %s", wt, field)
}
