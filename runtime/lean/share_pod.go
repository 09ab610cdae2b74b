package lean

import (
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// ShareMaps returns a transform that makes objects with equal labels (and
// equal annotations) use one shared map, interning keys and values through
// in (nil: an Interner of the transform's own). Pods of one ReplicaSet or
// Job typically carry identical label maps; a small map costs a few
// hundred bytes.
//
// Breaks: objects share those maps. Mutating a cached object was always
// forbidden (copy first); with sharing, a handler that does it anyway
// changes every object sharing the map.
func ShareMaps[T cache.Object](in *Interner) cache.TransformFunc[T] {
	if in == nil {
		in = NewInterner(0, 0)
	}
	return func(obj T) (T, error) {
		shareMeta(in, obj)
		return obj, nil
	}
}

func shareMeta(in *Interner, obj metav1.Object) {
	if l := obj.GetLabels(); len(l) > 0 {
		obj.SetLabels(sharedMap(in, l))
	}
	if a := obj.GetAnnotations(); len(a) > 0 {
		obj.SetAnnotations(sharedMap(in, a))
	}
}

// SharePodSpec returns a transform that makes Pods whose containers, init
// containers, volumes, tolerations or node selector equal an earlier Pod's
// use that Pod's (Pods of one template have identical ones: often more than
// half of a Pod's memory once managedFields are gone), plus ShareMaps.
// Equality is checked in full (reflect.DeepEqual) before sharing. Costs a
// comparison per Pod and event; breaks what ShareMaps breaks.
func SharePodSpec(in *Interner) cache.TransformFunc[*corev1.Pod] {
	if in == nil {
		in = NewInterner(0, 0)
	}
	return func(p *corev1.Pod) (*corev1.Pod, error) {
		shareMeta(in, p)
		sharePodSpec(in, p)
		return p, nil
	}
}

func sharePodSpec(in *Interner, p *corev1.Pod) {
	s := &p.Spec
	s.Containers = shareSlice(in, "containers:", s.Containers, func(c corev1.Container) string { return c.Name + "\x00" + c.Image })
	s.InitContainers = shareSlice(in, "init:", s.InitContainers, func(c corev1.Container) string { return c.Name + "\x00" + c.Image })
	s.Volumes = shareSlice(in, "volumes:", s.Volumes, func(v corev1.Volume) string { return v.Name })
	s.Tolerations = shareSlice(in, "tolerations:", s.Tolerations, func(t corev1.Toleration) string {
		return t.Key + "\x00" + string(t.Operator) + "\x00" + t.Value + "\x00" + string(t.Effect)
	})
	if len(s.NodeSelector) > 0 {
		s.NodeSelector = sharedMap(in, s.NodeSelector)
	}
}

// shareSlice returns a slice equal to xs shared with earlier callers, keyed
// by kind and id of each element; a nil or empty slice is returned as is.
func shareSlice[E any](in *Interner, kind string, xs []E, id func(E) string) []E {
	if len(xs) == 0 {
		return xs
	}
	var b strings.Builder
	b.WriteString(kind)
	for _, x := range xs {
		b.WriteString(id(x))
		b.WriteByte(0)
	}
	out := in.shared(b.String(), xs, func(old any) bool {
		o, ok := old.([]E)
		return ok && reflect.DeepEqual(o, xs)
	})
	return out.([]E)
}
