package informers

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// viewRequest is what WithSelectionOf asks NewFactory for.
type viewRequest struct {
	parent       *Factory
	label, field string
}

// ForSelection returns a view of f: a *Factory whose informers (InformerFor,
// and so a generated factory's accessors over it, see WithSelectionOf) list
// and watch f's selection ANDed with the label and field selectors given
// here. A view holds one informer per Go type, beside f's own informer of
// that type and those of f's other views, so that a program can watch
// disjoint parts of one resource with one informer each:
//
//   - f holds and runs the view's informers: f's Start starts them, f's
//     WaitForCacheSync waits for them and f's Shutdown stops them (Start
//     and WaitForCacheSync called on the view do the same as on f). The
//     view's Shutdown stops and forgets only the view's informers, and its
//     RemoveInformer removes only the view's informer of a type.
//   - The view takes everything else from f when it is made: namespaces
//     (SetNamespaces on either changes f's and so every view's), resync
//     periods, transform, metrics, shard scope and write tracker. Its
//     informers take no InformerName identity (f's informer of the type
//     has it).
//   - Selection, SetSelectors and SetTweakListOptions on the view change
//     the view's own selection, which its running informers relist with;
//     a change of f's changes every view's informers too. TweakListOptions
//     applies f's selection and then the view's.
//
// Selections of several views of one type may overlap: each informer then
// caches and notifies the objects in both, and UnionIndexer returns each
// of them once (see cache.NewUnionIndexer). Two views with the same
// selectors are two informers. A view of a view applies the selections of
// both and is held by the same factory.
//
// A selector that does not parse is an error naming it; a factory (or
// view) that was shut down is an error wrapping ErrShutdown. No view is
// made then.
func (f *Factory) ForSelection(labelSelector, fieldSelector string) (*Factory, error) {
	v := &Factory{}
	if err := f.initView(v, labelSelector, fieldSelector); err != nil {
		return nil, err
	}
	return v, nil
}

// WithSelectionOf makes NewFactory return a view of parent (see
// ForSelection) instead of a factory of its own, for constructors that
// build the runtime factory themselves, such as a generated
// NewSharedInformerFactoryWithOptions:
//
//	web := kubeinformers.NewSharedInformerFactoryWithOptions(client, 0,
//		informers.WithSelectionOf(factory.Base(), "tier=web", ""))
//	pods := web.Core().V1().Pods() // the informer of tier=web Pods, run by factory
//
// The view takes its configuration from parent: the default resync given to
// NewFactory and the other options are ignored. A nil parent, a selector
// that does not parse or a parent that was shut down makes the returned
// factory one whose InformerFor returns informers reporting the error, and
// whose WaitForCacheSync returns it.
func WithSelectionOf(parent *Factory, labelSelector, fieldSelector string) Option {
	return func(f *Factory) {
		f.viewOf = &viewRequest{parent: parent, label: labelSelector, field: fieldSelector}
	}
}

// initView makes v a view of f with the given selectors.
func (f *Factory) initView(v *Factory, labelSelector, fieldSelector string) error {
	if f == nil {
		return errors.New("informers: ForSelection of a nil Factory")
	}
	r := f.holder()
	r.mu.Lock()
	down := r.shuttingDown || f.closed
	r.mu.Unlock()
	if down {
		return fmt.Errorf("informers: ForSelection(%q, %q): %w", labelSelector, fieldSelector, ErrShutdown)
	}
	if f.viewErr != nil {
		return fmt.Errorf("informers: ForSelection(%q, %q): %w", labelSelector, fieldSelector, f.viewErr)
	}
	sel, err := cache.NewSelection(nil, labelSelector, fieldSelector)
	if err != nil {
		return fmt.Errorf("informers: ForSelection: %w", err)
	}
	v.root = r
	v.sel = sel
	v.sels = append(slices.Clone(f.sels), sel)
	v.defaultResync = f.defaultResync
	v.customResync = f.customResync
	v.transform, v.lean = f.transform, f.lean
	v.metrics, v.idMetrics = f.metrics, f.idMetrics
	v.shardScope = f.shardScope
	v.informerName = f.informerName
	v.writes = f.writes
	v.namespaceSet = f.namespaceSet
	v.shutdown = r.shutdown
	v.tweak, v.configErr, v.viewErr, v.viewOf = nil, nil, nil, nil
	return nil
}

