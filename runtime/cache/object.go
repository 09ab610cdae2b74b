package cache

import "github.com/typedinformer/typedinformer/runtime/internal/keys"

// Object is the constraint every informer type satisfies: a pointer to an
// API type that is both a runtime.Object and a metav1.Object (carries
// ObjectMeta), such as *corev1.Pod or a CRD's *v1alpha1.Foo. It is the one
// constraint of every typed store, queue and transform of the runtime.
//
// The runtime never mutates an Object it was handed; handlers and lister
// callers must treat objects read from a cache as read-only and DeepCopy
// before changing them.
type Object = keys.Object
