package informers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// multiNamespaceInformer presents one informer per namespace as a single
// SharedIndexInformer: Run runs them all, HasSynced waits for all, handlers
// are registered on each and see events from every namespace, and the cache
// is a read view merging theirs.
type multiNamespaceInformer[T cache.Object] struct {
	namespaces []string
	children   []cache.SharedIndexInformer[T]
	indexer    *multiNamespaceIndexer[T]

	mu      sync.Mutex
	started bool
	stopped bool
}

var _ cache.SharedIndexInformer[*metav1.PartialObjectMetadata] = (*multiNamespaceInformer[*metav1.PartialObjectMetadata])(nil)

func newMultiNamespaceInformer[T cache.Object](namespaces []string, children []cache.SharedIndexInformer[T]) *multiNamespaceInformer[T] {
	byNS := make(map[string]cache.Indexer[T], len(children))
	indexers := make([]cache.Indexer[T], len(children))
	for i, c := range children {
		byNS[namespaces[i]] = c.GetIndexer()
		indexers[i] = c.GetIndexer()
	}
	return &multiNamespaceInformer[T]{
		namespaces: namespaces,
		children:   children,
		indexer:    &multiNamespaceIndexer[T]{namespaces: namespaces, byNS: byNS, all: indexers},
	}
}

// Run runs every namespace's informer and returns when all have returned.
func (m *multiNamespaceInformer[T]) Run(ctx context.Context) {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return
	}
	m.started = true
	m.mu.Unlock()

	var wg sync.WaitGroup
	for _, c := range m.children {
		wg.Go(func() { c.Run(ctx) })
	}
	wg.Wait()

	m.mu.Lock()
	m.stopped = true
	m.mu.Unlock()
}

func (m *multiNamespaceInformer[T]) HasSynced() bool {
	for _, c := range m.children {
		if !c.HasSynced() {
			return false
		}
	}
	return true
}

func (m *multiNamespaceInformer[T]) IsStopped() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stopped
}

// LastSyncResourceVersion joins the namespaces' resourceVersions as
// "ns=rv,…": each namespace has its own list/watch, so there is no single
// version. It is meant for logs, not for comparison.
func (m *multiNamespaceInformer[T]) LastSyncResourceVersion() string {
	parts := make([]string, len(m.children))
	for i, c := range m.children {
		parts[i] = m.namespaces[i] + "=" + c.LastSyncResourceVersion()
	}
	return strings.Join(parts, ",")
}

// LastError joins the namespaces' last errors, each naming its namespace.
func (m *multiNamespaceInformer[T]) LastError() error {
	var errs []error
	for i, c := range m.children {
		if err := c.LastError(); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", m.namespaces[i], err))
		}
	}
	return errors.Join(errs...)
}

// SyncError joins the namespaces' sync errors, each naming its namespace.
func (m *multiNamespaceInformer[T]) SyncError() error {
	var errs []error
	for i, c := range m.children {
		if err := c.SyncError(); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", m.namespaces[i], err))
		}
	}
	return errors.Join(errs...)
}

func (m *multiNamespaceInformer[T]) Name() string {
	return fmt.Sprintf("%s in namespaces %s", m.children[0].Name(), strings.Join(m.namespaces, ","))
}

func (m *multiNamespaceInformer[T]) AddEventHandler(handler cache.ResourceEventHandler[T]) (cache.ResourceEventHandlerRegistration, error) {
	return m.addHandler(handler, func(c cache.SharedIndexInformer[T], h cache.ResourceEventHandler[T]) (cache.ResourceEventHandlerRegistration, error) {
		return c.AddEventHandler(h)
	})
}

func (m *multiNamespaceInformer[T]) AddEventHandlerWithResyncPeriod(handler cache.ResourceEventHandler[T], resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return m.addHandler(handler, func(c cache.SharedIndexInformer[T], h cache.ResourceEventHandler[T]) (cache.ResourceEventHandlerRegistration, error) {
		return c.AddEventHandlerWithResyncPeriod(h, resyncPeriod)
	})
}

// addHandler registers handler on every namespace's informer behind a lock,
// so that the handler still runs one event at a time, as it would on a
// single informer; events of one namespace keep their order.
func (m *multiNamespaceInformer[T]) addHandler(handler cache.ResourceEventHandler[T], add func(cache.SharedIndexInformer[T], cache.ResourceEventHandler[T]) (cache.ResourceEventHandlerRegistration, error)) (cache.ResourceEventHandlerRegistration, error) {
	serial := &serialHandler[T]{handler: handler}
	reg := &multiRegistration{owner: m}
	for i, c := range m.children {
		r, err := add(c, serial)
		if err != nil {
			for j, done := range reg.regs {
				_ = m.children[j].RemoveEventHandler(done)
			}
			return nil, fmt.Errorf("namespace %q: %w", m.namespaces[i], err)
		}
		reg.regs = append(reg.regs, r)
	}
	return reg, nil
}

