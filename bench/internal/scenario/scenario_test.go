package scenario

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
)

var bothSides = []Side{Ours, ClientGo}

func TestMain(m *testing.M) {
	QuietLogs()
	m.Run()
}

// Each scenario must complete on both sides and return consistent counts;
// the numbers themselves are not checked.
func TestSync(t *testing.T) {
	for _, side := range bothSides {
		t.Run(string(side), func(t *testing.T) {
			r, err := Sync(side, 300, true)
			if err != nil {
				t.Fatal(err)
			}
			if r.N != 300 || r.Seconds <= 0 || r.BaseHeap == 0 || r.PeakHeap == 0 || r.LiveHeap == 0 ||
				r.EmptyHeap == 0 || r.ListHeap == 0 || r.DroppedHeap == 0 {
				t.Fatalf("incomplete result %+v", r)
			}
			// The objects stay live (the informer holds them) once the list
			// is dropped, so the heap cannot fall below them.
			if r.DroppedHeap < r.EmptyHeap+r.ListHeap/2 {
				t.Fatalf("heap after dropping the list (%d) is below the objects (%d + %d): the store lost them?", r.DroppedHeap, r.EmptyHeap, r.ListHeap)
			}
			// One copy of a Pod is its struct rounded up to a size class:
			// never below the struct, never a whole class step above it.
			if size := uint64(unsafe.Sizeof(corev1.Pod{})); r.CopyBytes < size || r.CopyBytes > size*5/4 {
				t.Fatalf("copy of one Pod measured %d B, struct is %d B", r.CopyBytes, size)
			}
		})
	}
}

func TestEvents(t *testing.T) {
	for _, side := range bothSides {
		for _, handlers := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/handlers=%d", side, handlers), func(t *testing.T) {
				r, err := Events(side, 50, handlers, 1_000)
				if err != nil {
					t.Fatal(err)
				}
				if r.Events != 1_000 || r.Seconds <= 0 || r.EventsPerSecond() <= 0 {
					t.Fatalf("incomplete result %+v", r)
				}
			})
		}
	}
}

