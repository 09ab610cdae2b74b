package reflector

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// ItemLister is an optional interface of a ListerWatcher that decodes list
// responses item by item; runtime/cache exports it as cache.ItemLister,
// which documents the contract. When the ListerWatcher has it, every list
// goes through ListItems instead of List.
type ItemLister[T keys.Object] interface {
	// ListItems lists one page with opts, calling yield with each item,
	// and returns the page's ListMeta.
	ListItems(ctx context.Context, opts metav1.ListOptions, yield func(T) error) (*metav1.ListMeta, error)
}

// listPage lists one page with opts and appends its items to dst, each
// passed through keep (see extractList): item by item when the
// ListerWatcher is an ItemLister[T], else from the list object List
// returns. list is the object that carries the page's ShardInfo.
func (r *Reflector[T]) listPage(ctx context.Context, opts metav1.ListOptions, dst []T, keep func(T) (T, bool, error)) (items []T, list any, lm metav1.ListInterface, err error) {
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
