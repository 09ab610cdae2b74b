package cache

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Object is the constraint every informer type satisfies: a pointer to an
// API type that is both a runtime.Object and carries ObjectMeta, such as
// *corev1.Pod or a CRD's *v1alpha1.Foo.
//
// The runtime never mutates an Object it was handed; handlers and lister
// callers must treat objects read from a cache as read-only and DeepCopy
// before changing them.
type Object interface {
	runtime.Object
	metav1.Object
}

// keyOf returns the store key of a typed object without going through
// meta.Accessor.
func keyOf[T Object](obj T) string {
	return joinKey(obj.GetNamespace(), obj.GetName())
}
