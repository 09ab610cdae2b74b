package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// A parallel list decode cuts the response into batches of items' bytes on
// one goroutine (the splitter: cheap, it only finds where items end),
// decodes batches on worker goroutines, and hands the items to yield on the
// caller's goroutine in the response's order. At most batchesPerWorker
// batches per worker (plus two) are in flight, each holding about
// batchBytes of encoded items: memory stays bounded whatever the list's
// size.
const (
	batchBytes       = 64 << 10
	batchMaxItems    = 256
	batchesPerWorker = 2
)

// batch is a run of consecutive list items: their encoded bytes back to
// back, decoded by one worker into items.
type batch[T any] struct {
	data  []byte
	ends  []int // end offset in data of each item
	first int   // index in the list of the batch's first item
	items []T
	err   error // the first item that failed to decode
	done  chan struct{}
}

func (b *batch[T]) reset(first int) {
	b.data, b.ends, b.items, b.err = b.data[:0], b.ends[:0], b.items[:0], nil
	b.first = first
	b.done = make(chan struct{})
}

// parallelList decodes the list in d's body with workers goroutines and
// calls yield with each item in order; it returns when every goroutine it
// started has ended. When it stops early (an error of yield or of a
// worker) it calls abort, which must make reads of the body fail, so that
// a splitter waiting for the rest of an item ends without it.
func (d *decoder[E, T]) parallelList(workers int, yield func(T) error, abort func()) (*metav1.ListMeta, error) {
	if err := d.sniff(false); err != nil {
		return nil, eofIsUnexpected(err)
	}
	p := &pipeline[E, T]{
		d:     d,
		work:  make(chan *batch[T], workers*batchesPerWorker+2),
		order: make(chan *batch[T], workers*batchesPerWorker+2),
		free:  make(chan *batch[T], workers*batchesPerWorker+2),
		stop:  make(chan struct{}),
	}
	for i := 0; i < cap(p.free); i++ {
		// Room for a full batch and the item that overflows it, unless
		// items are larger than a batch.
		p.free <- &batch[T]{data: make([]byte, 0, 2*batchBytes)}
	}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Go(p.decodeBatches)
	}
	split := make(chan struct{})
	go func() {
		defer close(split)
		defer close(p.work)
		defer close(p.order)
		if d.encoding == encJSON {
			p.lm, p.err = p.splitJSON()
		} else {
			p.lm, p.err = p.splitProto()
		}
	}()
	err := p.deliver(yield)
	close(p.stop)
	if err != nil {
		abort()
	}
	<-split
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.lm, nil
}

// pipeline is the state of one parallel list decode.
type pipeline[E any, T Object[E]] struct {
	d                 *decoder[E, T]
	work, order, free chan *batch[T]
	stop              chan struct{}
	lm                *metav1.ListMeta // set by the splitter before it closes order
	err               error            // likewise
	cur               *batch[T]        // the splitter's batch being filled
	next              int              // index of the next item the splitter sees
}

// deliver yields the decoded items batch by batch, in order.
func (p *pipeline[E, T]) deliver(yield func(T) error) error {
	for b := range p.order {
		<-b.done
		if b.err != nil {
			return b.err
		}
		for i, t := range b.items {
			b.items[i] = nil
			if err := yield(t); err != nil {
				return yieldError{err}
			}
		}
		p.free <- b
	}
	return nil
}

// decodeBatches is a worker: it decodes each batch's items into fresh Ts.
func (p *pipeline[E, T]) decodeBatches() {
	for b := range p.work {
		start := 0
		for i, end := range b.ends {
			t := T(new(E))
			var err error
			if p.d.encoding == encJSON {
				err = kjson.UnmarshalCaseSensitivePreserveInts(b.data[start:end], t)
				t.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
			} else {
				err = any(t).(protoMessage).Unmarshal(b.data[start:end])
			}
			if err != nil {
				b.err = fmt.Errorf("item %d: %w", b.first+i, err)
				break
			}
			b.items = append(b.items, t)
			start = end
		}
		close(b.done)
	}
}

var errStopped = errors.New("stopped")

// item starts an item in the current batch, taking a free batch when there
// is none; the caller appends the item's bytes to p.cur.data and calls
// itemEnd.
func (p *pipeline[E, T]) item() error {
	if p.cur == nil {
		select {
		case p.cur = <-p.free:
		case <-p.stop:
			return errStopped
		}
		p.cur.reset(p.next)
	}
	return nil
}

// itemEnd records the end of the item just appended and sends the batch
// off when it is full.
func (p *pipeline[E, T]) itemEnd() {
	p.cur.ends = append(p.cur.ends, len(p.cur.data))
	p.next++
	if len(p.cur.data) >= batchBytes || len(p.cur.ends) >= batchMaxItems {
		p.flush()
	}
}

