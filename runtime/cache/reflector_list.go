package cache

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// slabRegistry is the store side of zero-copy lists (see slab.go): the
// informer's indexer. registerSlabs returns the slabs it took.
type slabRegistry interface {
	registerSlabs(slabs []*slab) []*slab
	unregisterSlabs(slabs []*slab)
}

// listed is the outcome of listPages: the items to store, the list's
// resourceVersion, and the pages whose items point into their list's array.
type listed[T Object] struct {
	items []T
	rv    string
	pages []listedPage
}

// listedPage is one page whose items[from:to] point into its array sl
// (before the transform, which may replace some of them).
type listedPage struct {
	sl       *slab
	from, to int
}

// list fetches the full state, page by page, and replaces the sink's content.
func (r *reflector[T]) list(ctx context.Context) error {
	relist := r.isRelist()
	rv := r.relistResourceVersion()
	l, err := r.listPages(ctx, rv)
	if err != nil && isExpired(err) && rv != "" {
		relist = true
		// The RV we asked for is gone; ask for the current state.
		r.mu.Lock()
		r.rvUnavailable = true
		r.mu.Unlock()
		l, err = r.listPages(ctx, "")
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", r.name, err)
	}
	if err := r.transformAll(l.items); err != nil {
		return fmt.Errorf("list %s: %w", r.name, err)
	}
	// The slabs are registered before their objects are queued, so that
	// the store counts each one it applies.
	slabs := r.claimSlabs(l)
	if len(slabs) > 0 {
		slabs = r.slabs.registerSlabs(slabs)
	}
	var inScope func(T) bool
	if r.shard != nil {
		inScope = r.inShard
	}
	if err := r.sink.ReplaceInScope(l.items, l.rv, inScope); err != nil {
		if len(slabs) > 0 {
			r.slabs.unregisterSlabs(slabs)
		}
		return fmt.Errorf("list %s: storing the list: %w", r.name, err)
	}
	r.shardListed(ctx)
	r.mu.Lock()
	r.lastSyncRV = l.rv
	r.rvUnavailable = false
	r.lastErr = nil
	r.mu.Unlock()
	r.noteList(relist, l.rv)
	return nil
}

// listPages lists at rv, following continue tokens. A continue token that
// expires mid-way restarts as one unpaginated consistent list.
func (r *reflector[T]) listPages(ctx context.Context, rv string) (listed[T], error) {
	opts := metav1.ListOptions{ResourceVersion: rv, Limit: r.opts.PageSize}
	var l listed[T]
	for page := 0; ; page++ {
		obj, err := r.lw.List(ctx, r.withShard(opts))
		if err != nil {
			if page > 0 && isExpired(err) {
				opts = metav1.ListOptions{ResourceVersion: ""}
				l, page = listed[T]{}, -1
				continue
			}
			return listed[T]{}, err
		}
		items, sl, listMeta, err := extractList[T](obj, r.slabs != nil)
		if err != nil {
			return listed[T]{}, err
		}
		if r.shard != nil {
			r.checkShardInfo(page, obj, listMeta)
			items = r.filterShard(page, items)
		}
		if sl != nil {
			l.pages = append(l.pages, listedPage{sl: sl, from: len(l.items), to: len(l.items) + len(items)})
		}
		if l.items == nil {
			l.items = items
		} else {
			l.items = append(l.items, items...)
		}
		cont := listMeta.GetContinue()
		if cont == "" {
			l.rv = listMeta.GetResourceVersion()
			return l, nil
		}
		opts = metav1.ListOptions{Continue: cont, Limit: r.opts.PageSize}
	}
}

// transformAll prepares every listed item (see prepare), in place.
func (r *reflector[T]) transformAll(items []T) error {
	for i, obj := range items {
		t, err := r.prepare(obj)
		if err != nil {
			return fmt.Errorf("transforming %s: %w", keyOf(obj), err)
		}
		items[i] = t
	}
	return nil
}

