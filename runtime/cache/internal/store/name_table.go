package store

import (
	"hash/maphash"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// nameTable finds an object of a bucket by name: an open-addressing hash
// table with linear probing. A slot holds 32 bits of the name's hash (which
// also pick the slot the name's probe starts at) and the object's position
// in the bucket's objs plus one; 0 is an empty slot. Names are not stored: a
// slot whose hash bits match is confirmed against the object's own name, so
// an entry costs 8 bytes (about 11 with the table's free slots) instead of a
// map cell with a string header, and a probe past other names touches no
// object. Every function takes the bucket's objs, which must be exactly the
// objects the table indexes; the indexer's lock is held for writing (for
// nameFind, at least for reading). seed is set once, before the first
// insert: every table of an indexer takes the indexer's (see newBucket).
//
// workqueue's slotTable is the other open-addressing table of the runtime.
// They are kept apart on purpose: one implementation shared by both
// (measured with the hash, the confirm step and the shrink policy as
// parameters) cost 20-49 ns per lookup against 16-19 ns for each of these:
// the indirect calls for hashing and confirming, which each table inlines
// (a name table hashes with its indexer's seed and confirms against the
// bucket's objects, the queue's table confirms against its slots).
type nameTable struct {
	slots []uint64 // length a power of two, or nil when empty
	n     int      // entries in use
	seed  maphash.Seed
}

// hash returns the 32 hash bits a slot of t keeps for name.
func (t *nameTable) hash(name string) uint32 {
	return uint32(maphash.String(t.seed, name) >> 32)
}

// nameEntry builds a slot value.
func nameEntry(h uint32, pos int32) uint64 { return uint64(h)<<32 | uint64(pos+1) }

// nameFind returns the slot holding name and its position in objs.
func nameFind[T keys.Object](t *nameTable, objs []T, name string) (slot int, pos int32, ok bool) {
	if t.n == 0 {
		return 0, 0, false
	}
	h := t.hash(name)
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		v := t.slots[i]
		if v == 0 {
			return 0, 0, false
		}
		if uint32(v>>32) == h {
			p := int32(uint32(v)) - 1
			if objs[p].GetName() == name {
				return i, p, true
			}
		}
	}
}

// nameInsert records that objs[pos], not yet in the table, is named name.
func nameInsert(t *nameTable, name string, pos int32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.resize(max(8, 2*len(t.slots)))
	}
	t.put(nameEntry(t.hash(name), pos))
	t.n++
}

// put places entry v in the first free slot of its probe.
func (t *nameTable) put(v uint64) {
	mask := len(t.slots) - 1
	i := int(uint32(v>>32)) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = v
}

// resize moves every entry into a table of size slots.
func (t *nameTable) resize(size int) {
	old := t.slots
	t.slots = make([]uint64, size)
	for _, v := range old {
		if v != 0 {
			t.put(v)
		}
	}
}

// setPos changes the position slot points at.
func (t *nameTable) setPos(slot int, pos int32) {
	t.slots[slot] = nameEntry(uint32(t.slots[slot]>>32), pos)
}

// remove empties slot (found by nameFind), shifting later entries of its
// probe run back so that every entry stays reachable from its first slot.
func (t *nameTable) remove(slot int) {
	mask := len(t.slots) - 1
	hole := slot
	for j := (slot + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		h := int(uint32(t.slots[j]>>32)) & mask
		// The entry at j may move into the hole unless its first slot
		// lies cyclically in (hole, j].
		if (j-h)&mask >= (j-hole)&mask {
			t.slots[hole] = t.slots[j]
			hole = j
		}
	}
	t.slots[hole] = 0
	t.n--
	if t.n == 0 {
		t.slots = nil
	}
}

// shrink resizes a table left mostly empty by deletions.
func (t *nameTable) shrink() {
	if len(t.slots) > 64 && t.n*8 < len(t.slots) {
		t.resize(nameTableSize(2 * t.n))
	}
}

// nameTableSize is the table size that holds n entries within the load
// limit.
func nameTableSize(n int) int {
	size := 8
	for size*3 < n*4 {
		size *= 2
	}
	return size
}
