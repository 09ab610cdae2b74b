package clientgo

import (
	"context"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// listerWatcher serves a client-go ListerWatcher, with or without context
// methods, as the runtime's ListerWatcher. It keeps telling the reflector
// whether the client can stream a watch-list.
type listerWatcher struct {
	lw toolscache.ListerWatcherWithContext
	// unsupported is the wrapped ListerWatcher's
	// IsWatchListSemanticsUnSupported answer (client-go's and client-gen's
	// fake clientsets say true), false when it has no such method.
	unsupported bool
}

func newListerWatcher(lw toolscache.ListerWatcher) *listerWatcher {
	u, ok := lw.(interface{ IsWatchListSemanticsUnSupported() bool })
	return &listerWatcher{
		lw:          toolscache.ToListerWatcherWithContext(lw),
		unsupported: ok && u.IsWatchListSemanticsUnSupported(),
	}
}

func (l *listerWatcher) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return l.lw.ListWithContext(ctx, opts)
}

func (l *listerWatcher) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.lw.WatchWithContext(ctx, opts)
}

// IsWatchListSemanticsUnSupported reports what the wrapped ListerWatcher
// said, so that the reflector lists and watches for clients that cannot
// stream a watch-list.
func (l *listerWatcher) IsWatchListSemanticsUnSupported() bool { return l.unsupported }

// itemListerWatcher is a listerWatcher over a ListerWatcher that also
// lists item by item (the runtime's cache.ItemLister of cache.Object, as
// one built on runtime/wire does): the reflector then files each item as it
// is decoded instead of extracting them from a list object.
type itemListerWatcher struct {
	*listerWatcher
	items cache.ItemLister[cache.Object]
}

func (l itemListerWatcher) ListItems(ctx context.Context, opts metav1.ListOptions, yield func(cache.Object) error) (*metav1.ListMeta, error) {
	return l.items.ListItems(ctx, opts, yield)
}

// runtimeListerWatcher is lw as the runtime's ListerWatcher, listing item
// by item when lw can.
func runtimeListerWatcher(lw toolscache.ListerWatcher) cache.ListerWatcher {
	l := newListerWatcher(lw)
	if items, ok := lw.(cache.ItemLister[cache.Object]); ok {
		return itemListerWatcher{listerWatcher: l, items: items}
	}
	return l
}

// expectedType is what every object an informer receives must be: the
// example object's Go type and, for unstructured objects that carry one, its
// group, version and kind.
type expectedType struct {
	typ reflect.Type
	// gvk is checked only for *unstructured.Unstructured (client-go's
	// reflector checks the same), and only when its Kind is set.
	gvk schema.GroupVersionKind
}

func newExpectedType(example runtime.Object) expectedType {
	e := expectedType{typ: reflect.TypeOf(example)}
	if u, ok := example.(*unstructured.Unstructured); ok {
		e.gvk = u.GroupVersionKind()
	}
	return e
}

// check returns an error naming obj and both types when obj is not of the
// expected type. It wraps cache.ErrWrongType.
func (e expectedType) check(obj cache.Object) error {
	if t := reflect.TypeOf(obj); t != e.typ {
		return fmt.Errorf("%w: %s is %s, want %s", cache.ErrWrongType, objectRef(obj), t, e.typ)
	}
	if e.gvk.Kind == "" {
		return nil
	}
	if got := obj.GetObjectKind().GroupVersionKind(); got.Kind != "" && got != e.gvk {
		return fmt.Errorf("%w: %s is %s, want %s", cache.ErrWrongType, objectRef(obj), got, e.gvk)
	}
	return nil
}

// String describes the expected type as client-go's reflector does.
func (e expectedType) String() string {
	if e.gvk.Kind != "" {
		return e.gvk.String()
	}
	if e.typ == nil {
		return "<nil>"
	}
	return e.typ.String()
}

func objectRef(obj cache.Object) string {
	if obj.GetNamespace() == "" {
		return fmt.Sprintf("object %q", obj.GetName())
	}
	return fmt.Sprintf("object %s/%s", obj.GetNamespace(), obj.GetName())
}
