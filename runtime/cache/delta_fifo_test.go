package cache

import (
	"errors"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestDeltaFIFO_DeltasForAKeyStayInOrder(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](nil)
	f.Add(pod("ns", "a", "1"))
	f.Add(pod("ns", "b", "2"))
	f.Update(pod("ns", "a", "3"))
	f.Delete(pod("ns", "a", "4"))
	got := popAll(t, f)
	want := []string{"ns/a=Added:1,Updated:3,Deleted:4", "ns/b=Added:2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDeltaFIFO_ConsecutiveDeletesCollapseKeepingTheNonTombstone(t *testing.T) {
	cases := []struct {
		name  string
		first Delta[*corev1.Pod]
		then  Delta[*corev1.Pod]
		want  string
	}{
		{"real then real keeps newer", Delta[*corev1.Pod]{Type: Deleted, Object: pod("ns", "a", "1")}, Delta[*corev1.Pod]{Type: Deleted, Object: pod("ns", "a", "2")}, "Deleted:2"},
		{"real then tombstone keeps real", Delta[*corev1.Pod]{Type: Deleted, Object: pod("ns", "a", "1")}, Delta[*corev1.Pod]{Type: Deleted, Object: pod("ns", "a", "2"), FinalStateUnknown: true}, "Deleted:1"},
		{"tombstone then real keeps real", Delta[*corev1.Pod]{Type: Deleted, Object: pod("ns", "a", "1"), FinalStateUnknown: true}, Delta[*corev1.Pod]{Type: Deleted, Object: pod("ns", "a", "2")}, "Deleted:2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := NewDeltaFIFO[*corev1.Pod](nil)
			f.mu.Lock()
			f.queueLocked(keyOfObj(c.first.Object), c.first)
			f.queueLocked(keyOfObj(c.then.Object), c.then)
			f.mu.Unlock()
			got := popAll(t, f)
			if len(got) != 1 || got[0] != "ns/a="+c.want {
				t.Fatalf("got %v, want ns/a=%s", got, c.want)
			}
		})
	}
}

func TestDeltaFIFO_DeleteOfUnknownUnqueuedKeyIsIgnored(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](knownWith(t, pod("ns", "known", "1")))
	f.Delete(pod("ns", "ghost", "2"))
	if f.Len() != 0 {
		t.Fatalf("delete of unknown key queued something: %v", f.ListKeys())
	}
	f.Delete(pod("ns", "known", "3"))
	if got := popAll(t, f); !reflect.DeepEqual(got, []string{"ns/known=Deleted:3"}) {
		t.Fatalf("got %v", got)
	}
	// Queued but not known: the delete is kept.
	f.Add(pod("ns", "new", "4"))
	f.Delete(pod("ns", "new", "5"))
	if got := popAll(t, f); !reflect.DeepEqual(got, []string{"ns/new=Added:4,Deleted:5"}) {
		t.Fatalf("got %v", got)
	}
}

