package cache

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// pod builds a real Pod with a namespace, name, resourceVersion and labels.
func pod(ns, name, rv string, labels ...string) *corev1.Pod {
	p := testutil.Pod(ns, name, testutil.RV(rv), testutil.Labels(labels...))
	p.Spec.NodeName = "node-" + name
	return p
}

func node(name, rv string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}}
}

func sortedKeys[T Object](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = keys.StringOf(o)
	}
	sort.Strings(out)
	return out
}
