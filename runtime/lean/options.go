package lean

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// Options selects the parts of the lean mode; the zero value does nothing.
// See the package documentation for what each part costs and breaks.
type Options struct {
	// StripManagedFields drops metadata.managedFields.
	StripManagedFields bool
	// StripLastApplied drops the last-applied-configuration annotation.
	StripLastApplied bool
	// Intern shares repeated strings of metadata (and, for Pods, of spec and
	// status) through Interner.
	Intern bool
	// Share makes objects with equal label or annotation maps share one
	// copy; so do Pods with equal containers, volumes, tolerations or node
	// selectors, and objects of other types with equal maps of strings
	// among their members (a custom resource's spec.data, a ConfigMap's
	// data, a template's labels). See ShareMaps and SharePodSpec for what
	// it breaks.
	Share bool
	// Interner is the Interner used when Intern or Share is set; nil gives
	// each transform built from these Options an Interner of its own (one
	// per informer). Pass one Interner to several informers to share
	// strings and parts between their objects.
	Interner *Interner
}

// Default returns the lean mode for controllers that treat cached objects as
// read-only, as they must: managedFields dropped, repeated strings interned
// and equal maps and Pod containers shared. The last-applied annotation is
// kept because dropping it is unsafe for controllers that Update whole
// objects.
func Default() Options { return Options{StripManagedFields: true, Intern: true, Share: true} }

// Transform returns the transform o describes for T, or nil when o selects
// nothing. For *corev1.Pod interning covers spec and status as InternPod
// does.
func Transform[T cache.Object](o Options) cache.TransformFunc[T] {
	if !o.selectsAny() {
		return nil
	}
	f := ObjectTransform(o)
	return func(obj T) (T, error) {
		if _, err := f(obj); err != nil {
			var zero T
			return zero, err
		}
		return obj, nil
	}
}

// ObjectTransform is Transform for any object with metadata, in the shape
// of informers.WithTransform: it modifies obj in place and returns it. An
// object without metadata is an error naming its type.
func ObjectTransform(o Options) func(runtime.Object) (runtime.Object, error) {
	in := o.Interner
	if in == nil {
		in = NewInterner(0, 0)
	}
	members := newMemberMaps(in)
	return func(obj runtime.Object) (runtime.Object, error) {
		m, ok := obj.(metav1.Object)
		if !ok {
			return nil, fmt.Errorf("lean: %T has no object metadata", obj)
		}
		if o.StripManagedFields {
			stripManagedFields(m)
		}
		if o.StripLastApplied {
			stripLastApplied(m)
		}
		if o.Intern {
			internMeta(in, m)
			if p, ok := obj.(*corev1.Pod); ok {
				internPodFields(p, in.Intern)
			}
		}
		if o.Share {
			shareMeta(in, m)
			if p, ok := obj.(*corev1.Pod); ok {
				sharePodSpec(in, p)
			} else {
				members.share(obj)
			}
		}
		return obj, nil
	}
}

// selectsAny reports whether o selects anything.
func (o Options) selectsAny() bool {
	return o.StripManagedFields || o.StripLastApplied || o.Intern || o.Share
}
