package crcache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// objectKind is which informer map an object's informers are in: typed
// objects, metadata-only objects and unstructured objects of one kind have
// informers of their own.
type objectKind int

const (
	kindStructured objectKind = iota
	kindMetadata
	kindUnstructured
)

func kindOf(obj runtime.Object) objectKind {
	switch obj.(type) {
	case runtime.Unstructured:
		return kindUnstructured
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return kindMetadata
	default:
		return kindStructured
	}
}

type informerKey struct {
	gvk  schema.GroupVersionKind
	kind objectKind
}

// entry is one informer and the reader over its store.
type entry struct {
	informer toolscache.SharedIndexInformer
	reader   reader
	stop     chan struct{} // closed by RemoveInformer
}

// informersConfig is what every informer of one informers has in common.
type informersConfig struct {
	restConfig            *rest.Config
	httpClient            *http.Client
	scheme                *runtime.Scheme
	mapper                meta.RESTMapper
	resync                time.Duration
	namespace             string // "" all
	label                 labels.Selector
	field                 fields.Selector
	transform             toolscache.TransformFunc
	unsafeDisableDeepCopy bool
	enableWatchBookmarks  bool
	watchErrorHandler     toolscache.WatchErrorHandlerWithContext
	newInformer           func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer
}

// informers holds the informers of one namespace (or all) and one
// configuration, created on first use and run once Start is called.
type informers struct {
	cfg informersConfig

	mu        sync.RWMutex
	entries   map[informerKey]*entry
	started   bool
	stopped   bool
	ctx       context.Context
	startWait chan struct{}
	wg        sync.WaitGroup
}

func newInformers(cfg informersConfig) *informers {
	if cfg.newInformer == nil {
		cfg.newInformer = clientgo.NewSharedIndexInformer
	}
	return &informers{cfg: cfg, entries: map[informerKey]*entry{}, startWait: make(chan struct{})}
}

// Start runs every informer and every informer created later, until ctx
// ends; it returns once they all stopped. A second Start fails.
func (ip *informers) Start(ctx context.Context) error {
	ip.mu.Lock()
	if ip.started {
		ip.mu.Unlock()
		return errors.New("informer already started") //nolint:staticcheck // controller-runtime's text
	}
	ip.ctx = ctx
	for _, e := range ip.entries {
		ip.runLocked(e)
	}
	ip.started = true
	close(ip.startWait)
	ip.mu.Unlock()

	<-ctx.Done()
	ip.mu.Lock()
	ip.stopped = true
	ip.mu.Unlock()
	ip.wg.Wait()
	return nil
}

// runLocked runs e's informer until the cache's context ends or e is
// removed.
func (ip *informers) runLocked(e *entry) {
	if ip.stopped {
		return
	}
	ctx := ip.ctx
	ip.wg.Go(func() {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-e.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		e.informer.RunWithContext(ctx)
	})
}

// WaitForCacheSync waits for Start and then for every informer to sync;
// false when ctx ends first.
func (ip *informers) WaitForCacheSync(ctx context.Context) bool {
	select {
	case <-ip.startWait:
	case <-ctx.Done():
		return false
	}
	ip.mu.RLock()
	synced := make([]toolscache.InformerSynced, 0, len(ip.entries))
	for _, e := range ip.entries {
		synced = append(synced, e.informer.HasSynced)
	}
	ip.mu.RUnlock()
	return toolscache.WaitForCacheSync(ctx.Done(), synced...)
}

// get returns obj's informer for gvk, creating it unless failOnMissing, and
// whether the cache is started; when started and block, it waits for the
// informer to sync.
func (ip *informers) get(ctx context.Context, gvk schema.GroupVersionKind, obj runtime.Object, failOnMissing, block bool) (bool, *entry, error) {
	key := informerKey{gvk: gvk, kind: kindOf(obj)}
	ip.mu.RLock()
	e, ok := ip.entries[key]
	started := ip.started
	ip.mu.RUnlock()
	if !ok {
		if failOnMissing {
			return false, nil, &crcache.ErrResourceNotCached{GVK: gvk}
		}
		var err error
		if e, started, err = ip.add(key, obj); err != nil {
			return started, nil, err
		}
	}
	if block && started && !e.informer.HasSynced() {
		if !toolscache.WaitForCacheSync(ctx.Done(), e.informer.HasSynced) {
			return started, nil, apierrors.NewTimeoutError(fmt.Sprintf("failed waiting for %T Informer to sync", obj), 0)
		}
	}
	return started, e, nil
}