func TestIndex(t *testing.T) {
	const n = 1_000
	for _, side := range bothSides {
		t.Run(string(side), func(t *testing.T) {
			rs, err := Index(side, n, time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{"namespace": n / fixture.Namespaces, NodeIndex: n / fixture.Nodes}
			values := map[string]int{"namespace": fixture.Namespaces, NodeIndex: fixture.Nodes}
			// Ours measures each index twice: ByIndex, and AppendByIndex
			// into a caller's buffer (which must not allocate).
			perIndex := 1
			if side == Ours {
				perIndex = 2
			}
			if len(rs) != perIndex*len(want) {
				t.Fatalf("got %d results, want %d", len(rs), perIndex*len(want))
			}
			for _, r := range rs {
				if r.Buffer && (side != Ours || r.AllocsPerOp != 0) {
					t.Errorf("%s %s with a buffer: %v allocations per lookup", side, r.Index, r.AllocsPerOp)
				}
				if r.Hits != want[r.Index] || r.Values != values[r.Index] || r.NsPerOp <= 0 {
					t.Errorf("%s: %+v, want %d hits", r.Index, r, want[r.Index])
				}
			}
		})
	}
}

func TestQueue(t *testing.T) {
	for _, side := range bothSides {
		if side == Ours && !OursQueueAvailable() {
			t.Log("ours: runtime/workqueue not in this build")
			continue
		}
		for _, workers := range []int{1, 4, 16} {
			t.Run(fmt.Sprintf("%s/workers=%d", side, workers), func(t *testing.T) {
				r, err := Queue(side, workers, 4_000, 500, 0)
				if err != nil {
					t.Fatal(err)
				}
				if r.Processed < 500 || r.Processed > 4_000 || r.Seconds <= 0 {
					t.Fatalf("incomplete result %+v", r)
				}
			})
		}
	}
}

func TestMeasureOp(t *testing.T) {
	calls := 0
	ns, allocs, n := measureOp(time.Millisecond, func() { calls++ })
	if calls < 2 || ns <= 0 || allocs < 0 || n < 1 || n >= calls {
		t.Fatalf("calls %d, ns %v, allocs %v, timed calls %d", calls, ns, allocs, n)
	}
}

// The benchmarks below wrap the same scenarios for `go test -bench`; CI
// runs them once each (-benchtime=1x) so the suite cannot rot. Sizes shrink
// with -short. hack/bench.sh produces the side-by-side table.

func size(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

func BenchmarkSync(b *testing.B) {
	for _, n := range []int{size(10_000, 1_000), size(100_000, 2_000)} {
		list := fixture.PodList(n, "1")
		for _, side := range bothSides {
			b.Run(fmt.Sprintf("n=%d/%s", n, side), func(b *testing.B) {
				var r SyncResult
				for b.Loop() {
					var err error
					if r, err = SyncList(side, list); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(r.Seconds*1e3, "sync-ms")
				b.ReportMetric(r.PeakGrowth()/1e6, "peak-heap-MB")
				b.ReportMetric(r.RetainedPerObject(), "retained-B/obj")
			})
		}
	}
}

func BenchmarkEvents(b *testing.B) {
	keys, total := size(10_000, 500), size(1_000_000, 10_000)
	for _, handlers := range []int{1, 4} {
		for _, side := range bothSides {
			b.Run(fmt.Sprintf("handlers=%d/%s", handlers, side), func(b *testing.B) {
				var r EventsResult
				for b.Loop() {
					var err error
					if r, err = Events(side, keys, handlers, total); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(r.EventsPerSecond(), "events/s")
				b.ReportMetric(r.AllocsPerEvent(), "allocs/event")
			})
		}
	}
}

func BenchmarkIndex(b *testing.B) {
	n := size(100_000, 2_000)
	for _, side := range bothSides {
		b.Run(string(side), func(b *testing.B) {
			var rs []IndexResult
			for b.Loop() {
				var err error
				if rs, err = Index(side, n, 10*time.Millisecond); err != nil {
					b.Fatal(err)
				}
			}
			for _, r := range rs {
				b.ReportMetric(r.NsPerOp, r.Index+"-ns/lookup")
			}
		})
	}
}

func BenchmarkQueue(b *testing.B) {
	adds, keys := size(1_000_000, 20_000), size(10_000, 1_000)
	for _, work := range []int{0, 200} {
		for _, workers := range []int{1, 4, 16} {
			for _, side := range bothSides {
				b.Run(fmt.Sprintf("work=%d/workers=%d/%s", work, workers, side), func(b *testing.B) {
					if side == Ours && !OursQueueAvailable() {
						b.Skip("runtime/workqueue not in this build")
					}
					var r QueueResult
					for b.Loop() {
						var err error
						if r, err = Queue(side, workers, adds, keys, work); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(r.DrainRate(), "adds/s")
					b.ReportMetric(float64(r.Processed), "processed")
				})
			}
		}
	}
}

// BenchmarkBigEvents decodes a watch of 1 MiB ConfigMaps (64 KiB with
// -short) read in SegmentSize pieces, per side; ns/op is per event.
func BenchmarkBigEvents(b *testing.B) {
	size, events := 1<<20, 4
	if testing.Short() {
		size, events = 64<<10, 2
	}
	body, one, err := BigEventsBody(size, events)
	if err != nil {
		b.Fatal(err)
	}
	for _, side := range []Side{ClientGo, Ours} {
		b.Run(string(side), func(b *testing.B) {
			b.SetBytes(int64(one))
			for b.Loop() {
				r, err := BigEvents(side, body, one)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(r.SecondsPerEvent*1e9, "ns/event")
			}
		})
	}
}
