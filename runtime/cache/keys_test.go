package cache

import (
	"testing"

	corev1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestKeysAreNamespaceSlashNameOrName(t *testing.T) {
	cases := []struct {
		ns, name, want string
	}{
		{"default", "a", "default/a"},
		{"", "node-1", "node-1"},
	}
	for _, c := range cases {
		obj := &corev1.PartialObjectMetadata{ObjectMeta: corev1.ObjectMeta{Namespace: c.ns, Name: c.name}}
		got, err := MetaNamespaceKeyFunc(obj)
		if err != nil || got != c.want {
			t.Fatalf("MetaNamespaceKeyFunc(%s/%s) = %q, %v; want %q", c.ns, c.name, got, err, c.want)
		}
		ns, n, err := splitKey(got)
		if err != nil || ns != c.ns || n != c.name {
			t.Fatalf("splitKey(%q) = %q, %q, %v", got, ns, n, err)
		}
	}
	for _, bad := range []string{"a/b/c", "ns/"} {
		if _, _, err := splitKey(bad); err == nil {
			t.Fatalf("splitKey(%q) succeeded, want error", bad)
		}
	}
}