// flush sends the current batch to the workers and the consumer. Neither
// send blocks: both channels hold every batch there is.
func (p *pipeline[E, T]) flush() {
	if p.cur == nil || len(p.cur.ends) == 0 {
		return
	}
	p.order <- p.cur
	p.work <- p.cur
	p.cur = nil
}

// splitProto walks a protobuf list response as protoList does, copying
// each item's bytes into a batch instead of decoding it.
func (p *pipeline[E, T]) splitProto() (*metav1.ListMeta, error) {
	s := &p.d.s
	if _, err := s.r.Discard(len(protoMagic)); err != nil {
		return nil, err
	}
	s.n += int64(len(protoMagic))
	var lm *metav1.ListMeta
	kind := ""
	for {
		tag, err := s.uvarint()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		field, wt := tag>>3, tag&7
		switch {
		case field == unknownTypeMeta && wt == wireBytes:
			n, err := s.length(noEnd)
			if err != nil {
				return nil, fmt.Errorf("typeMeta: %w", err)
			}
			b, err := s.bytes(n)
			if err != nil {
				return nil, fmt.Errorf("typeMeta: %w", err)
			}
			if kind, err = kindOf(b); err != nil {
				return nil, fmt.Errorf("typeMeta: %w", err)
			}
		case field == unknownRaw && wt == wireBytes:
			l, err := s.uvarint()
			if err != nil {
				return nil, eofIsUnexpected(err)
			}
			if kind == "Status" {
				return nil, p.d.protoStatus(l)
			}
			if lm, err = p.splitProtoBody(int64(l)); err != nil {
				return nil, err
			}
		case field == unknownContentEncoding && wt == wireBytes:
			n, err := s.length(noEnd)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				return nil, fmt.Errorf("content encoding with %d bytes is not supported", n)
			}
		default:
			if err := s.skip(wt, noEnd); err != nil {
				return nil, err
			}
		}
	}
	if lm == nil {
		return nil, fmt.Errorf("the protobuf response (kind %q) holds no list", kind)
	}
	return lm, nil
}

func (p *pipeline[E, T]) splitProtoBody(size int64) (*metav1.ListMeta, error) {
	s := &p.d.s
	end := s.n + size
	lm := &metav1.ListMeta{}
	for s.n < end {
		tag, err := s.uvarint()
		if err != nil {
			return nil, eofIsUnexpected(err)
		}
		field, wt := tag>>3, tag&7
		switch {
		case field == listMetadata && wt == wireBytes:
			n, err := s.length(end)
			if err != nil {
				return nil, fmt.Errorf("list metadata: %w", err)
			}
			b, err := s.bytes(n)
			if err != nil {
				return nil, fmt.Errorf("list metadata: %w", err)
			}
			if err := lm.Unmarshal(b); err != nil {
				return nil, fmt.Errorf("list metadata: %w", err)
			}
		case field == listItems && wt == wireBytes:
			n, err := s.length(end)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", p.next, err)
			}
			if err := p.item(); err != nil {
				return nil, err
			}
			if p.cur.data, err = s.appendBytes(p.cur.data, n); err != nil {
				return nil, fmt.Errorf("item %d: %w", p.next, err)
			}
			p.itemEnd()
		default:
			if err := s.skip(wt, end); err != nil {
				return nil, err
			}
		}
	}
	if s.n != end {
		return nil, errTruncated
	}
	p.flush()
	return lm, nil
}

// splitJSON walks a JSON list response: its members, and each element of
// items cut out whole into a batch (a worker's decoding checks it).
func (p *pipeline[E, T]) splitJSON() (*metav1.ListMeta, error) {
	j := jsonSplitter{br: p.d.br}
	if err := j.expect('{'); err != nil {
		return nil, err
	}
	var lm *metav1.ListMeta
	sawItems := false
	var scratch []byte
	for first := true; ; first = false {
		c, err := j.peek()
		if err != nil {
			return nil, eofIsUnexpected(err)
		}
		if c == '}' {
			j.br.Discard(1) //nolint:errcheck // peeked
			break
		}
		if !first {
			if err := j.expect(','); err != nil {
				return nil, err
			}
		}
		if scratch, err = j.value(scratch[:0]); err != nil {
			return nil, err
		}
		var key string
		if err := kjson.UnmarshalCaseSensitivePreserveInts(scratch, &key); err != nil {
			return nil, fmt.Errorf("want an object key: %w", err)
		}
		if err := j.expect(':'); err != nil {
			return nil, err
		}
		if key == "items" {
			sawItems = true
			if err := p.splitJSONItems(&j); err != nil {
				return nil, err
			}
			continue
		}
		if scratch, err = j.value(scratch[:0]); err != nil {
			return nil, fmt.Errorf("field %q: %w", key, err)
		}
		switch key {
		case "kind":
			var kind string
			if err := kjson.UnmarshalCaseSensitivePreserveInts(scratch, &kind); err != nil {
				return nil, fmt.Errorf("kind: %w", err)
			}
			if kind == "Status" {
				return nil, errors.New("the server answered with a Status instead of a list")
			}
		case "metadata":
			lm = &metav1.ListMeta{}
			if err := kjson.UnmarshalCaseSensitivePreserveInts(scratch, lm); err != nil {
				return nil, fmt.Errorf("list metadata: %w", err)
			}
		}
	}
	if !sawItems && lm == nil {
		return nil, errors.New("the JSON response has neither items nor list metadata")
	}
	if lm == nil {
		lm = &metav1.ListMeta{}
	}
	return lm, nil
}

