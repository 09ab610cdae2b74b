package informers

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// failedInformer is what InformerFor returns when it cannot hand out a
// working informer (a nil NewInformerFunc or factory, a NewInformerFunc that
// returned nil, a factory after Shutdown): an informer that never syncs,
// whose LastError and SyncError say why, whose AddEventHandler fails with
// that error, and whose Run only logs it and waits for ctx. Its cache is the
// wrapped informer's (empty for a fresh one), so listers over it work.
type failedInformer[T cache.Object] struct {
	cache.SharedIndexInformer[T]
	err error

	mu      sync.Mutex
	stopped bool
}

func newFailedInformer[T cache.Object](inner cache.SharedIndexInformer[T], err error) *failedInformer[T] {
	if inner == nil {
		inner = cache.NewSharedIndexInformerWithOptions[T](nil, cache.SharedIndexInformerOptions[T]{})
	}
	return &failedInformer[T]{SharedIndexInformer: inner, err: err}
}

// permanentErr lets the factory's WaitForCacheSync fail at once.
func (f *failedInformer[T]) permanentErr() error { return f.err }

func (f *failedInformer[T]) Run(ctx context.Context) {
	klog.FromContext(ctx).Error(f.err, "Informer cannot run")
	<-ctx.Done()
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
}

func (f *failedInformer[T]) HasSynced() bool { return false }

// HasSyncedChecker is never done.
func (f *failedInformer[T]) HasSyncedChecker() cache.DoneChecker {
	return newLatch("failed informer: " + f.err.Error())
}

func (f *failedInformer[T]) IsStopped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stopped
}

func (f *failedInformer[T]) LastError() error { return f.err }
func (f *failedInformer[T]) SyncError() error { return f.err }

func (f *failedInformer[T]) AddEventHandler(cache.ResourceEventHandler[T]) (cache.ResourceEventHandlerRegistration, error) {
	return nil, fmt.Errorf("handler not added: %w", f.err)
}

func (f *failedInformer[T]) AddEventHandlerWithResyncPeriod(cache.ResourceEventHandler[T], time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return nil, fmt.Errorf("handler not added: %w", f.err)
}

func (f *failedInformer[T]) AddEventHandlerWithOptions(cache.ResourceEventHandler[T], cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return nil, fmt.Errorf("handler not added: %w", f.err)
}
