package informers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// typedTransform adapts a factory-wide transform to one informer's type. A
// transform that returns another Go type is an error for that object, which
// the informer reports instead of storing it.
func typedTransform[T cache.Object](transform func(runtime.Object) (runtime.Object, error)) cache.TransformFunc[T] {
	return func(obj T) (T, error) {
		var zero T
		out, err := transform(obj)
		if err != nil {
			return zero, err
		}
		typed, ok := out.(T)
		if !ok {
			return zero, fmt.Errorf("informers: transform turned %T %s/%s into %T", obj, obj.GetNamespace(), obj.GetName(), out)
		}
		return typed, nil
	}
}
