package sharding

import (
	"slices"
	"sync"
)

// Scope is the part of the hash space that a replica's informers cache
// right now: a field and a set of ranges that may change while the
// informers run. Whoever decides ownership (a Ring, a test, a static
// configuration) calls Set; informers and controllers read it with
// Snapshot and wait on the returned channel for the next change.
//
// A Scope with no ranges owns nothing. All methods are safe for concurrent
// use. The slices it returns are copies the caller may keep and modify.
type Scope struct {
	field Field

	mu      sync.Mutex
	ranges  []Range
	gen     uint64
	changed chan struct{}
}

// NewScope returns a Scope on field holding ranges (normalized). It fails
// for an unsupported field or an invalid range.
func NewScope(field Field, ranges []Range) (*Scope, error) {
	if err := field.Validate(); err != nil {
		return nil, err
	}
	norm, err := Normalize(ranges)
	if err != nil {
		return nil, err
	}
	return &Scope{field: field, ranges: norm, changed: make(chan struct{})}, nil
}

// Field returns the field the Scope hashes. It never changes.
func (s *Scope) Field() Field { return s.field }

// Snapshot returns the current ranges (normalized, sorted), their
// generation (starting at 0 and incremented by every Set that changed the
// ranges) and a channel that is closed on the next such change. Reading
// the three under one lock means a caller that applies the ranges and then
// waits on the channel cannot miss a change.
func (s *Scope) Snapshot() (ranges []Range, generation uint64, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ranges), s.gen, s.changed
}

// Ranges returns a copy of the current ranges.
func (s *Scope) Ranges() []Range {
	r, _, _ := s.Snapshot()
	return r
}

// Set replaces the ranges. It normalizes them first; when the result equals
// the current ranges it does nothing, otherwise it increments the
// generation and wakes every waiter of the previous Snapshot. It returns an
// error naming the first invalid range and then changes nothing.
func (s *Scope) Set(ranges []Range) error {
	norm, err := Normalize(ranges)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Equal(norm, s.ranges) {
		return nil
	}
	s.ranges = norm
	s.gen++
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// Owns reports whether an object with the given namespace and uid lies in
// the current ranges.
func (s *Scope) Owns(namespace, uid string) bool {
	h := Hash(s.field.Value(namespace, uid))
	s.mu.Lock()
	defer s.mu.Unlock()
	return Contains(s.ranges, h)
}
