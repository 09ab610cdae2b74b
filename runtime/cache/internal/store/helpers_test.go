package store

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// pod builds a real Pod with a namespace, name, resourceVersion and labels.
func pod(ns, name, rv string, labels ...string) *corev1.Pod {
	p := testutil.Pod(ns, name, testutil.RV(rv), testutil.Labels(labels...))
	p.Spec.NodeName = "node-" + name
	return p
}

func sortedKeys[T keys.Object](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = keys.StringOf(o)
	}
	sort.Strings(out)
	return out
}
func byNodeName(p *corev1.Pod) ([]string, error) {
	if p.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{p.Spec.NodeName}, nil
}

func byLabelApp(p *corev1.Pod) ([]string, error) {
	if v, ok := p.Labels["app"]; ok {
		return []string{v}, nil
	}
	return nil, nil
}
