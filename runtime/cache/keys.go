package cache

import (
	"fmt"
	"strings"
)

// joinKey joins a namespace and a name into a store key (ObjectName's
// String without building an ObjectName).
func joinKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// splitKey splits a store key strictly: a key with more than one slash, or
// ending in one, is an error that names the key.
func splitKey(key string) (namespace, name string, err error) {
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

func (k objKey) String() string { return joinKey(k.namespace, k.name) }

func parseKey(key string) (objKey, error) {
	ns, name, err := splitKey(key)
	if err != nil {
		return objKey{}, err
	}
	return objKey{namespace: ns, name: name}, nil
}
