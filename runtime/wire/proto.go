package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// protoMagic starts every message of Kubernetes' protobuf encoding: it is
// followed by a runtime.Unknown envelope whose raw field holds the message.
const protoMagic = "k8s\x00"

// Field numbers of the messages the decoder walks (apimachinery's
// generated.proto files).
const (
	unknownTypeMeta        = 1 // runtime.Unknown.typeMeta
	unknownRaw             = 2 // runtime.Unknown.raw
	unknownContentEncoding = 3 // runtime.Unknown.contentEncoding
	unknownContentType     = 4 // runtime.Unknown.contentType
	typeMetaAPIVersion     = 1 // runtime.TypeMeta.apiVersion
	typeMetaKind           = 2 // runtime.TypeMeta.kind
	listMetadata           = 1 // every list's metadata (ListMeta)
	listItems              = 2 // every list's repeated items
	watchEventType         = 1 // metav1.WatchEvent.type
	watchEventObject       = 2 // metav1.WatchEvent.object (RawExtension)
	rawExtensionRaw        = 1 // runtime.RawExtension.raw
)

// Protobuf wire types.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

// wrongWireType is the error of gogo-protobuf's generated Unmarshal for a
// known field sent with another wire type.
func wrongWireType(wt, field uint64, what string) error {
	return fmt.Errorf("proto: wrong wireType = %d for field %d of %s", wt, field, what)
}

// maxMessage bounds the length of one item, list metadata or watch frame
// the decoder buffers; the API server's own limit on a request is 3 MiB
// and etcd's on an object 1.5 MiB, so a larger length is a corrupt stream.
const maxMessage = 256 << 20

// noEnd is the end offset of the envelope, which runs to the end of the
// stream.
const noEnd = math.MaxInt64

// errTruncated reports a length that runs past its enclosing message.
var errTruncated = errors.New("a field runs past the end of its message")

// streamReader reads protobuf wire format from a buffered stream, counting
// the bytes it consumed. buf is reused by every bytes call.
type streamReader struct {
	r   *bufio.Reader
	n   int64
	buf []byte
}

