package testutil

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Option sets one field of an object's metadata while a builder makes it.
type Option func(*metav1.ObjectMeta)

// Labels sets the labels from key, value pairs; an odd last key is ignored.
// Without pairs it leaves the labels nil.
func Labels(kv ...string) Option {
	return func(m *metav1.ObjectMeta) {
		if len(kv) < 2 {
			return
		}
		if m.Labels == nil {
			m.Labels = make(map[string]string, len(kv)/2)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m.Labels[kv[i]] = kv[i+1]
		}
	}
}

// RV sets the resourceVersion.
func RV(rv string) Option {
	return func(m *metav1.ObjectMeta) { m.ResourceVersion = rv }
}

// Owners sets the owner references.
func Owners(refs ...metav1.OwnerReference) Option {
	return func(m *metav1.ObjectMeta) { m.OwnerReferences = refs }
}

func meta(ns, name string, opts []Option) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Namespace: ns, Name: name}
	for _, o := range opts {
		o(&m)
	}
	return m
}

// Pod returns a new Pod named ns/name with opts applied to its metadata and
// nothing else set. The caller owns it.
func Pod(ns, name string, opts ...Option) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: meta(ns, name, opts)}
}

// ConfigMap returns a new ConfigMap named ns/name with opts applied to its
// metadata and nothing else set. The caller owns it.
func ConfigMap(ns, name string, opts ...Option) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: meta(ns, name, opts)}
}

// Writer is the part of a fake server the Must helpers drive: it creates,
// updates and deletes objects of type T and returns what it stored.
type Writer[T Object] interface {
	// Create stores a new object and returns the stored copy.
	Create(obj T) (T, error)
	// Update replaces a stored object and returns the stored copy.
	Update(obj T) (T, error)
	// Delete removes the object namespace/name.
	Delete(namespace, name string) error
}

// MustCreate creates obj on w and returns what w stored, failing t (with
// the object's key) on an error.
func MustCreate[T Object](t testing.TB, w Writer[T], obj T) T {
	t.Helper()
	out, err := w.Create(obj)
	if err != nil {
		t.Fatalf("create %s: %v", Key(obj), err)
	}
	return out
}

// MustUpdate updates obj on w and returns what w stored, failing t (with
// the object's key) on an error.
func MustUpdate[T Object](t testing.TB, w Writer[T], obj T) T {
	t.Helper()
	out, err := w.Update(obj)
	if err != nil {
		t.Fatalf("update %s: %v", Key(obj), err)
	}
	return out
}

// MustDelete deletes ns/name on w, failing t on an error.
func MustDelete[T Object](t testing.TB, w Writer[T], ns, name string) {
	t.Helper()
	if err := w.Delete(ns, name); err != nil {
		t.Fatalf("delete %s: %v", keyFor(ns, name), err)
	}
}
