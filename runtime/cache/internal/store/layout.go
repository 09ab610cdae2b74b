package store

import (
	"slices"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// The layout of Indexer, chosen so that a lookup by index value is
// one contiguous copy and so that each stored object costs few bytes:
//
//   - Objects live in one nsBucket per namespace: objs is dense (it is the
//     NamespaceIndex result for that namespace) and names finds an object's
//     position in objs by name (see nameTable: 8 bytes per slot, no key
//     strings of its own).
//   - A custom index keeps, per value, a posting whose objs slice is dense
//     too. Which postings an object is in, and where, is recorded beside the
//     object in its bucket (nsBucket.mem), so removing it is a swap-delete
//     with no search: the last element moves into the hole and its recorded
//     position is updated.
//
// Every element of every posting is the current object of its key: an
// update writes the new object into each posting the key is in. The order
// inside a posting (and so of ByIndex results) is unspecified: appends go to
// the end and a removal moves the last element into the removed one's place.

// member records where one object sits in one custom index: its first
// distinct value and that value's position, then any further values. pos is
// -1 when the object is not in the index (no values, or its index function
// failed on it).
type member struct {
	val  string
	pos  int32
	more []valPos
}

// valPos is one further value of a multi-valued member.
type valPos struct {
	val string
	pos int32
}

// noPos is member.pos of an object that is in no posting of the index.
const noPos = -1

// posting is the dense list of the objects having one value of a custom
// index.
type posting[T keys.Object] struct {
	objs []T
}

// nsBucket holds the objects of one namespace. mem[j] runs parallel to
// objs and holds each object's membership in the custom index j.
type nsBucket[T keys.Object] struct {
	objs  []T
	names nameTable
	mem   [][]member
}

// customIndex is one named index other than NamespaceIndex.
type customIndex[T keys.Object] struct {
	name   string
	fn     IndexFunc[T]
	values map[string]*posting[T]
}

// shrinkSlice returns s with a smaller backing array when it uses under a
// quarter of a sizeable capacity, so that a namespace or an index value that
// was large once does not hold its peak size forever.
func shrinkSlice[E any](s []E) []E {
	if c := cap(s); c > 64 && len(s) < c/4 {
		return slices.Clone(s)
	}
	return s
}

// removeAt swap-deletes element i of s and returns the shorter slice and
// whether an element moved into i (the former last element).
func removeAt[E any](s []E, i int32) ([]E, bool) {
	last := int32(len(s) - 1)
	moved := i != last
	if moved {
		s[i] = s[last]
	}
	var zero E
	s[last] = zero
	return s[:last], moved
}

// dedupValues returns vals without repeated values, keeping the first
// occurrence of each (in place when there is nothing to remove).
func dedupValues(vals []string) []string {
	if len(vals) < 2 {
		return vals
	}
	for i := 1; i < len(vals); i++ {
		if slices.Contains(vals[:i], vals[i]) {
			out := slices.Clone(vals[:i])
			for _, v := range vals[i+1:] {
				if !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
			return out
		}
	}
	return vals
}

// sameAs reports whether m holds exactly the (deduplicated) values vals.
func (m *member) sameAs(vals []string) bool {
	if m.pos < 0 {
		return len(vals) == 0
	}
	if len(vals) != 1+len(m.more) || vals[0] != m.val {
		return false
	}
	for i, vp := range m.more {
		if vals[i+1] != vp.val {
			return false
		}
	}
	return true
}

// setPos records that value val of m now sits at position p.
func (m *member) setPos(val string, p int32) {
	if m.pos >= 0 && m.val == val {
		m.pos = p
		return
	}
	for i := range m.more {
		if m.more[i].val == val {
			m.more[i].pos = p
			return
		}
	}
}
