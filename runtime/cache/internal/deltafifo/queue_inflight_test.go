package deltafifo

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// These tests call DeltaFIFO methods from inside the process function,
// before it applies the popped deltas to the store: the moment the reflector
// may call them while the informer is still applying a batch. A key being
// processed counts as queued (its newest state is the popped one), never as
// whatever the store still holds.

// popApplying pops one batch and applies it to store, running during()
// first, as the informer's process function would be interrupted; an error
// from during fails t.
func popApplying(t *testing.T, f *Queue[*corev1.Pod], store *knownStore, during func() error) {
	t.Helper()
	if err := f.PopBatch(16, func(batch []Delta[*corev1.Pod], _ bool) error {
		if err := during(); err != nil {
			t.Fatal(err)
		}
		for _, d := range batch {
			if d.Type == Deleted {
				store.Delete(d.Object)
			} else {
				store.Update(d.Object)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// queuedAfterInterruptedBatch pops one batch applying it to store with
// during() made first (popApplying), then fails t unless what is queued
// afterwards (popAll) is want; what names the case.
func queuedAfterInterruptedBatch(t *testing.T, f *Queue[*corev1.Pod], store *knownStore, during func() error, what string, want ...string) {
	t.Helper()
	popApplying(t, f, store, during)
	if got := popAll(t, f); !slices.Equal(got, want) {
		t.Fatalf("%s: queued %v afterwards, want %v", what, got, want)
	}
}

func TestDeltaFIFOResyncSkipsKeysBeingProcessed(t *testing.T) {
	store := knownWith(t, pod("ns", "a", "1"), pod("ns", "b", "1"))
	f := New[*corev1.Pod](store)
	f.Update(pod("ns", "a", "2"))
	f.Delete(pod("ns", "b", "3"))
	// A Sync of the store's a@1 or b@1 would undo the batch (stale update,
	// resurrected delete).
	queuedAfterInterruptedBatch(t, f, store, f.Resync, "resync of keys being processed")
}

func TestDeltaFIFODeleteOfKeyBeingAddedIsQueued(t *testing.T) {
	store := knownWith(t)
	f := New[*corev1.Pod](store)
	f.Add(pod("ns", "a", "1"))
	queuedAfterInterruptedBatch(t, f, store, func() error { return f.Delete(pod("ns", "a", "2")) },
		"delete of a key being added", "ns/a=Deleted:2")
}

// A relist (Replace) made while keys are being processed tombstones the
// ones it no longer has, with their newest known state, unless they are
// already being deleted.
func TestDeltaFIFOReplaceOfKeysBeingProcessed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known []*corev1.Pod               // the store before
		queue func(f *Queue[*corev1.Pod]) // what the popped batch holds
		want  []string                    // what is queued after the relist
	}{
		{"TombstonesKeyBeingAdded", nil, func(f *Queue[*corev1.Pod]) { f.Replace(nil, "1"); f.Add(pod("ns", "a", "2")) }, []string{"ns/a=Deleted(tombstone):2"}},
		{"TombstoneOfKeyBeingUpdatedCarriesNewState", []*corev1.Pod{pod("ns", "a", "1")}, func(f *Queue[*corev1.Pod]) { f.Update(pod("ns", "a", "2")) }, []string{"ns/a=Deleted(tombstone):2"}},
		{"DoesNotTombstoneKeyBeingDeleted", []*corev1.Pod{pod("ns", "a", "1")}, func(f *Queue[*corev1.Pod]) { f.Delete(pod("ns", "a", "2")) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := knownWith(t, tc.known...)
			f := New[*corev1.Pod](store)
			tc.queue(f)
			// The relist no longer has a.
			queuedAfterInterruptedBatch(t, f, store, func() error { return f.Replace(nil, "3") }, "relist", tc.want...)
		})
	}
}
