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
	// history holds the ranges of the last scopeHistory generations,
	// oldest first, the current one last: SnapshotSince tells a range
	// lost and regained between two reads from one held throughout.
	history []scopeGeneration
}

// scopeGeneration is the Scope's ranges at one generation.
type scopeGeneration struct {
	gen    uint64
	ranges []Range
}

// scopeHistory is how many generations a Scope remembers for
// SnapshotSince.
const scopeHistory = 64

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
	return &Scope{field: field, ranges: norm, changed: make(chan struct{}), history: []scopeGeneration{{0, norm}}}, nil
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

// SnapshotSince is Snapshot that also returns gained: the current ranges
// that were missing at generation since or at any generation after it. A
// range lost and regained since then counts as gained, however quickly it
// came back, so that a reader that acts on gained ranges (a controller
// enqueueing their objects) misses nothing that happened while the range
// was gone. When since is older than the last 64 generations, every
// current range counts as gained.
func (s *Scope) SnapshotSince(since uint64) (ranges, gained []Range, generation uint64, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var kept []Range // held at every generation from since on
	if len(s.history) > 0 && s.history[0].gen <= since {
		kept = []Range{Full()}
		for _, h := range s.history {
			if h.gen >= since {
				kept = Intersect(kept, h.ranges)
			}
		}
	}
	return slices.Clone(s.ranges), Subtract(s.ranges, kept), s.gen, s.changed
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
	s.history = append(s.history, scopeGeneration{s.gen, norm})
	if len(s.history) > scopeHistory {
		s.history = slices.Delete(s.history, 0, len(s.history)-scopeHistory)
	}
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
