package workqueue

// slotTable is the queue's hash table from an item's hash to the slot that
// holds it: open addressing with
// linear probing over a power-of-two table kept at most half full. An entry
// stores 32 bits of the item's hash next to the slot number, so growing the
// table never rehashes or even reads an item, and a probe compares items
// only when those bits match. The table holds no pointers, so the garbage
// collector does not scan it. A slotTable is not safe for concurrent use; the
// queue guards it with its mutex.
//
// The table doubles when it would be more than half full. It shrinks, to
// the smallest size at most a quarter full, only when it is less than an
// eighth full and at least as many removes as it has cells have happened
// since it was last resized. So a queue whose backlog swings between empty
// and large keeps its table instead of reallocating it on every swing (each
// resize costs a pass over the table, which that many removes pay for), and
// a queue that drained after a burst gives the memory back once it has kept
// working for that long.
//
// runtime/cache/internal/store's nameTable is the other open-addressing
// table of the runtime. They are kept apart on purpose: one implementation
// shared by both (measured with the hash, the confirm step and the shrink
// policy as parameters) cost 20-49 ns per lookup against 16-19 ns for each
// of these: the indirect calls for hashing and confirming, which each table
// inlines (the queue's table confirms against its slots, a name table
// against its bucket's objects, hashed with its indexer's seed).
type slotTable struct {
	ents    []slotTableEntry
	n       int
	removes int // removes since the table was last resized
}

// slotTableEntry is one table cell; slot is the slot number plus one, so that
// the zero value is an empty cell.
type slotTableEntry struct {
	hash uint32
	slot int32
}

// minSlotTableSize is the first table's size; keepSlotTableSize is the size below
// which a table never shrinks, so that a small queue that fills and drains
// does not reallocate each time.
const (
	minSlotTableSize  = 64
	keepSlotTableSize = 1024
)

// findItem returns the slot in pages that holds item, whose hash is h, or
// -1: it walks h's probe run and compares items only where the stored hash
// bits match. It takes the pages rather than a match callback so that the
// comparison is compiled in: it runs on every Add and Done, and the call
// through a closure was a fifth of an Add of a queued item.
func findItem[T comparable](x *slotTable, pages []*slotPage[T], item T, h uint32) int32 {
	ents := x.ents
	if x.n == 0 || len(ents) == 0 {
		return -1
	}
	mask := uint32(len(ents) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		e := ents[p]
		if e.slot == 0 {
			return -1
		}
		if e.hash == h {
			if i := e.slot - 1; pages[uint32(i)/slotPageSize].slots[uint32(i)%slotPageSize].item == item {
				return i
			}
		}
	}
}

// insert records that slot holds an item with hash h. The item must not be
// in the table already.
func (x *slotTable) insert(h uint32, slot int32) {
	if 2*(x.n+1) > len(x.ents) {
		x.resize(max(minSlotTableSize, 2*len(x.ents)))
	}
	x.put(slotTableEntry{hash: h, slot: slot + 1})
	x.n++
}

// put stores e in the first empty cell of its probe sequence.
func (x *slotTable) put(e slotTableEntry) {
	mask := uint32(len(x.ents) - 1)
	p := e.hash & mask
	for x.ents[p].slot != 0 {
		p = (p + 1) & mask
	}
	x.ents[p] = e
}

// remove deletes the entry of slot, whose item has hash h. The entries
// after it in its run are shifted back so that no probe sequence breaks
// (no tombstones). The table halves when it falls to an eighth full.
func (x *slotTable) remove(h uint32, slot int32) {
	mask := uint32(len(x.ents) - 1)
	p := h & mask
	for x.ents[p].slot != slot+1 {
		if x.ents[p].slot == 0 {
			panic("workqueue: slot table entry of a queued item is missing")
		}
		p = (p + 1) & mask
	}
	// p is a hole; pull back any later entry of the run whose home is not
	// between the hole and its current cell.
	for q := (p + 1) & mask; x.ents[q].slot != 0; q = (q + 1) & mask {
		home := x.ents[q].hash & mask
		if (q-home)&mask >= (q-p)&mask {
			x.ents[p] = x.ents[q]
			p = q
		}
	}
	x.ents[p] = slotTableEntry{}
	x.n--
	x.removes++
	if len(x.ents) > keepSlotTableSize && 8*x.n < len(x.ents) && x.removes >= len(x.ents) {
		size := keepSlotTableSize
		for size < 4*x.n {
			size *= 2
		}
		x.resize(size)
	}
}

// resize moves every entry into a new table of size cells.
func (x *slotTable) resize(size int) {
	old := x.ents
	x.ents = make([]slotTableEntry, size)
	x.removes = 0
	for _, e := range old {
		if e.slot != 0 {
			x.put(e)
		}
	}
}
