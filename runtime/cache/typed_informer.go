package cache

import "fmt"

// TypedSharedIndexInformer is client-go v0.37's typed informer interface: a
// SharedIndexInformer that also takes TypedResourceEventHandlers (whose
// OnDelete gets a DeletedObject) and TypedIndexers. The informers of this
// package are typed throughout, so the Typed methods add client-go's names
// and the DeletedObject shape, not type safety; no cast happens anywhere.
// The informers NewSharedIndexInformer returns implement it.
type TypedSharedIndexInformer[T Object] interface {
	SharedIndexInformer[T]
	// AddTypedEventHandler registers handler: with no options as
	// AddEventHandler does, with one as AddEventHandlerWithOptions does.
	// More than one HandlerOptions is an error. The registration is
	// removed with RemoveEventHandler like any other.
	AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error)
	// AddTypedIndexers is AddIndexers.
	AddTypedIndexers(indexers TypedIndexers[T]) error
	// GetTypedIndexer is GetIndexer with client-go's typed method names.
	GetTypedIndexer() TypedIndexer[T]
}

// NewTypedSharedIndexInformer returns informer as a
// TypedSharedIndexInformer: informer itself when it already is one (as the
// informers of this package are), else a view that adds the Typed methods
// and forwards everything else to it.
func NewTypedSharedIndexInformer[T Object](informer SharedIndexInformer[T]) TypedSharedIndexInformer[T] {
	if t, ok := informer.(TypedSharedIndexInformer[T]); ok {
		return t
	}
	return typedSharedIndexInformer[T]{informer}
}

// typedSharedIndexInformer adds the Typed methods to a SharedIndexInformer.
type typedSharedIndexInformer[T Object] struct {
	SharedIndexInformer[T]
}

func (s typedSharedIndexInformer[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	return addTypedEventHandler(s.SharedIndexInformer, handler, options)
}

func (s typedSharedIndexInformer[T]) AddTypedIndexers(indexers TypedIndexers[T]) error {
	return s.AddIndexers(indexers)
}

func (s typedSharedIndexInformer[T]) GetTypedIndexer() TypedIndexer[T] {
	return NewTypedIndexer(s.GetIndexer())
}

// addTypedEventHandler is AddTypedEventHandler for any SharedInformer.
func addTypedEventHandler[T Object](inf SharedInformer[T], handler TypedResourceEventHandler[T], options []HandlerOptions) (ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, fmt.Errorf("informer %s: nil event handler", inf.Name())
	}
	var o HandlerOptions
	switch len(options) {
	case 0:
	case 1:
		o = options[0]
	default:
		return nil, fmt.Errorf("informer %s: at most one HandlerOptions may be passed, got %d", inf.Name(), len(options))
	}
	return inf.AddEventHandlerWithOptions(typedHandler[T]{handler}, o)
}
