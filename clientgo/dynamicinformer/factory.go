package dynamicinformer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	cgdynamicinformer "k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo"
)

// DynamicSharedInformerFactory is client-go's interface, which Factory
// implements.
type DynamicSharedInformerFactory = cgdynamicinformer.DynamicSharedInformerFactory

// TweakListOptionsFunc is client-go's.
type TweakListOptionsFunc = cgdynamicinformer.TweakListOptionsFunc

// ErrShutdown is wrapped by the errors of a Factory used after Shutdown.
var ErrShutdown = errors.New("dynamicinformer: the factory has been shut down")

// Factory is client-go's dynamic shared informer factory on the
// typedinformer runtime, with resources removed at run time
// (RemoveInformer) and a WaitForCacheSync that says why
// (WaitForCacheSyncWithContext). All methods are safe for concurrent use.
type Factory struct {
	client    dynamic.Interface
	resync    time.Duration
	namespace string
	tweak     TweakListOptionsFunc
	opts      []clientgo.Option

	mu           sync.Mutex
	informers    map[schema.GroupVersionResource]*entry
	shuttingDown bool
	wg           sync.WaitGroup
}

var _ DynamicSharedInformerFactory = (*Factory)(nil)

// entry is one resource's informer and, once started, how to stop it.
type entry struct {
	informer informers.GenericInformer
	started  bool
	cancel   context.CancelFunc
	done     chan struct{}
}

// NewDynamicSharedInformerFactory is client-go's constructor of the same
// name: a factory for every namespace.
func NewDynamicSharedInformerFactory(client dynamic.Interface, defaultResync time.Duration) *Factory {
	return NewFilteredDynamicSharedInformerFactory(client, defaultResync, metav1.NamespaceAll, nil)
}

// NewFilteredDynamicSharedInformerFactory is client-go's constructor of the
// same name: informers of namespace ("" all) with tweakListOptions (may be
// nil) applied to every list and watch. opts are the runtime's options for
// every informer (e.g. clientgo.WithLean).
func NewFilteredDynamicSharedInformerFactory(client dynamic.Interface, defaultResync time.Duration, namespace string, tweakListOptions TweakListOptionsFunc, opts ...clientgo.Option) *Factory {
	return &Factory{
		client: client, resync: defaultResync, namespace: namespace, tweak: tweakListOptions, opts: slices.Clone(opts),
		informers: map[schema.GroupVersionResource]*entry{},
	}
}

// ForResource returns gvr's shared informer, creating it on first use; as
// client-go's, its indexer has the namespace index. It starts with the
// next Start.
func (f *Factory) ForResource(gvr schema.GroupVersionResource) informers.GenericInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.informers[gvr]; ok {
		return e.informer
	}
	inf := NewFilteredDynamicInformer(f.client, gvr, f.namespace, f.resync,
		toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc}, f.tweak, f.opts...)
	f.informers[gvr] = &entry{informer: inf}
	return inf
}

// Start runs every informer not running yet until stopCh is closed, the
// factory shuts down or the informer is removed. It does nothing after
// Shutdown.
func (f *Factory) Start(stopCh <-chan struct{}) {
	f.StartWithContext(wait.ContextForChannel(stopCh))
}

// StartWithContext is Start until ctx ends.
func (f *Factory) StartWithContext(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	for _, e := range f.informers {
		if e.started {
			continue
		}
		runCtx, cancel := context.WithCancel(ctx)
		e.started, e.cancel, e.done = true, cancel, make(chan struct{})
		inf := e.informer.Informer()
		done := e.done
		f.wg.Go(func() {
			defer close(done)
			inf.RunWithContext(runCtx)
		})
	}
}

// started returns the informers started and not removed.
func (f *Factory) started() map[schema.GroupVersionResource]toolscache.SharedIndexInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[schema.GroupVersionResource]toolscache.SharedIndexInformer{}
	for gvr, e := range f.informers {
		if e.started {
			out[gvr] = e.informer.Informer()
		}
	}
	return out
}

// WaitForCacheSync waits, as client-go's does, until every started
// informer has synced or stopCh is closed, and says which did.
func (f *Factory) WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool {
	res := map[schema.GroupVersionResource]bool{}
	for gvr, inf := range f.started() {
		res[gvr] = toolscache.WaitForCacheSync(stopCh, inf.HasSynced)
	}
	return res
}

// WaitForCacheSyncWithContext is WaitForCacheSync until ctx ends, with an
// error naming each resource that did not sync and its last list or watch
// error (a resource the server does not serve is a NotFound).
func (f *Factory) WaitForCacheSyncWithContext(ctx context.Context) (map[schema.GroupVersionResource]bool, error) {
	res := map[schema.GroupVersionResource]bool{}
	var errs []error
	for gvr, inf := range f.started() {
		res[gvr] = toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
		if res[gvr] {
			continue
		}
		var last error
		if le, ok := inf.(interface{ LastError() error }); ok {
			last = le.LastError()
		}
		if last == nil {
			last = context.Cause(ctx)
		}
		errs = append(errs, fmt.Errorf("dynamic informer of %s not synced: %w", gvr, last))
	}
	return res, errors.Join(errs...)
}

// RemoveInformer stops gvr's informer, waits until its goroutines have
// returned (its watch closed) and forgets it, so that a later ForResource
// creates a fresh one. Handlers registered on it receive no further
// events. It returns an error when the factory has no informer of gvr, and
// one wrapping ErrShutdown after Shutdown.
func (f *Factory) RemoveInformer(gvr schema.GroupVersionResource) error {
	f.mu.Lock()
	if f.shuttingDown {
		f.mu.Unlock()
		return fmt.Errorf("dynamicinformer: RemoveInformer(%s): %w", gvr, ErrShutdown)
	}
	e, ok := f.informers[gvr]
	delete(f.informers, gvr)
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("dynamicinformer: the factory has no informer of %s", gvr)
	}
	if e.started {
		e.cancel()
		<-e.done
	}
	return nil
}

// Shutdown stops every informer and blocks until their goroutines have
// returned; afterwards Start does nothing. (client-go's only waits for
// the stop channels to be closed; this one closes them.) It may be called
// more than once, concurrently.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	f.shuttingDown = true
	for _, e := range f.informers {
		if e.cancel != nil {
			e.cancel()
		}
	}
	f.mu.Unlock()
	f.wg.Wait()
}
