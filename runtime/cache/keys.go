package cache

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
)

// ObjectKey returns the store key of obj: "namespace/name" for namespaced
// objects and "name" for cluster-scoped ones. It fails only when obj does not
// carry object metadata.
func ObjectKey(obj any) (string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", fmt.Errorf("object key: %w", err)
	}
	return KeyFor(m.GetNamespace(), m.GetName()), nil
}

// KeyFor joins a namespace and a name into a store key.
func KeyFor(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// SplitKey splits a store key into its namespace and name. A key without a
// slash is a cluster-scoped name; a key with more than one slash is an error
// that names the key.
func SplitKey(key string) (namespace, name string, err error) {
	i := strings.IndexByte(key, '/')
	if i < 0 {
		return "", key, nil
	}
	if strings.IndexByte(key[i+1:], '/') >= 0 || i == len(key)-1 {
		return "", "", fmt.Errorf("invalid store key %q: want \"name\" or \"namespace/name\"", key)
	}
	return key[:i], key[i+1:], nil
}

// objKey is the internal form of a store key. It is built from an object's
// namespace and name without allocating, unlike the "namespace/name" string.
type objKey struct {
	namespace, name string
}

func keyOfObj[T Object](obj T) objKey {
	return objKey{namespace: obj.GetNamespace(), name: obj.GetName()}
}

func (k objKey) String() string { return KeyFor(k.namespace, k.name) }

func parseKey(key string) (objKey, error) {
	ns, name, err := SplitKey(key)
	if err != nil {
		return objKey{}, err
	}
	return objKey{namespace: ns, name: name}, nil
}
