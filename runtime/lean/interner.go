package lean

import (
	"sync"

	"github.com/typedinformer/typedinformer/runtime/internal/intern"
)

// Defaults of NewInterner.
const (
	// DefaultMaxEntries is the number of distinct strings one generation of
	// an Interner holds.
	DefaultMaxEntries = 1 << 17
	// DefaultMaxLen is the longest string an Interner shares; longer ones
	// are rarely repeated and are returned as they are.
	DefaultMaxLen = 256
)

// Interner hands out one shared copy of equal strings. It is safe for
// concurrent use; one Interner can serve every informer of a process.
//
// It keeps the strings it hands out in two generations of at most
// maxEntries each: when the current one is full it becomes the old one and
// the previous old one is dropped, so a string that stops being asked for is
// forgotten after two turnovers and memory stays bounded by about
// 2*maxEntries strings. A string asked for again while in the old
// generation moves to the current one.
//
// Why not the standard library's unique package: unique.Make keeps its
// canonical copy only while a unique.Handle to it is alive. A cache keeps
// strings, not Handles, so every garbage collection would forget the
// canonical copies and later objects would get fresh duplicates; this map
// keeps them until they age out.
type Interner struct {
	maxEntries int
	maxLen     int

	mu   sync.RWMutex
	strs intern.Generations[string]
	// vals are the shared values (maps, container lists), keyed by a
	// description of their content.
	vals intern.Generations[any]
}

// NewInterner returns an Interner keeping at most maxEntries strings per
// generation and sharing strings of at most maxLen bytes. Zero or negative
// values select DefaultMaxEntries and DefaultMaxLen.
func NewInterner(maxEntries, maxLen int) *Interner {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	if maxLen <= 0 {
		maxLen = DefaultMaxLen
	}
	return &Interner{maxEntries: maxEntries, maxLen: maxLen}
}

// Intern returns a string equal to s, shared with every earlier caller that
// interned an equal string while it was remembered. The empty string and
// strings longer than the Interner's maxLen are returned unchanged.
func (in *Interner) Intern(s string) string {
	if s == "" || len(s) > in.maxLen {
		return s
	}
	in.mu.RLock()
	c, ok := in.strs.Current(s)
	in.mu.RUnlock()
	if ok {
		return c
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if c, ok := in.strs.Current(s); ok {
		return c
	}
	c, ok = in.strs.Old(s)
	if !ok {
		// Our own copy, so that s (possibly a slice of a larger decoded
		// buffer) is not what is kept.
		c = string([]byte(s))
	}
	in.strs.Put(c, c, in.maxEntries)
	return c
}

// Len returns how many distinct strings the Interner remembers now.
func (in *Interner) Len() int {
	in.mu.RLock()
	defer in.mu.RUnlock()
	return in.strs.Len()
}
