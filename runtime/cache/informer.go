package cache

// placeholder until the implementation lands in this package.
func newSharedIndexInformer[T Object](lw ListerWatcher, opts SharedIndexInformerOptions[T]) SharedIndexInformer[T] {
	panic("not implemented yet")
}
