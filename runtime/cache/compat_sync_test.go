package cache_test

import (
	"sync/atomic"
	"testing"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// A plain func() bool converts to InformerSynced, as a client-go test's
// alwaysReady does, and serves both waits.
func TestCompatWaitForCacheSync(t *testing.T) {
	alwaysReady := func() bool { return true }
	var synced cache.InformerSynced = alwaysReady
	if !cache.WaitForCacheSync(nil, synced, alwaysReady) {
		t.Fatal("WaitForCacheSync(all ready) = false")
	}
	if err := cache.WaitForSync(t.Context(), synced); err != nil {
		t.Fatalf("WaitForSync(InformerSynced) = %v", err)
	}

	// Not synced and stopped: false, and the wait has returned (no hang).
	stop := make(chan struct{})
	close(stop)
	never := func() bool { return false }
	if cache.WaitForCacheSync(stop, alwaysReady, never) {
		t.Fatal("WaitForCacheSync(stopped, never synced) = true")
	}
	if cache.WaitForNamedCacheSync("test", stop, never) {
		t.Fatal("WaitForNamedCacheSync(stopped, never synced) = true")
	}

	// Becomes synced while waiting: true, only after it did.
	var ready atomic.Bool
	var calls atomic.Int32
	later := func() bool {
		if calls.Add(1) == 3 {
			ready.Store(true)
		}
		return ready.Load()
	}
	if !cache.WaitForNamedCacheSync("test", make(chan struct{}), later) {
		t.Fatal("WaitForNamedCacheSync(becomes ready) = false")
	}
	if n := calls.Load(); n < 3 {
		t.Fatalf("returned after %d checks, before the syncer reported true", n)
	}

	// A nil function is reported, not called.
	if cache.WaitForCacheSync(nil, alwaysReady, nil) {
		t.Fatal("WaitForCacheSync with a nil function = true")
	}
	if cache.WaitForNamedCacheSyncWithContext(t.Context(), nil) {
		t.Fatal("WaitForNamedCacheSyncWithContext with a nil function = true")
	}
}