// uvarint reads a base-128 varint. At the very start of a read, io.EOF is
// returned as is (a clean end of stream); inside a varint it becomes
// io.ErrUnexpectedEOF.
func (s *streamReader) uvarint() (uint64, error) {
	var v uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		b, err := s.r.ReadByte()
		if err != nil {
			if i > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		s.n++
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("a varint is longer than 10 bytes")
}

// length reads the length of a length-delimited field, which must end by
// the stream offset end and fit in maxMessage.
func (s *streamReader) length(end int64) (int, error) {
	l, err := s.uvarint()
	if err != nil {
		return 0, eofIsUnexpected(err)
	}
	if l > uint64(end-s.n) {
		return 0, errTruncated
	}
	if l > maxMessage {
		return 0, fmt.Errorf("a field of %d bytes is larger than the limit of %d", l, maxMessage)
	}
	return int(l), nil
}

// bytes reads n bytes into the reused buffer and returns them; they are
// valid until the next call.
func (s *streamReader) bytes(n int) ([]byte, error) {
	if cap(s.buf) < n {
		s.buf = make([]byte, n, n+n/4)
	}
	b := s.buf[:n]
	if _, err := io.ReadFull(s.r, b); err != nil {
		return nil, eofIsUnexpected(err)
	}
	s.n += int64(n)
	return b, nil
}

// skip discards a field of wire type wt, which must end by the stream
// offset end.
func (s *streamReader) skip(wt uint64, end int64) error {
	var n int64
	switch wt {
	case wireVarint:
		_, err := s.uvarint()
		return eofIsUnexpected(err)
	case wireFixed64:
		n = 8
	case wireFixed32:
		n = 4
	case wireBytes:
		l, err := s.length(end)
		if err != nil {
			return err
		}
		n = int64(l)
	case wireStartGroup:
		// As gogo-protobuf skips a group: fields up to the end group
		// that closes it.
		for depth := 1; depth > 0; {
			if s.n >= end {
				return errTruncated
			}
			tag, err := s.uvarint()
			if err != nil {
				return eofIsUnexpected(err)
			}
			switch tag & 7 {
			case wireStartGroup:
				depth++
			case wireEndGroup:
				depth--
			default:
				if err := s.skip(tag&7, end); err != nil {
					return err
				}
			}
		}
		return nil
	case wireEndGroup:
		return errors.New("proto: an end group without its start")
	default:
		return fmt.Errorf("proto: illegal wireType %d", wt)
	}
	if n > end-s.n {
		return errTruncated
	}
	d, err := s.r.Discard(int(n))
	s.n += int64(d)
	return eofIsUnexpected(err)
}

func eofIsUnexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// sliceReader walks the fields of a protobuf message held in memory.
type sliceReader struct {
	b []byte
}

// next returns the next field's number, wire type, and its value: the
// bytes of a length-delimited field, or the number of a varint. ok is false
// at the end of the message.
func (s *sliceReader) next() (field, wt uint64, val []byte, num uint64, ok bool, err error) {
	if len(s.b) == 0 {
		return 0, 0, nil, 0, false, nil
	}
	tag, n := binary.Uvarint(s.b)
	if n <= 0 {
		return 0, 0, nil, 0, false, errors.New("a malformed field tag")
	}
	s.b = s.b[n:]
	field, wt = tag>>3, tag&7
	switch wt {
	case wireVarint:
		num, n = binary.Uvarint(s.b)
		if n <= 0 {
			return 0, 0, nil, 0, false, errors.New("a malformed varint")
		}
		s.b = s.b[n:]
	case wireFixed64, wireFixed32:
		size := 8
		if wt == wireFixed32 {
			size = 4
		}
		if len(s.b) < size {
			return 0, 0, nil, 0, false, errTruncated
		}
		val, s.b = s.b[:size], s.b[size:]
	case wireBytes:
		l, n := binary.Uvarint(s.b)
		if n <= 0 {
			return 0, 0, nil, 0, false, errors.New("a malformed length")
		}
		s.b = s.b[n:]
		if l > uint64(len(s.b)) {
			return 0, 0, nil, 0, false, errTruncated
		}
		val, s.b = s.b[:l], s.b[l:]
	case wireStartGroup:
		// As gogo-protobuf skips a group: fields up to the end group
		// that closes it.
		for depth := 1; depth > 0; {
			tag, n := binary.Uvarint(s.b)
			if n <= 0 {
				return 0, 0, nil, 0, false, errors.New("a malformed field tag")
			}
			switch tag & 7 {
			case wireStartGroup:
				depth++
				s.b = s.b[n:]
			case wireEndGroup:
				depth--
				s.b = s.b[n:]
			default:
				if _, _, _, _, _, err := s.next(); err != nil {
					return 0, 0, nil, 0, false, err
				}
			}
		}
	case wireEndGroup:
		return 0, 0, nil, 0, false, errors.New("proto: an end group without its start")
	default:
		return 0, 0, nil, 0, false, fmt.Errorf("proto: illegal wireType %d", wt)
	}
	return field, wt, val, num, true, nil
}

// checkWireTypes returns the error of gogo-protobuf's Unmarshal for a
// field of the message what: a field listed in bytesFields must be
// length-delimited, and an end group cannot stand alone.
func checkWireType(field, wt uint64, what string, bytesFields ...uint64) error {
	for _, f := range bytesFields {
		if f == field && wt != wireBytes {
			return wrongWireType(wt, field, what)
		}
	}
	return nil
}

// envelope is what a runtime.Unknown held in memory carries.
type envelope struct {
	apiVersion, kind string
	raw              []byte
}

// hasProtoMagic reports whether b starts with protoMagic.
func hasProtoMagic(b []byte) bool {
	return len(b) >= len(protoMagic) && string(b[:len(protoMagic)]) == protoMagic
}

// openEnvelope parses b, which must start with protoMagic, as a
// runtime.Unknown, as apimachinery's protobuf serializer does: the last
// of repeated fields wins, contentEncoding and contentType are not looked
// at; raw aliases b.
func openEnvelope(b []byte) (envelope, error) {
	var e envelope
	if !hasProtoMagic(b) {
		return e, fmt.Errorf("provided data does not appear to be a protobuf message, expected prefix %q", protoMagic)
	}
	if len(b) == len(protoMagic) {
		return e, errors.New("empty body")
	}
	r := sliceReader{b: b[len(protoMagic):]}
	for {
		field, wt, val, _, ok, err := r.next()
		if err != nil {
			return e, err
		}
		if !ok {
			return e, nil
		}
		if err := checkWireType(field, wt, "Unknown", unknownTypeMeta, unknownRaw, unknownContentEncoding, unknownContentType); err != nil {
			return e, err
		}
		switch field {
		case unknownTypeMeta:
			if err := e.typeMeta(val); err != nil {
				return e, fmt.Errorf("typeMeta: %w", err)
			}
		case unknownRaw:
			e.raw = val
		}
	}
}

// typeMeta reads a runtime.TypeMeta message into e, merging as gogo-protobuf
// does.
func (e *envelope) typeMeta(b []byte) error {
	r := sliceReader{b: b}
	for {
		field, wt, val, _, ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		if err := checkWireType(field, wt, "TypeMeta", typeMetaAPIVersion, typeMetaKind); err != nil {
			return err
		}
		switch field {
		case typeMetaAPIVersion:
			e.apiVersion = string(val)
		case typeMetaKind:
			e.kind = string(val)
		}
	}
}
