package keys

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Object is the constraint every informer type satisfies: a pointer to an
// API type that is both a runtime.Object and carries ObjectMeta, such as
// *corev1.Pod or a CRD's *v1alpha1.Foo. runtime/cache exports it as
// cache.Object.
//
// The runtime never mutates an Object it was handed; handlers and lister
// callers must treat objects read from a cache as read-only and DeepCopy
// before changing them.
type Object interface {
	runtime.Object
	metav1.Object
}

// Key identifies an object by namespace and name (Namespace is empty for a
// cluster-scoped object). It is comparable and built without allocating,
// unlike the "namespace/name" string it stands for (see String).
type Key struct {
	Namespace string
	Name      string
}

// Of returns obj's key.
func Of[T Object](obj T) Key {
	return Key{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// String returns the store key: "namespace/name", or "name" for a
// cluster-scoped object.
func (k Key) String() string { return Join(k.Namespace, k.Name) }

// Join returns the store key of namespace and name without building a Key.
func Join(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// StringOf returns obj's store key.
func StringOf[T Object](obj T) string { return Join(obj.GetNamespace(), obj.GetName()) }

// Parse is the inverse of String, and the strict parser of store keys: a key
// without a slash is a cluster-scoped name; one with more than one slash, or
// ending in one, is an error that names it.
func Parse(s string) (Key, error) {
	i := strings.IndexByte(s, '/')
	if i < 0 {
		return Key{Name: s}, nil
	}
	if strings.IndexByte(s[i+1:], '/') >= 0 || i == len(s)-1 {
		return Key{}, fmt.Errorf("invalid store key %q: want \"name\" or \"namespace/name\"", s)
	}
	return Key{Namespace: s[:i], Name: s[i+1:]}, nil
}