// claimSlabs decides, per page listed without copying, whether the store
// may point into its array: only when at least half of the array's
// elements are handed over (the transform may have replaced items, shard
// filtering dropped some), else one survivor would pin more than twice
// what the store holds from the start. The items of an unclaimed page are
// copied out, in place in l.items. It returns the claimed slabs, with
// their pending counts set.
func (r *reflector[T]) claimSlabs(l listed[T]) []*slab {
	var claimed []*slab
	for _, pg := range l.pages {
		sl := pg.sl
		handed := 0
		for _, obj := range l.items[pg.from:pg.to] {
			if sl.contains(addrOf(obj)) {
				handed++
			}
		}
		switch {
		case handed == 0:
		case 2*handed < sl.cap:
			for i := pg.from; i < pg.to; i++ {
				if obj := l.items[i]; sl.contains(addrOf(obj)) {
					l.items[i] = copyItem[T](sl.elem, obj)
				}
			}
		default:
			sl.pending = handed
			claimed = append(claimed, sl)
		}
	}
	return claimed
}

// prepare turns a received object into the one stored: the transform,
// then (unless disabled) managedFields documents shared with equal ones.
func (r *reflector[T]) prepare(obj T) (T, error) {
	if r.transform != nil {
		t, err := r.transform(obj)
		if err != nil {
			return t, err
		}
		obj = t
	}
	if !r.opts.DisableManagedFieldsSharing {
		shareManagedFields(obj)
	}
	return obj, nil
}

// listItemsField caches, per list type, the index of its Items field.
var listItemsField sync.Map // reflect.Type -> int

// extractList returns the items of a list object as T. A list whose Items
// is []*X or []runtime.Object already holds separate allocations and is
// returned as is. For a list whose Items is []X (the usual shape):
//   - with zeroCopy (and T *X), the items are &Items[i], pointers into the
//     list's array, which is returned as sl, the slab the store must count
//     (see slab.go): without that bound, one surviving item would keep the
//     whole array, and everything its other items reference, alive;
//   - otherwise each item is copied into its own allocation. The copy is
//     shallow: an item's strings, maps and slices are shared with the
//     list, which is dropped.
func extractList[T Object](list runtime.Object, zeroCopy bool) (out []T, sl *slab, lm metav1.ListInterface, err error) {
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list result %T: %w", list, err)
	}
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, nil, nil, fmt.Errorf("list result %T is not a pointer to a struct", list)
	}
	sv := v.Elem()
	idx, ok := listItemsField.Load(sv.Type())
	if !ok {
		f, found := sv.Type().FieldByName("Items")
		if !found || len(f.Index) != 1 || f.Type.Kind() != reflect.Slice {
			return nil, nil, nil, fmt.Errorf("list result %T has no Items slice", list)
		}
		idx = f.Index[0]
		listItemsField.Store(sv.Type(), idx)
	}
	items := sv.Field(idx.(int))
	n := items.Len()
	out = make([]T, n)
	if n == 0 {
		return out, nil, listMeta, nil
	}
	elem := items.Type().Elem()
	if elem.Kind() == reflect.Struct {
		if reflect.PointerTo(elem) == reflect.TypeFor[T]() && zeroCopy && slabsUsable[T]() {
			sl = newSlab(items.Index(0).Addr().UnsafePointer(), elem, n, items.Cap())
			for i := range out {
				out[i] = slabItem[T](sl, i)
			}
			return out, sl, listMeta, nil
		}
		if _, ok := reflect.New(elem).Interface().(T); !ok {
			return nil, nil, nil, fmt.Errorf("%w: list %T holds %s, want %T", ErrWrongType, list, reflect.PointerTo(elem), *new(T))
		}
		for i := 0; i < n; i++ {
			p := reflect.New(elem)
			p.Elem().Set(items.Index(i))
			out[i] = p.Interface().(T)
		}
		return out, nil, listMeta, nil
	}
	for i := 0; i < n; i++ {
		t, ok := items.Index(i).Interface().(T)
		if !ok {
			return nil, nil, nil, fmt.Errorf("%w: list %T item %d is %T, want %T", ErrWrongType, list, i, items.Index(i).Interface(), *new(T))
		}
		out[i] = t
	}
	return out, nil, listMeta, nil
}
