package cache

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// Object is the constraint every informer type satisfies: a pointer to an
// API type that is both a runtime.Object and a metav1.Object (carries
// ObjectMeta), such as *corev1.Pod or a CRD's *v1alpha1.Foo. It is the one
// constraint of every typed store, queue and transform of the runtime.
//
// The runtime never mutates an Object it was handed; handlers and lister
// callers must treat objects read from a cache as read-only and DeepCopy
// before changing them.
type Object = keys.Object

// This file gives client-go's object-name and key helpers (k8s.io/client-go/
// tools/cache, v0.37) their client-go names and behaviour, so that a
// controller's key handling compiles unchanged after an import swap. They
// take any where client-go takes interface{}: they are called with objects
// of every type, as client-go's are.
//
// Tombstones: client-go hands an untyped delete handler a
// DeletedFinalStateUnknown wrapper when the informer missed the delete. Here
// a ResourceEventHandler receives the last known object itself (with
// finalStateUnknown=true), and a TypedResourceEventHandler a DeletedObject
// whose GetKey and GetObjectName replace these functions. The
// DeletionHandling* functions also accept a DeletedFinalStateUnknown (value
// or pointer), as client-go's do.

// ObjectName is an object's namespace and name, the structured form of a
// store key. It is comparable, so it can be a workqueue item.
type ObjectName struct {
	Namespace string
	Name      string
}

// NewObjectName returns the ObjectName of namespace and name.
func NewObjectName(namespace, name string) ObjectName {
	return ObjectName{Namespace: namespace, Name: name}
}

// Parts returns the namespace and the name.
func (n ObjectName) Parts() (namespace, name string) {
	return n.Namespace, n.Name
}

// String returns the store key: "namespace/name", or "name" when the
// namespace is empty.
func (n ObjectName) String() string {
	return keys.Join(n.Namespace, n.Name)
}

// AsNamespacedName returns n as a types.NamespacedName.
func (n ObjectName) AsNamespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
}

// NamespacedNameAsObjectName returns nn as an ObjectName.
func NamespacedNameAsObjectName(nn types.NamespacedName) ObjectName {
	return ObjectName{Namespace: nn.Namespace, Name: nn.Name}
}

// ParseObjectName parses a store key as SplitMetaNamespaceKey does.
func ParseObjectName(key string) (ObjectName, error) {
	ns, name, err := SplitMetaNamespaceKey(key)
	return ObjectName{Namespace: ns, Name: name}, err
}

// ObjectToName returns the ObjectName of obj, or an error when obj carries
// no object metadata.
func ObjectToName(obj any) (ObjectName, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ObjectName{}, fmt.Errorf("object has no metadata: %w", err)
	}
	return MetaObjectToName(m), nil
}

// MetaObjectToName returns the ObjectName of obj.
func MetaObjectToName(obj metav1.Object) ObjectName {
	return ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// ExplicitKey is a key passed where an object is expected: the key
// functions return it unchanged.
type ExplicitKey string

// MetaNamespaceKeyFunc returns obj's store key ("namespace/name" or
// "name"). An ExplicitKey is returned as is; anything else without object
// metadata is an error.
func MetaNamespaceKeyFunc(obj any) (string, error) {
	if k, ok := obj.(ExplicitKey); ok {
		return string(k), nil
	}
	n, err := ObjectToName(obj)
	if err != nil {
		return "", err
	}
	return n.String(), nil
}

// DeletionHandlingMetaNamespaceKeyFunc is MetaNamespaceKeyFunc that returns
// a DeletedFinalStateUnknown's key.
func DeletionHandlingMetaNamespaceKeyFunc(obj any) (string, error) {
	if d, ok := tombstone(obj); ok {
		return d.Key, nil
	}
	return MetaNamespaceKeyFunc(obj)
}

// DeletionHandlingObjectToName is ObjectToName that parses a
// DeletedFinalStateUnknown's key, and an ExplicitKey, as a key.
func DeletionHandlingObjectToName(obj any) (ObjectName, error) {
	if d, ok := tombstone(obj); ok {
		return ParseObjectName(d.Key)
	}
	if k, ok := obj.(ExplicitKey); ok {
		return ParseObjectName(string(k))
	}
	return ObjectToName(obj)
}

// tombstone returns obj as a DeletedFinalStateUnknown if it is one.
func tombstone(obj any) (DeletedFinalStateUnknown, bool) {
	switch d := obj.(type) {
	case DeletedFinalStateUnknown:
		return d, true
	case *DeletedFinalStateUnknown:
		if d != nil {
			return *d, true
		}
	}
	return DeletedFinalStateUnknown{}, false
}

// SplitMetaNamespaceKey splits a store key with client-go's rules: "name"
// is a cluster-scoped name, "namespace/name" splits at the slash (either
// part may be empty), and a key with more than one slash is an error naming
// the key.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	switch strings.Count(key, "/") {
	case 0:
		return "", key, nil
	case 1:
		i := strings.IndexByte(key, '/')
		return key[:i], key[i+1:], nil
	}
	return "", "", fmt.Errorf("unexpected key format: %q, want \"name\" or \"namespace/name\"", key)
}

// MetaNamespaceIndexFunc indexes an object by its namespace; every Indexer
// has it as NamespaceIndex.
func MetaNamespaceIndexFunc[T Object](obj T) ([]string, error) {
	return []string{obj.GetNamespace()}, nil
}
