package lean

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// LastAppliedAnnotation is the annotation client-side kubectl apply keeps a
// JSON copy of the applied object in.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// StripManagedFields returns a transform that drops metadata.managedFields.
// See the package documentation for what it breaks.
func StripManagedFields[T cache.Object]() cache.TransformFunc[T] {
	return func(obj T) (T, error) {
		stripManagedFields(obj)
		return obj, nil
	}
}

// StripLastApplied returns a transform that drops the
// kubectl.kubernetes.io/last-applied-configuration annotation. An Update
// sent from a cached copy then removes it on the server: see the package
// documentation.
func StripLastApplied[T cache.Object]() cache.TransformFunc[T] {
	return func(obj T) (T, error) {
		stripLastApplied(obj)
		return obj, nil
	}
}

func stripManagedFields(obj metav1.Object) {
	if obj.GetManagedFields() != nil {
		obj.SetManagedFields(nil)
	}
}

func stripLastApplied(obj metav1.Object) {
	a := obj.GetAnnotations()
	if _, ok := a[LastAppliedAnnotation]; !ok {
		return
	}
	delete(a, LastAppliedAnnotation)
	if len(a) == 0 {
		obj.SetAnnotations(nil)
	}
}
