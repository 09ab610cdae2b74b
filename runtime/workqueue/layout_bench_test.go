package workqueue

import (
	"fmt"
	"testing"
	"unsafe"
)

// BenchmarkQueueLayout measures nothing: it logs the offset and cache
// line of each of Typed's hot fields and reports, as metrics, how many of
// them straddle a line or sit outside the line documented on Typed, and
// how far a new Typed is from the start of a line. It never fails: the
// grouping is a performance choice that a new field may change, to be
// looked at with
//
//	go test -run XXX -bench QueueLayout -v ./runtime/workqueue
func BenchmarkQueueLayout(b *testing.B) {
	var q Typed[string]
	const lineSize = 64
	fields := []struct {
		name      string
		off, size uintptr
		line      uintptr // the line the comment on Typed puts it on
	}{
		{"mu", unsafe.Offsetof(q.mu), unsafe.Sizeof(q.mu), 0},
		{"shuttingDown", unsafe.Offsetof(q.shuttingDown), unsafe.Sizeof(q.shuttingDown), 0},
		{"noPrio", unsafe.Offsetof(q.noPrio), unsafe.Sizeof(q.noPrio), 0},
		{"queued", unsafe.Offsetof(q.queued), unsafe.Sizeof(q.queued), 0},
		{"processing", unsafe.Offsetof(q.processing), unsafe.Sizeof(q.processing), 0},
		{"waiting", unsafe.Offsetof(q.waiting), unsafe.Sizeof(q.waiting), 0},
		{"wakePending", unsafe.Offsetof(q.wakePending), unsafe.Sizeof(q.wakePending), 0},
		{"metrics", unsafe.Offsetof(q.metrics), unsafe.Sizeof(q.metrics), 0},
		{"seed", unsafe.Offsetof(q.seed), unsafe.Sizeof(q.seed), 0},
		{"table", unsafe.Offsetof(q.table), unsafe.Sizeof(q.table), 1},
		{"pages", unsafe.Offsetof(q.pages), unsafe.Sizeof(q.pages), 1},
	}
	misplaced := 0
	for _, f := range fields {
		first, last := f.off/lineSize, (f.off+f.size-1)/lineSize
		note := ""
		if first != f.line || last != f.line {
			misplaced++
			note = fmt.Sprintf(" (documented on line %d)", f.line)
		}
		b.Logf("%-12s offset %3d size %2d lines %d..%d%s", f.name, f.off, f.size, first, last, note)
	}
	nq := NewTypedWithConfig(TypedQueueConfig[string]{})
	defer nq.ShutDown()
	misalign := uintptr(unsafe.Pointer(nq)) % lineSize
	b.Logf("Typed[string] is %d bytes; a new one starts %d bytes into a line", unsafe.Sizeof(q), misalign)
	for b.Loop() {
	}
	b.ReportMetric(float64(misplaced), "misplaced-fields")
	b.ReportMetric(float64(misalign), "alloc-misalign-B")
	b.ReportMetric(float64(unsafe.Sizeof(q)), "queue-B")
}
