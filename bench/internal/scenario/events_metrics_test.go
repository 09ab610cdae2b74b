package scenario

import "testing"

// TestEventsMetrics runs the metrics-cost workload with the adapter on and
// off: every update reaches every handler, and the CPU time is reported.
func TestEventsMetrics(t *testing.T) {
	for _, adapter := range []bool{false, true} {
		for _, handlers := range []int{1, 4} {
			r, err := EventsMetrics(adapter, 50, handlers, 1_000)
			if err != nil {
				t.Fatalf("adapter=%v handlers=%d: %v", adapter, handlers, err)
			}
			if r.Events != 1_000 || r.Seconds <= 0 || r.CPUSeconds < 0 {
				t.Fatalf("adapter=%v handlers=%d: %+v", adapter, handlers, r)
			}
		}
	}
}