// shutdownView stops and forgets the view's informers; the view hands out
// no more.
func (f *Factory) shutdownView() {
	r := f.root
	r.mu.Lock()
	f.closed = true
	var stop []*entry
	for k, e := range r.informers {
		if k.sel == f.sel {
			stop = append(stop, e)
			delete(r.informers, k)
		}
	}
	r.mu.Unlock()
	for _, e := range stop {
		if e.started {
			e.cancel()
			<-e.done
		}
	}
}

// selectionSuffix names a view's selectors in errors ("" for a factory).
func (f *Factory) selectionSuffix() string {
	if f.root == nil {
		return ""
	}
	label, field := f.sel.Selectors()
	return fmt.Sprintf(" of the view (label %q, field %q)", label, field)
}

// UnionIndexer returns a read-only indexer over the caches of every
// informer of T that f holds: f's own, if requested, and each of its views'
// (ForSelection), for listers.New and generated listers
// (corev1listers.NewPodLister(informers.UnionIndexer[*corev1.Pod](f))).
// On a view it is the union of the factory the view was taken of.
//
// The members are looked up at each call, so informers requested later are
// included and removed ones (RemoveInformer, a view's Shutdown) are not.
// Each key is returned once, with the state of the highest resourceVersion,
// as cache.NewUnionIndexer describes, which also says what a reader sees
// while an object moves from one selection to another; its writing methods
// fail. Listers over it wait for the program's own writes (WithWriteTracker)
// as listers over each member would.
func UnionIndexer[T cache.Object](f *Factory) cache.Indexer[T] {
	return factoryUnion[T]{f: f.holder()}
}

// factoryUnion is UnionIndexer's: a cache.NewUnionIndexer over f's current
// informers of T at each call.
type factoryUnion[T cache.Object] struct{ f *Factory }

func (u factoryUnion[T]) union() cache.Indexer[T] {
	typ := reflect.TypeFor[T]()
	u.f.mu.Lock()
	ks := u.f.sortedKeysLocked(typ)
	members := make([]cache.Indexer[T], 0, len(ks))
	for _, k := range ks {
		if inf, ok := u.f.informers[k].informer.(cache.SharedIndexInformer[T]); ok {
			members = append(members, inf.GetIndexer())
		}
	}
	u.f.mu.Unlock()
	return cache.NewUnionIndexer(members...)
}

func (u factoryUnion[T]) Add(obj T) error                        { return u.union().Add(obj) }
func (u factoryUnion[T]) Update(obj T) error                     { return u.union().Update(obj) }
func (u factoryUnion[T]) Delete(obj T) error                     { return u.union().Delete(obj) }
func (u factoryUnion[T]) Replace(list []T, rv string) error      { return u.union().Replace(list, rv) }
func (u factoryUnion[T]) AddIndexers(ix cache.Indexers[T]) error { return u.union().AddIndexers(ix) }
func (u factoryUnion[T]) Bookmark(rv string)                     { u.union().Bookmark(rv) }
func (u factoryUnion[T]) LastStoreSyncResourceVersion() string   { return "" }
func (u factoryUnion[T]) Get(obj T) (T, bool, error)             { return u.union().Get(obj) }
func (u factoryUnion[T]) GetByKey(key string) (T, bool, error)   { return u.union().GetByKey(key) }
func (u factoryUnion[T]) List() []T                              { return u.union().List() }
func (u factoryUnion[T]) ListKeys() []string                     { return u.union().ListKeys() }
func (u factoryUnion[T]) Len() int                               { return u.union().Len() }
func (u factoryUnion[T]) GetIndexers() cache.Indexers[T]         { return u.union().GetIndexers() }
func (u factoryUnion[T]) ListIndexFuncValues(name string) []string {
	return u.union().ListIndexFuncValues(name)
}

func (u factoryUnion[T]) Index(name string, obj T) ([]T, error) { return u.union().Index(name, obj) }
func (u factoryUnion[T]) ByIndex(name, value string) ([]T, error) {
	return u.union().ByIndex(name, value)
}

func (u factoryUnion[T]) AppendByIndex(dst []T, name, value string) ([]T, error) {
	return u.union().AppendByIndex(dst, name, value)
}

func (u factoryUnion[T]) IndexKeys(name, value string) ([]string, error) {
	return u.union().IndexKeys(name, value)
}

// WaitForWritesTo implements cache.WriteWaiter over the current members.
func (u factoryUnion[T]) WaitForWritesTo(ctx context.Context, key string) error {
	return u.union().(cache.WriteWaiter).WaitForWritesTo(ctx, key)
}

// WaitForWrites implements cache.WriteWaiter over the current members.
func (u factoryUnion[T]) WaitForWrites(ctx context.Context) error {
	return u.union().(cache.WriteWaiter).WaitForWrites(ctx)
}
