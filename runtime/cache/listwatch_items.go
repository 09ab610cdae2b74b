package cache

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ItemLister is an optional interface of a ListerWatcher that decodes list
// responses item by item (runtime/wire's ListWatch is one). When the
// reflector's ListerWatcher has it, every list goes through ListItems
// instead of List: no list object is built and no decoded Items array is
// kept while the store is filled, each item being a separate object from
// the start. Any other ListerWatcher is listed through List.
//
// ListItems lists one page with opts and calls yield with each item, in the
// response's order, handing over ownership of it; it returns the page's
// ListMeta (resourceVersion, continue token) after the last item. It must
// return the first error of yield unchanged and never call yield after it
// returned, and return the server's error (a 410 Gone included) as List
// would.
type ItemLister[T Object] interface {
	// ListItems lists one page with opts, calling yield with each item,
	// and returns the page's ListMeta; see ItemLister.
	ListItems(ctx context.Context, opts metav1.ListOptions, yield func(T) error) (*metav1.ListMeta, error)
}

// listPage lists one page with opts and appends its items to dst, each
// passed through keep (see extractList): item by item when the
// ListerWatcher is an ItemLister[T], else from the list object List
// returns. list is the object that carries the page's ShardInfo.
func (r *reflector[T]) listPage(ctx context.Context, opts metav1.ListOptions, dst []T, keep func(T) (T, bool, error)) (items []T, list any, lm metav1.ListInterface, err error) {
	il, ok := r.lw.(ItemLister[T])
	if !ok {
		obj, err := r.lw.List(ctx, opts)
		if err != nil {
			return nil, nil, nil, err
		}
		items, lm, err := extractList(obj, &r.items, dst, keep)
		return items, obj, lm, err
	}
	meta, err := il.ListItems(ctx, opts, func(item T) error {
		t, ok, err := keep(item)
		if ok {
			dst = append(dst, t)
		}
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return dst, meta, meta, nil
}
