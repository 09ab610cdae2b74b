package reflector

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// list fetches the full state, page by page, and replaces the sink's content.
func (r *Reflector[T]) list(ctx context.Context) error {
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
	if r.selectionChanged() {
		// Some pages may have been listed with the new value.
		return errSelectionChanged
	}
	// Cleared before the store can apply the list: a reader that sees the
	// informer synced sees no older error. A failing Replace is reported.
	r.clearError()
	if err := r.sink.ReplaceInScope(items, listRV, r.replaceScope()); err != nil {
		return fmt.Errorf("list %s: storing the list: %w", r.name, err)
	}
	r.shardListed(ctx)
	r.mu.Lock()
	r.lastSyncRV = listRV
	r.rvUnavailable = false
	r.mu.Unlock()
	r.selectionStored()
	r.noteList(relist, listRV)
	return nil
}

// listPages lists at rv, following continue tokens. A continue token that
// expires mid-way restarts as one unpaginated consistent list. Each item is
// filtered (when sharded) and prepared as it is taken out of its page, while
// its copy is still in the CPU's cache: a second pass over a large list
// after the copies would fetch every object from memory again.
func (r *Reflector[T]) listPages(ctx context.Context, rv string) ([]T, string, error) {
	opts := metav1.ListOptions{ResourceVersion: rv, Limit: r.opts.PageSize}
	var all []T
	for page := 0; ; page++ {
		received := 0
		items, obj, listMeta, err := r.listPage(ctx, r.callOpts(opts), all, func(item T) (T, bool, error) {
			received++
			if !r.inShard(item) {
				return item, false, nil
			}
			t, err := r.prepare(item)
			if err != nil {
				return t, false, fmt.Errorf("transforming %s: %w", keys.StringOf(item), err)
			}
			return t, true, nil
		})
		if err != nil {
			if page > 0 && isExpired(err) {
				opts = metav1.ListOptions{ResourceVersion: ""}
				all, page = all[:0], -1
				continue
			}
			return nil, "", err
		}
		if r.shard != nil {
			r.checkShardInfo(page, obj, listMeta)
			r.countShard(page, received, received-(len(items)-len(all)))
		}
		all = items
		cont := listMeta.GetContinue()
		if cont == "" {
			return all, listMeta.GetResourceVersion(), nil
		}
		opts = metav1.ListOptions{Continue: cont, Limit: r.opts.PageSize}
	}
}

// prepare turns a received object into the one stored: the transform,
// then managedFields documents shared with equal ones of the objects this
// reflector stored before, or, with sharing disabled, made the object's
// own.
func (r *Reflector[T]) prepare(obj T) (T, error) {
	if r.transform != nil {
		t, err := r.transform(obj)
		if err != nil {
			return t, err
		}
		obj = t
	}
	if r.opts.DisableManagedFieldsSharing {
		ownManagedFields(obj)
	} else {
		r.fields.shareManagedFields(obj)
	}
	return obj, nil
}

// itemsField remembers the index of the Items field of one list type: a
// reflector lists one type, so it keeps one (see reflector.items). The
// zero value remembers nothing; it is not safe for concurrent use.
type itemsField struct {
	typ reflect.Type
	idx int
}

// of returns the index of the Items field of the list struct type t.
func (f *itemsField) of(t reflect.Type) (int, bool) {
	if f.typ == t {
		return f.idx, true
	}
	sf, found := t.FieldByName("Items")
	if !found || len(sf.Index) != 1 || sf.Type.Kind() != reflect.Slice {
		return 0, false
	}
	f.typ, f.idx = t, sf.Index[0]
	return f.idx, true
}

// extractList appends the items of a list object as T to dst, each passed
// through keep first: keep returns the object to append in its place and
// whether to append it at all, or an error that fails the extraction. For a
// list whose Items is []X (the usual shape), each item is copied into its
// own allocation before keep sees it: handing out &Items[i] would let one
// surviving item keep the whole decoded backing array, and everything its
// other items reference, alive for as long as the store holds it. The copy
// is shallow: an item's strings, maps and slices are shared with the list,
// which is dropped. A list whose Items is []*X or []runtime.Object already
// holds separate allocations, which are passed on as they are. field
// remembers where the list type's Items field is.
func extractList[T keys.Object](list runtime.Object, field *itemsField, dst []T, keep func(T) (T, bool, error)) ([]T, metav1.ListInterface, error) {
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, nil, fmt.Errorf("list result %T: %w", list, err)
	}
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("list result %T is not a pointer to a struct", list)
	}
	sv := v.Elem()
	idx, ok := field.of(sv.Type())
	if !ok {
		return nil, nil, fmt.Errorf("list result %T has no Items slice", list)
	}
	items := sv.Field(idx)
	n := items.Len()
	if dst == nil {
		dst = make([]T, 0, n)
	} else {
		dst = slices.Grow(dst, n)
	}
	if n == 0 {
		return dst, listMeta, nil
	}
	add := func(t T) error {
		t, ok, err := keep(t)
		if ok {
			dst = append(dst, t)
		}
		return err
	}
	elem := items.Type().Elem()
	if elem.Kind() == reflect.Struct {
		if _, ok := reflect.New(elem).Interface().(T); !ok {
			return nil, nil, fmt.Errorf("%w: list %T holds %s, want %T", ErrWrongType, list, reflect.PointerTo(elem), *new(T))
		}
		for i := 0; i < n; i++ {
			p := reflect.New(elem)
			p.Elem().Set(items.Index(i))
			if err := add(p.Interface().(T)); err != nil {
				return nil, nil, err
			}
		}
		return dst, listMeta, nil
	}
	for i := 0; i < n; i++ {
		t, ok := items.Index(i).Interface().(T)
		if !ok {
			return nil, nil, fmt.Errorf("%w: list %T item %d is %T, want %T", ErrWrongType, list, i, items.Index(i).Interface(), *new(T))
		}
		if err := add(t); err != nil {
			return nil, nil, err
		}
	}
	return dst, listMeta, nil
}
