package cache

import "hash/maphash"

// nameSeed seeds the hashing of names in every nameTable.
var nameSeed = maphash.MakeSeed()

// nameTable finds an object of a bucket by name: an open-addressing hash
// table with linear probing whose slots hold a position in the bucket's objs
// plus one (0 is an empty slot). Names are not stored: a slot's name is that
// of the object it points at, so an entry costs 4 bytes (about 6 with the
// table's free slots) instead of a map cell with a string header. Every
// method takes the bucket's objs, which must be exactly the objects the
// table indexes, and is called with the indexer's lock held for writing
// (find also for reading).
type nameTable struct {
	slots []int32 // length a power of two, or nil when empty
	n     int     // entries in use
}

// home returns the first slot name probes.
func (t *nameTable) home(name string) int {
	return int(maphash.String(nameSeed, name) & uint64(len(t.slots)-1))
}

// find returns the slot holding name and its position in objs.
func nameFind[T Object](t *nameTable, objs []T, name string) (slot int, pos int32, ok bool) {
	if t.n == 0 {
		return 0, 0, false
	}
	mask := len(t.slots) - 1
	for i := t.home(name); ; i = (i + 1) & mask {
		v := t.slots[i]
		if v == 0 {
			return 0, 0, false
		}
		if objs[v-1].GetName() == name {
			return i, v - 1, true
		}
	}
}

// nameInsert records that objs[pos], not yet in the table, is named name.
// objs includes it.
func nameInsert[T Object](t *nameTable, objs []T, name string, pos int32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		nameRebuild(t, objs[:pos], max(8, 2*len(t.slots)))
	}
	mask := len(t.slots) - 1
	i := t.home(name)
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = pos + 1
	t.n++
}

// nameRebuild refills t with every object of objs in a table of size slots.
func nameRebuild[T Object](t *nameTable, objs []T, size int) {
	t.slots, t.n = make([]int32, size), 0
	mask := size - 1
	for p, o := range objs {
		i := t.home(o.GetName())
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(p) + 1
		t.n++
	}
}

// nameRemove empties slot (found by nameFind), shifting later entries of
// its probe run back so that every entry stays reachable from its home.
// objs must still hold every object the table points at.
func nameRemove[T Object](t *nameTable, objs []T, slot int) {
	mask := len(t.slots) - 1
	hole := slot
	for j := (slot + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		h := t.home(objs[t.slots[j]-1].GetName())
		// The entry at j may move into the hole unless its home lies
		// cyclically in (hole, j].
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

// nameShrink rebuilds a table left mostly empty by deletions.
func nameShrink[T Object](t *nameTable, objs []T) {
	if len(t.slots) > 64 && t.n*8 < len(t.slots) {
		size := 8
		for size*3 < t.n*4*2 {
			size *= 2
		}
		nameRebuild(t, objs, size)
	}
}
