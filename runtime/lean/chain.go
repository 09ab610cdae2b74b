package lean

import "github.com/typedinformer/typedinformer/runtime/cache"

// Chain returns a transform that applies fs in order, each to the result
// of the previous one, stopping at the first error. Nil entries are
// skipped; with no non-nil entry it returns nil (no transform).
func Chain[T cache.Object](fs ...cache.TransformFunc[T]) cache.TransformFunc[T] {
	var live []cache.TransformFunc[T]
	for _, f := range fs {
		if f != nil {
			live = append(live, f)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	return func(obj T) (T, error) {
		for _, f := range live {
			var err error
			if obj, err = f(obj); err != nil {
				var zero T
				return zero, err
			}
		}
		return obj, nil
	}
}