func (p *pipeline[E, T]) splitJSONItems(j *jsonSplitter) error {
	c, err := j.peek()
	if err != nil {
		return fmt.Errorf("items: %w", eofIsUnexpected(err))
	}
	if c == 'n' {
		v, err := j.value(nil)
		if err != nil || string(v) != "null" {
			return fmt.Errorf("items: want an array, got %q", v)
		}
		return nil
	}
	if c != '[' {
		return fmt.Errorf("items: want an array, got %q", c)
	}
	j.br.Discard(1) //nolint:errcheck // peeked
	for first := true; ; first = false {
		c, err := j.peek()
		if err != nil {
			return fmt.Errorf("item %d: %w", p.next, eofIsUnexpected(err))
		}
		if c == ']' {
			j.br.Discard(1) //nolint:errcheck // peeked
			p.flush()
			return nil
		}
		if !first {
			if err := j.expect(','); err != nil {
				return fmt.Errorf("item %d: %w", p.next, err)
			}
		}
		if err := p.item(); err != nil {
			return err
		}
		if p.cur.data, err = j.value(p.cur.data); err != nil {
			return fmt.Errorf("item %d: %w", p.next, err)
		}
		p.itemEnd()
	}
}

// jsonSplitter finds where JSON values end in a stream without decoding
// them: a value's bytes are checked by whoever decodes them.
type jsonSplitter struct {
	br *bufio.Reader
}

// peek returns the next byte that is not white space, without consuming it.
func (j *jsonSplitter) peek() (byte, error) {
	for {
		b, err := j.br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			j.br.Discard(1) //nolint:errcheck // peeked
			continue
		}
		return b[0], nil
	}
}

// expect consumes the next non-space byte, which must be c.
func (j *jsonSplitter) expect(c byte) error {
	got, err := j.peek()
	if err != nil {
		return eofIsUnexpected(err)
	}
	if got != c {
		return fmt.Errorf("want %q, got %q", c, got)
	}
	j.br.Discard(1) //nolint:errcheck // peeked
	return nil
}

// value appends the next JSON value's bytes to dst: an object or array up
// to its matching close (strings and escapes skipped), a string up to its
// closing quote, a number or literal up to the next delimiter.
func (j *jsonSplitter) value(dst []byte) ([]byte, error) {
	c, err := j.peek()
	if err != nil {
		return dst, eofIsUnexpected(err)
	}
	depth, inString, escaped := 0, false, false
	scalar := false
	switch c {
	case '{', '[', '"':
	case '}', ']', ',', ':':
		return dst, fmt.Errorf("want a value, got %q", c)
	default:
		scalar = true
	}
	first := true
	for {
		if j.br.Buffered() == 0 {
			if _, err := j.br.Peek(1); err != nil {
				if scalar && errors.Is(err, io.EOF) && !first {
					return dst, nil
				}
				return dst, eofIsUnexpected(err)
			}
		}
		buf, _ := j.br.Peek(j.br.Buffered())
		for i, c := range buf {
			switch {
			case scalar:
				switch c {
				case ',', '}', ']', ' ', '\t', '\r', '\n', ':':
					dst = append(dst, buf[:i]...)
					j.br.Discard(i) //nolint:errcheck // peeked
					return dst, nil
				}
			case inString:
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
					if depth == 0 { // the value was this string
						dst = append(dst, buf[:i+1]...)
						j.br.Discard(i + 1) //nolint:errcheck // peeked
						return dst, nil
					}
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					dst = append(dst, buf[:i+1]...)
					j.br.Discard(i + 1) //nolint:errcheck // peeked
					return dst, nil
				}
			}
			first = false
		}
		dst = append(dst, buf...)
		j.br.Discard(len(buf)) //nolint:errcheck // peeked
	}
}
