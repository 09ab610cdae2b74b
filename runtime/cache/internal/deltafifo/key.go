package deltafifo

import (
	"fmt"
	"strings"
)

// Object is what the queue needs of an object: the namespace and name that
// make its key. Every runtime/cache Object satisfies it.
type Object interface {
	// GetNamespace returns the object's namespace, empty if it is
	// cluster-scoped.
	GetNamespace() string
	// GetName returns the object's name.
	GetName() string
}

// Key identifies an object by namespace and name (Namespace is empty for
// cluster-scoped objects). It is comparable and costs no allocation, unlike
// the "namespace/name" string it stands for (see String).
type Key struct {
	Namespace string
	Name      string
}

// KeyOf returns obj's key.
func KeyOf[T Object](obj T) Key {
	return Key{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// String returns the store key: "namespace/name", or "name" for a
// cluster-scoped object (runtime/cache's KeyFor).
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// ParseKey is the inverse of String: a store key without a slash is a
// cluster-scoped name; one with more than one slash, or ending in one, is an
// error that names it (runtime/cache's SplitKey).
func ParseKey(s string) (Key, error) {
	i := strings.IndexByte(s, '/')
	if i < 0 {
		return Key{Name: s}, nil
	}
	if strings.IndexByte(s[i+1:], '/') >= 0 || i == len(s)-1 {
		return Key{}, fmt.Errorf("invalid store key %q: want \"name\" or \"namespace/name\"", s)
	}
	return Key{Namespace: s[:i], Name: s[i+1:]}, nil
}
