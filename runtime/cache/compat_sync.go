package cache

import (
	"context"

	"k8s.io/klog/v2"
)

// InformerSynced is client-go's shape of a sync check: a function that
// reports whether a cache has synced, typically an informer's HasSynced
// method value. A plain func() bool converts to it, so a test can pass an
// always-ready function. It is also a Syncer, so it can be given to
// WaitForSync; but a bare function cannot say why it has not synced, so
// prefer passing informers themselves to WaitForSync.
type InformerSynced func() bool

// HasSynced calls f.
func (f InformerSynced) HasSynced() bool { return f() }

// WaitForCacheSync is client-go's wait, with client-go's shape: it blocks
// until every cacheSync reports true (true) or stopCh is closed first
// (false), or at once (false, logged) when one of cacheSyncs is nil. Ported controllers pass ctx.Done() as stopCh. A nil stopCh waits
// forever. WaitForSync is the same wait with a context and an error that
// names what did not sync and why.
func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	if i := nilSync(cacheSyncs); i >= 0 {
		klog.Background().Error(nil, "WaitForCacheSync: cache sync function is nil", "index", i)
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if stopCh != nil {
		go func() {
			select {
			case <-stopCh:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return WaitForSync(ctx, syncersOf(cacheSyncs)...) == nil
}

// WaitForNamedCacheSync is WaitForCacheSync with log lines naming
// controllerName: one before waiting, and one on success or failure.
func WaitForNamedCacheSync(controllerName string, stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	logger := klog.Background().WithValues("controller", controllerName)
	logger.Info("Waiting for caches to sync")
	if !WaitForCacheSync(stopCh, cacheSyncs...) {
		logger.Error(nil, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

// WaitForNamedCacheSyncWithContext is WaitForNamedCacheSync that waits
// until ctx is done and logs through ctx's logger.
func WaitForNamedCacheSyncWithContext(ctx context.Context, cacheSyncs ...InformerSynced) bool {
	logger := klog.FromContext(ctx)
	logger.Info("Waiting for caches to sync")
	if i := nilSync(cacheSyncs); i >= 0 {
		logger.Error(nil, "Unable to sync caches: cache sync function is nil", "index", i)
		return false
	}
	if err := WaitForSync(ctx, syncersOf(cacheSyncs)...); err != nil {
		logger.Error(err, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

func syncersOf(fs []InformerSynced) []Syncer {
	s := make([]Syncer, len(fs))
	for i, f := range fs {
		s[i] = f
	}
	return s
}

// nilSync returns the index of the first nil function, or -1.
func nilSync(fs []InformerSynced) int {
	for i, f := range fs {
		if f == nil {
			return i
		}
	}
	return -1
}
