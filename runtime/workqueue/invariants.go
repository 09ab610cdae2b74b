package workqueue

import "fmt"

// checkInvariants verifies the invariants written at the top of queue.go
// and returns the first violation found, or nil. It takes q.mu; tests call
// it between operations (it walks every slot and ring entry, so it is not
// for production paths).
func (q *Typed[T]) checkInvariants() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	// 1. Slots: free ones are on the free list once and out of the slot table;
	// live ones are in the slot table under their hash; no item twice.
	onFree := make(map[int32]bool, len(q.free))
	for _, i := range q.free {
		if i < 0 || i >= q.nslots {
			return fmt.Errorf("free list holds slot %d of %d", i, q.nslots)
		}
		if onFree[i] {
			return fmt.Errorf("slot %d is on the free list twice", i)
		}
		onFree[i] = true
	}
	items := make(map[T]int32)
	var queued, processing, live int
	for i := range q.nslots {
		s := q.slot(i)
		var zero T
		if s.state == stateFree {
			if !onFree[i] {
				return fmt.Errorf("free slot %d is not on the free list", i)
			}
			if s.item != zero {
				return fmt.Errorf("free slot %d still holds item %v", i, s.item)
			}
			continue
		}
		live++
		if onFree[i] {
			return fmt.Errorf("live slot %d (item %v) is on the free list", i, s.item)
		}
		if j, dup := items[s.item]; dup {
			return fmt.Errorf("item %v is held by slots %d and %d", s.item, j, i)
		}
		items[s.item] = i
		// The slot table stores the hash: finding the item under its own
		// hash checks that the entry is filed where Add and Done look.
		if got := q.find(s.item, q.hash(s.item)); got != i {
			return fmt.Errorf("slot table finds item %v at slot %d, want %d", s.item, got, i)
		}
		switch s.state {
		case stateQueued:
			queued++
		case stateProcessing, stateProcessingDirty:
			processing++
		default:
			return fmt.Errorf("slot %d has unknown state %d", i, s.state)
		}
		if q.noPrio && s.prio != PriorityDefault {
			return fmt.Errorf("slot %d has priority %d with priorities disabled", i, s.prio)
		}
	}
	if q.table.n != live {
		return fmt.Errorf("slot table holds %d entries for %d live slots", q.table.n, live)
	}
	// 2. Counters.
	if queued != q.queued || processing != q.processing {
		return fmt.Errorf("counters say %d queued, %d processing; slots say %d, %d", q.queued, q.processing, queued, processing)
	}
	// 3 and 4. One live ring entry per queued slot, in its priority's ring;
	// levels strictly decreasing.
	liveEntries := make(map[int32]bool, queued)
	for li := range q.levels {
		l := &q.levels[li]
		if li > 0 && q.levels[li-1].prio <= l.prio {
			return fmt.Errorf("levels out of order: %d then %d", q.levels[li-1].prio, l.prio)
		}
		r := &l.ring
		if r.n < 0 || r.n > len(r.buf) {
			return fmt.Errorf("level %d: ring holds %d of %d", l.prio, r.n, len(r.buf))
		}
		for k := range r.n {
			e := r.buf[(r.head+k)&(len(r.buf)-1)]
			if e.slot < 0 || e.slot >= q.nslots {
				return fmt.Errorf("level %d: ring entry names slot %d of %d", l.prio, e.slot, q.nslots)
			}
			s := q.slot(e.slot)
			if s.gen != e.gen || s.state != stateQueued {
				continue // stale
			}
			if s.prio != l.prio {
				return fmt.Errorf("slot %d (priority %d) has a live entry in level %d", e.slot, s.prio, l.prio)
			}
			if liveEntries[e.slot] {
				return fmt.Errorf("slot %d (item %v) has two live ring entries", e.slot, s.item)
			}
			liveEntries[e.slot] = true
		}
	}
	if len(liveEntries) != queued {
		return fmt.Errorf("%d queued slots but %d live ring entries", queued, len(liveEntries))
	}
	// 6 and 7.
	if q.wakePending > q.waiting || q.wakePending < 0 {
		return fmt.Errorf("%d wake-ups pending for %d waiters", q.wakePending, q.waiting)
	}
	if q.draining && !q.shuttingDown {
		return fmt.Errorf("draining without shutting down")
	}
	if q.closed.Load() != q.shuttingDown {
		return fmt.Errorf("closed flag %v disagrees with shuttingDown %v", q.closed.Load(), q.shuttingDown)
	}
	return nil
}