func (m *multiNamespaceInformer[T]) RemoveEventHandler(reg cache.ResourceEventHandlerRegistration) error {
	mr, ok := reg.(*multiRegistration)
	if !ok || mr.owner != m {
		return nil // not ours: like removing an unknown registration
	}
	var errs []error
	for i, r := range mr.regs {
		if err := m.children[i].RemoveEventHandler(r); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", m.namespaces[i], err))
		}
	}
	return errors.Join(errs...)
}

func (m *multiNamespaceInformer[T]) GetStore() cache.Store[T]     { return m.indexer }
func (m *multiNamespaceInformer[T]) GetIndexer() cache.Indexer[T] { return m.indexer }

func (m *multiNamespaceInformer[T]) AddIndexers(indexers cache.Indexers[T]) error {
	return m.indexer.AddIndexers(indexers)
}

func (m *multiNamespaceInformer[T]) SetTransform(f cache.TransformFunc[T]) error {
	return m.each(func(c cache.SharedIndexInformer[T]) error { return c.SetTransform(f) })
}

func (m *multiNamespaceInformer[T]) SetWatchErrorHandler(handler cache.WatchErrorHandler) error {
	return m.each(func(c cache.SharedIndexInformer[T]) error { return c.SetWatchErrorHandler(handler) })
}

func (m *multiNamespaceInformer[T]) each(fn func(cache.SharedIndexInformer[T]) error) error {
	var errs []error
	for i, c := range m.children {
		if err := fn(c); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", m.namespaces[i], err))
		}
	}
	return errors.Join(errs...)
}

// multiRegistration is a handler's registration on every namespace.
type multiRegistration struct {
	owner any
	regs  []cache.ResourceEventHandlerRegistration
}

func (r *multiRegistration) HasSynced() bool {
	for _, reg := range r.regs {
		if !reg.HasSynced() {
			return false
		}
	}
	return true
}

// serialHandler lets one handler be fed by several informers without ever
// running two of its calls at once.
type serialHandler[T cache.Object] struct {
	mu      sync.Mutex
	handler cache.ResourceEventHandler[T]
}

func (s *serialHandler[T]) OnAdd(obj T, isInInitialList bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler.OnAdd(obj, isInInitialList)
}

func (s *serialHandler[T]) OnUpdate(oldObj, newObj T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler.OnUpdate(oldObj, newObj)
}

func (s *serialHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler.OnDelete(obj, finalStateUnknown)
}

// SetShardScope sets scope on every namespace's informer; see
// cache.ShardedInformer.
func (m *multiNamespaceInformer[T]) SetShardScope(scope *sharding.Scope) error {
	return m.each(func(c cache.SharedIndexInformer[T]) error {
		si, ok := c.(cache.ShardedInformer)
		if !ok {
			return fmt.Errorf("informer %T cannot be sharded", c)
		}
		return si.SetShardScope(scope)
	})
}

// ShardStatus merges the namespaces' statuses: the first namespace's
// ranges and selector, ServerSide only if every namespace's list was
// sharded by the server, Listed only if every one listed, and the first
// reason for client-side filtering. ok is false until every namespace has
// a status.
func (m *multiNamespaceInformer[T]) ShardStatus() (cache.ShardStatus, bool) {
	var out cache.ShardStatus
	for i, c := range m.children {
		si, ok := c.(cache.ShardedInformer)
		if !ok {
			return cache.ShardStatus{}, false
		}
		st, ok := si.ShardStatus()
		if !ok {
			return cache.ShardStatus{}, false
		}
		if i == 0 {
			out = st
			continue
		}
		out.ServerSide = out.ServerSide && st.ServerSide
		out.Listed = out.Listed && st.Listed
		if out.ClientSide == "" {
			out.ClientSide = st.ClientSide
		}
	}
	return out, len(m.children) > 0
}

// OnScopeExit forwards a scope exit under the lock (see
// cache.ScopeExitHandler): the wrapped handler decides how it is told.
func (s *serialHandler[T]) OnScopeExit(obj T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cache.DeliverScopeExit(s.handler, obj)
}