// remove stops and forgets obj's informer for gvk, if there is one.
func (ip *informers) remove(gvk schema.GroupVersionKind, obj runtime.Object) {
	key := informerKey{gvk: gvk, kind: kindOf(obj)}
	ip.mu.Lock()
	defer ip.mu.Unlock()
	if e, ok := ip.entries[key]; ok {
		close(e.stop)
		delete(ip.entries, key)
	}
}

// add creates the informer of key (obj is an object of its type), running
// it when the cache is started.
func (ip *informers) add(key informerKey, obj runtime.Object) (*entry, bool, error) {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	if e, ok := ip.entries[key]; ok {
		return e, ip.started, nil
	}
	mapping, err := ip.cfg.mapper.RESTMapping(key.gvk.GroupKind(), key.gvk.Version)
	if err != nil {
		return nil, false, err
	}
	lw, example, err := ip.listerWatcher(key, obj, mapping)
	if err != nil {
		return nil, false, err
	}
	inf := ip.cfg.newInformer(lw, example, jitter(ip.cfg.resync), toolscache.Indexers{
		toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc,
	})
	if ip.cfg.watchErrorHandler != nil {
		if err := inf.SetWatchErrorHandlerWithContext(ip.cfg.watchErrorHandler); err != nil {
			return nil, false, err
		}
	}
	if err := inf.SetTransform(ip.cfg.transform); err != nil {
		return nil, false, err
	}
	e := &entry{
		informer: inf,
		reader: reader{
			indexer:         inf.GetIndexer(),
			gvk:             key.gvk,
			scope:           mapping.Scope.Name(),
			disableDeepCopy: ip.cfg.unsafeDisableDeepCopy,
			copier:          newCopier(reflect.TypeOf(example)),
		},
		stop: make(chan struct{}),
	}
	ip.entries[key] = e
	if ip.started {
		ip.runLocked(e)
	}
	return e, ip.started, nil
}

// listerWatcher is the runtime/wire ListerWatcher of key's informer and the
// example object of its type.
func (ip *informers) listerWatcher(key informerKey, obj runtime.Object, mapping *meta.RESTMapping) (toolscache.ListerWatcher, runtime.Object, error) {
	var namespace string
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		namespace = ip.listNamespace()
	}
	req := listRequest{bookmarks: ip.cfg.enableWatchBookmarks}
	if ip.cfg.label != nil {
		req.label = ip.cfg.label.String()
	}
	if ip.cfg.field != nil {
		req.field = ip.cfg.field.String()
	}
	client, err := restClientFor(ip.cfg.restConfig, ip.cfg.httpClient, ip.cfg.scheme, key.gvk.GroupVersion())
	if err != nil {
		return nil, nil, err
	}
	var example wire.Item
	switch key.kind {
	case kindMetadata:
		example = &metav1.PartialObjectMetadata{}
	case kindUnstructured:
		example = &unstructured.Unstructured{}
	default:
		o, err := ip.cfg.scheme.New(key.gvk)
		if err != nil {
			return nil, nil, err
		}
		// controller-runtime needs the list type registered too.
		if _, err := ip.cfg.scheme.New(key.gvk.GroupVersion().WithKind(key.gvk.Kind + "List")); err != nil {
			return nil, nil, err
		}
		it, ok := o.(wire.Item)
		if !ok {
			return nil, nil, fmt.Errorf("%s: %T has no ObjectMeta", key.gvk, o)
		}
		example = it
	}
	lw, err := newListerWatcher(client, key.kind, example, mapping.Resource, namespace, req, key.gvk)
	if err != nil {
		return nil, nil, err
	}
	ex := runtime.Object(example)
	switch key.kind {
	case kindMetadata:
		pom := &metav1.PartialObjectMetadata{}
		pom.SetGroupVersionKind(key.gvk)
		ex = pom
	case kindUnstructured:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(key.gvk)
		ex = u
	}
	return lw, ex, nil
}

// listNamespace is the namespace a namespaced resource's informer lists:
// the cache's, else one the field selector requires exactly.
func (ip *informers) listNamespace() string {
	if ip.cfg.namespace != "" {
		return ip.cfg.namespace
	}
	if ip.cfg.field == nil || ip.cfg.field.Empty() {
		return ""
	}
	ns, _ := ip.cfg.field.RequiresExactMatch("metadata.namespace")
	return ns
}

// jitter spreads resync periods over [0.9, 1.1) of d, as
// controller-runtime does, so informers do not resync at once.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.9 + rand.Float64()/5)) //nolint:gosec // not for security
}
