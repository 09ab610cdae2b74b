package workqueue

// ringEntry names a slot of the queue; gen tells a live entry from a stale
// one left behind when the slot's item moved to another priority or was
// handed out.
type ringEntry struct {
	slot int32
	gen  uint32
}

// ring is a FIFO of ring entries over a power-of-two circular buffer that
// grows by doubling and never allocates on push once it is large enough.
type ring struct {
	buf  []ringEntry
	head int
	n    int
}

func (r *ring) push(e ringEntry) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = e
	r.n++
}

func (r *ring) pop() ringEntry {
	e := r.buf[r.head]
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return e
}

func (r *ring) grow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = 64
	}
	buf := make([]ringEntry, size)
	for i := range r.n {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}

// level is the FIFO of one priority.
type level struct {
	prio int
	ring ring
}
