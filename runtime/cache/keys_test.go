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
		name, err := ParseObjectName(got)
		if err != nil || name.Namespace != c.ns || name.Name != c.name {
			t.Fatalf("ParseObjectName(%q) = %+v, %v", got, name, err)
		}
	}
}
