package clientgo

import (
	"fmt"
	"reflect"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// NewTypedSharedIndexInformer returns client-go v0.37's typed view of
// informer, as toolscache.NewTypedSharedIndexInformer does. For an informer
// of this package, typed handlers are registered with the runtime's typed
// handler API directly (no untyped handler and type switch in between);
// for any other informer it is client-go's view.
func NewTypedSharedIndexInformer[T toolscache.Object](informer toolscache.SharedIndexInformer) toolscache.TypedSharedIndexInformer[T] {
	view := toolscache.NewTypedSharedIndexInformer[T](informer)
	s, ok := informer.(*sharedIndexInformer)
	if !ok {
		return view
	}
	return &typedInformer[T]{TypedSharedIndexInformer: view, s: s}
}

type typedInformer[T toolscache.Object] struct {
	toolscache.TypedSharedIndexInformer[T]
	s *sharedIndexInformer
}

// AddTypedEventHandler registers handler, with at most one HandlerOptions.
// T must be the informer's object type (or an interface it implements).
func (t *typedInformer[T]) AddTypedEventHandler(h toolscache.TypedResourceEventHandler[T], options ...toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	s := t.s
	if s.initErr != nil {
		return nil, fmt.Errorf("handler not added: %w", s.initErr)
	}
	if h == nil {
		return nil, fmt.Errorf("informer %s: nil event handler", s.name)
	}
	if want := reflect.TypeFor[T](); s.expected.typ != nil && !s.expected.typ.AssignableTo(want) {
		return nil, fmt.Errorf("informer %s: typed handler of %s, but the informer serves %s", s.name, want, s.expected.typ)
	}
	switch len(options) {
	case 0:
	case 1:
	default:
		return nil, fmt.Errorf("at most one HandlerOptions may be passed, got %d", len(options))
	}
	var opts toolscache.HandlerOptions
	if len(options) == 1 {
		opts = options[0]
	}
	resync := s.handlerResync(opts)
	c := newCalls()
	reg, err := s.inner.AddTypedEventHandler(typedHandler[T]{h, c}, cache.HandlerOptions{Logger: opts.Logger, ResyncPeriod: &resync})
	if err != nil {
		return nil, err
	}
	return s.register(reg, c), nil
}

// typedHandler delivers the runtime's typed notifications to a client-go
// typed handler.
type typedHandler[T toolscache.Object] struct {
	h     toolscache.TypedResourceEventHandler[T]
	calls *calls
}

func (a typedHandler[T]) OnAdd(obj cache.Object, isInInitialList bool) {
	if !a.calls.enter() {
		return
	}
	defer a.calls.exit()
	a.h.OnAdd(any(obj).(T), isInInitialList)
}

func (a typedHandler[T]) OnUpdate(oldObj, newObj cache.Object) {
	if !a.calls.enter() {
		return
	}
	defer a.calls.exit()
	a.h.OnUpdate(any(oldObj).(T), any(newObj).(T))
}

func (a typedHandler[T]) OnDelete(d cache.DeletedObject[cache.Object]) {
	if !a.calls.enter() {
		return
	}
	defer a.calls.exit()
	out := toolscache.DeletedObject[T]{}
	if d.OptionalObj != nil {
		out.OptionalObj = any(d.OptionalObj).(T)
	}
	if d.FinalStateUnknown != nil {
		out.FinalStateUnknown = &toolscache.DeletedFinalStateUnknown{Key: d.FinalStateUnknown.Key, Obj: d.FinalStateUnknown.Obj}
	}
	a.h.OnDelete(out)
}