func TestDeltaFIFO_ReplaceQueuesReplacedThenTombstonesForMissingKeys(t *testing.T) {
	known := knownWith(t, pod("ns", "stays", "1"), pod("ns", "gone", "2"))
	f := NewDeltaFIFO[*corev1.Pod](known)
	f.Add(pod("ns", "queued-only", "3")) // queued, never reached the store
	if err := f.Replace([]*corev1.Pod{pod("ns", "stays", "4"), pod("ns", "new", "5")}, "5"); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range popAll(t, f) {
		k, v, _ := cutEq(s)
		got[k] = v
	}
	want := map[string]string{
		"ns/stays":       "Replaced:4",
		"ns/new":         "Replaced:5",
		"ns/gone":        "Deleted(tombstone):2",
		"ns/queued-only": "Added:3,Deleted(tombstone):3",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func TestDeltaFIFO_ReplaceTombstoneCarriesNewestQueuedState(t *testing.T) {
	known := knownWith(t, pod("ns", "a", "1"))
	f := NewDeltaFIFO[*corev1.Pod](known)
	f.Update(pod("ns", "a", "2"))
	f.Replace(nil, "3")
	if got := popAll(t, f); !reflect.DeepEqual(got, []string{"ns/a=Updated:2,Deleted(tombstone):2"}) {
		t.Fatalf("got %v", got)
	}
}

func TestDeltaFIFO_ResyncQueuesSyncOnlyForKnownKeysWithNothingQueued(t *testing.T) {
	known := knownWith(t, pod("ns", "idle", "1"), pod("ns", "busy", "2"))
	f := NewDeltaFIFO[*corev1.Pod](known)
	f.Update(pod("ns", "busy", "3"))
	f.Resync()
	got := map[string]string{}
	for _, s := range popAll(t, f) {
		k, v, _ := cutEq(s)
		got[k] = v
	}
	want := map[string]string{"ns/idle": "Sync:1", "ns/busy": "Updated:3"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDeltaFIFO_HasSyncedAfterFirstReplaceIsPoppedAndProcessed(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](knownWith(t))
	if f.HasSynced() {
		t.Fatal("synced before anything happened")
	}
	f.Replace([]*corev1.Pod{pod("ns", "a", "1"), pod("ns", "b", "2")}, "2")
	f.Add(pod("ns", "c", "3")) // after the Replace: not part of the initial population
	var initialFlags []bool
	for i := 0; i < 2; i++ {
		f.Pop(func(key string, _ Deltas[*corev1.Pod], initial bool) error {
			initialFlags = append(initialFlags, initial)
			if f.HasSynced() {
				t.Errorf("synced while processing initial key %s", key)
			}
			return nil
		})
	}
	if !f.HasSynced() {
		t.Fatal("not synced after both initial keys were processed")
	}
	f.Pop(func(_ string, _ Deltas[*corev1.Pod], initial bool) error {
		initialFlags = append(initialFlags, initial)
		return nil
	})
	if !reflect.DeepEqual(initialFlags, []bool{true, true, false}) {
		t.Fatalf("isInInitialList flags %v", initialFlags)
	}
}

func TestDeltaFIFO_HasSyncedWhenAnEventCameBeforeAnyReplace(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](nil)
	f.Add(pod("ns", "a", "1"))
	if !f.HasSynced() {
		t.Fatal("an Add before any Replace should count as synced")
	}
}

func TestDeltaFIFO_EmptyFirstReplaceSyncsAtOnce(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](knownWith(t))
	f.Replace(nil, "1")
	if !f.HasSynced() {
		t.Fatal("an empty first list should be synced")
	}
}

func TestDeltaFIFO_BatchedPopCountsInitialItemsPerKey(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](knownWith(t))
	f.Replace([]*corev1.Pod{pod("ns", "a", "1"), pod("ns", "b", "2")}, "2")
	f.Add(pod("ns", "c", "3"))
	var flags []bool
	err := f.PopBatch(10, func(batch []PoppedDeltas[*corev1.Pod]) error {
		for _, b := range batch {
			flags = append(flags, b.IsInInitialList)
		}
		if f.HasSynced() {
			t.Error("synced before the batch was processed")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(flags, []bool{true, true, false}) || !f.HasSynced() {
		t.Fatalf("flags %v synced %v", flags, f.HasSynced())
	}
}

func TestDeltaFIFO_PopRequeuesOnErrRequeueAheadOfNewerDeltas(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](nil)
	f.Add(pod("ns", "a", "1"))
	err := f.Pop(func(_ string, _ Deltas[*corev1.Pod], _ bool) error {
		f.Update(pod("ns", "a", "2"))
		return errors.Join(errors.New("store busy"), ErrRequeue)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := popAll(t, f); !reflect.DeepEqual(got, []string{"ns/a=Added:1,Updated:2"}) {
		t.Fatalf("got %v", got)
	}
	// Other errors are returned and the deltas are consumed.
	f.Add(pod("ns", "b", "3"))
	boom := errors.New("boom")
	if err := f.Pop(func(string, Deltas[*corev1.Pod], bool) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Pop returned %v", err)
	}
	if f.Len() != 0 {
		t.Fatal("non-requeue error left the key queued")
	}
}

func TestDeltaFIFO_CloseWakesBlockedPop(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](nil)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		wg.Go(func() {
			errs <- f.Pop(func(string, Deltas[*corev1.Pod], bool) error { return nil })
		})
	}
	f.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrFIFOClosed) {
			t.Fatalf("Pop after Close returned %v", err)
		}
	}
	if !f.IsClosed() {
		t.Fatal("IsClosed false after Close")
	}
}

func TestDeltaFIFO_QueueHoldsAKeyOnce(t *testing.T) {
	f := NewDeltaFIFO[*corev1.Pod](nil)
	for i := 0; i < 5; i++ {
		f.Update(pod("ns", "a", "1"))
	}
	if f.Len() != 1 || !reflect.DeepEqual(f.ListKeys(), []string{"ns/a"}) {
		t.Fatalf("queue %v", f.ListKeys())
	}
	if ds, ok := f.Get("ns/a"); !ok || len(ds) != 5 {
		t.Fatalf("Get = %v, %v", ds, ok)
	}
}

func cutEq(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
