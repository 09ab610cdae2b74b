package deltafifo

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// FuzzDeltaFIFOInvariants drives a Queue and the store it feeds with a
// byte-driven sequence of Add/Update/Delete/Replace/Resync/Pop. Invariants:
// Add/Update/Delete deltas pop in the order they were queued, and after
// draining, the store equals the model of the source's state.
func FuzzDeltaFIFOInvariants(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 2, 1, 5, 0, 3, 2, 4, 0, 5, 0})
	f.Add([]byte{3, 5, 2, 1, 2, 1, 3, 0, 5, 5, 4, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		store := newKnownStore()
		fifo := New[*corev1.Pod](store)
		source := map[string]*corev1.Pod{} // the server's state
		rv := 0
		// expect holds the watch-like deltas queued and not yet popped, in
		// order; popped Add/Update/Delete deltas must match its head.
		var expect []string
		apply := func(batch []Delta[*corev1.Pod], _ bool) error {
			for _, d := range batch {
				if d.Type == Added || d.Type == Updated || (d.Type == Deleted && !d.FinalStateUnknown) {
					got := d.Key() + "=" + deltaString(d)
					if len(expect) == 0 || expect[0] != got {
						t.Fatalf("popped %s, want the oldest queued %v", got, expect)
					}
					expect = expect[1:]
				}
				if d.Type == Deleted {
					store.Delete(d.Object)
				} else {
					store.Update(d.Object)
				}
			}
			return nil
		}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%6, ops[i+1]
			name := fmt.Sprintf("p%d", arg%5)
			rv++
			p := pod("ns", name, fmt.Sprint(rv))
			k := keys.Of(p).String()
			_, exists := source[k]
			switch op {
			case 0:
				if !exists {
					source[k] = p
					fifo.Add(p)
					expect = append(expect, k+"=Added:"+p.ResourceVersion)
				}
			case 1:
				if exists {
					source[k] = p
					fifo.Update(p)
					expect = append(expect, k+"=Updated:"+p.ResourceVersion)
				}
			case 2:
				if exists {
					delete(source, k)
					before := fifo.Len()
					fifo.Delete(p)
					if fifo.Len() > before {
						expect = append(expect, k+"=Deleted:"+p.ResourceVersion)
					}
				}
			case 3:
				list := make([]*corev1.Pod, 0, len(source))
				for _, q := range source {
					list = append(list, q)
				}
				fifo.Replace(list, fmt.Sprint(rv))
			case 4:
				fifo.Resync()
			case 5:
				if fifo.Len() > 0 {
					fifo.PopBatch(int(arg%3)+1, apply)
				}
			}
		}
		for fifo.Len() > 0 {
			fifo.PopBatch(4, apply)
		}
		if len(expect) > 0 {
			t.Fatalf("never popped %v", expect)
		}
		if store.Len() != len(source) {
			t.Fatalf("store %v, source has %d", store.ListKeys(), len(source))
		}
		for k, p := range source {
			got, ok, _ := store.GetByKey(k)
			if !ok || got.ResourceVersion != p.ResourceVersion {
				t.Fatalf("key %s: store %v, source rv %s", k, got, p.ResourceVersion)
			}
		}
	})
}
