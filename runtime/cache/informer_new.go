package cache

import "time"

// NewSharedIndexInformer returns an informer for objects of type T served by
// lw, with a default handler resync period and extra index functions (the
// NamespaceIndex is always present).
func NewSharedIndexInformer[T Object](lw ListerWatcher, resyncPeriod time.Duration, indexers Indexers[T]) SharedIndexInformer[T] {
	return NewSharedIndexInformerWithOptions[T](lw, SharedIndexInformerOptions[T]{ResyncPeriod: resyncPeriod, Indexers: indexers})
}

// NewSharedIndexInformerWithOptions returns an informer for objects of type T
// served by lw, configured by opts.
func NewSharedIndexInformerWithOptions[T Object](lw ListerWatcher, opts SharedIndexInformerOptions[T]) SharedIndexInformer[T] {
	return newSharedIndexInformer[T](lw, opts)
}
