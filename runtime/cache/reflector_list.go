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

// list fetches the full state, page by page, and replaces the sink's content.
func (r *reflector[T]) list(ctx context.Context) error {
	relist := r.isRelist()
	rv := r.relistResourceVersion()
	items, listRV, err := r.listPages(ctx, rv)
	if err != nil && isExpired(err) && rv != "" {
		relist = true
		// The RV we asked for is gone; ask for the current state.
		r.mu.Lock()
		r.rvUnavailable = true
		r.mu.Unlock()
		items, listRV, err = r.listPages(ctx, "")
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", r.name, err)
	}
	var inScope func(T) bool
	if r.shard != nil {
		inScope = r.inShard
	}
	if err := r.sink.ReplaceInScope(items, listRV, inScope); err != nil {
		return fmt.Errorf("list %s: storing the list: %w", r.name, err)
	}
	r.shardListed(ctx)
	r.mu.Lock()
	r.lastSyncRV = listRV
	r.rvUnavailable = false
	r.lastErr = nil
	r.mu.Unlock()
	r.noteList(relist, listRV)
	return nil
}

// listPages lists at rv, following continue tokens. A continue token that
// expires mid-way restarts as one unpaginated consistent list.
func (r *reflector[T]) listPages(ctx context.Context, rv string) ([]T, string, error) {
	opts := metav1.ListOptions{ResourceVersion: rv, Limit: r.opts.PageSize}
	var all []T
	for page := 0; ; page++ {
		obj, err := r.lw.List(ctx, r.withShard(opts))
		if err != nil {
			if page > 0 && isExpired(err) {
				opts = metav1.ListOptions{ResourceVersion: ""}
				all, page = all[:0], -1
				continue
			}
			return nil, "", err
		}
		items, listMeta, err := extractList[T](obj)
		if err != nil {
			return nil, "", err
		}
		if r.shard != nil {
			r.checkShardInfo(page, obj, listMeta)
			items = r.filterShard(page, items)
		}
		if all == nil {
			all = items
		} else {
			all = append(all, items...)
		}
		cont := listMeta.GetContinue()
		if cont == "" {
			return r.transformAll(all, listMeta.GetResourceVersion())
		}
		opts = metav1.ListOptions{Continue: cont, Limit: r.opts.PageSize}
	}
}

func (r *reflector[T]) transformAll(items []T, rv string) ([]T, string, error) {
	for i, obj := range items {
		t, err := r.prepare(obj)
		if err != nil {
			return nil, "", fmt.Errorf("transforming %s: %w", keyOf(obj), err)
		}
		items[i] = t
	}
	return items, rv, nil
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

// extractList returns the items of a list object as T. For a list whose
// Items is []X (the usual shape), each item is copied into its own
// allocation: handing out &Items[i] would let one surviving item keep the
// whole decoded backing array, and everything its other items reference,
// alive for as long as the store holds it. The copy is shallow: an item's
// strings, maps and slices are shared with the list, which is dropped.
// A list whose Items is []*X or []runtime.Object already holds separate
// allocations and is returned as is.
func extractList[T Object](list runtime.Object) ([]T, metav1.ListInterface, error) {
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, nil, fmt.Errorf("list result %T: %w", list, err)
	}
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("list result %T is not a pointer to a struct", list)
	}
	sv := v.Elem()
	idx, ok := listItemsField.Load(sv.Type())
	if !ok {
		f, found := sv.Type().FieldByName("Items")
		if !found || len(f.Index) != 1 || f.Type.Kind() != reflect.Slice {
			return nil, nil, fmt.Errorf("list result %T has no Items slice", list)
		}
		idx = f.Index[0]
		listItemsField.Store(sv.Type(), idx)
	}
	items := sv.Field(idx.(int))
	n := items.Len()
	out := make([]T, n)
	if n == 0 {
		return out, listMeta, nil
	}
	elem := items.Type().Elem()
	if elem.Kind() == reflect.Struct {
		if _, ok := reflect.New(elem).Interface().(T); !ok {
			return nil, nil, fmt.Errorf("%w: list %T holds %s, want %T", ErrWrongType, list, reflect.PointerTo(elem), *new(T))
		}
		for i := 0; i < n; i++ {
			p := reflect.New(elem)
			p.Elem().Set(items.Index(i))
			out[i] = p.Interface().(T)
		}
		return out, listMeta, nil
	}
	for i := 0; i < n; i++ {
		t, ok := items.Index(i).Interface().(T)
		if !ok {
			return nil, nil, fmt.Errorf("%w: list %T item %d is %T, want %T", ErrWrongType, list, i, items.Index(i).Interface(), *new(T))
		}
		out[i] = t
	}
	return out, listMeta, nil
}
