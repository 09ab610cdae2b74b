package lean

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// InternFunc interns the strings of a T beyond its metadata, calling intern
// on each and storing the result back in place. Use it to teach Intern the
// repeated fields of your own types (InternPod does it for Pods).
type InternFunc[T cache.Object] func(obj T, intern func(string) string)

// Intern returns a transform that interns the repeated strings of an
// object's metadata through in: namespace, generateName, label keys and
// values, annotation keys and values (values up to the Interner's maxLen),
// finalizers, owner references' apiVersion, kind, name and uid, and
// managedFields' manager, operation and apiVersion. Each extra function
// then interns type-specific fields. A nil in gives the transform an
// Interner of its own: informers share strings only through an Interner
// given to each of them.
func Intern[T cache.Object](in *Interner, extra ...InternFunc[T]) cache.TransformFunc[T] {
	if in == nil {
		in = NewInterner(0, 0)
	}
	return func(obj T) (T, error) {
		internMeta(in, obj)
		for _, f := range extra {
			f(obj, in.Intern)
		}
		return obj, nil
	}
}

// internMeta interns obj's metadata strings in place.
func internMeta(in *Interner, obj metav1.Object) {
	i := in.Intern
	if ns := obj.GetNamespace(); ns != "" {
		obj.SetNamespace(i(ns))
	}
	if g := obj.GetGenerateName(); g != "" {
		obj.SetGenerateName(i(g))
	}
	internMap(i, obj.GetLabels())
	internMap(i, obj.GetAnnotations())
	fin := obj.GetFinalizers()
	for k := range fin {
		fin[k] = i(fin[k])
	}
	refs := obj.GetOwnerReferences()
	for k := range refs {
		r := &refs[k]
		r.APIVersion, r.Kind, r.Name = i(r.APIVersion), i(r.Kind), i(r.Name)
		r.UID = types.UID(i(string(r.UID)))
	}
	mf := obj.GetManagedFields()
	for k := range mf {
		e := &mf[k]
		e.Manager, e.APIVersion, e.FieldsType = i(e.Manager), i(e.APIVersion), i(e.FieldsType)
		e.Operation = metav1.ManagedFieldsOperationType(i(string(e.Operation)))
		e.Subresource = i(e.Subresource)
	}
}

// internMap replaces m's keys and values by their interned copies in place:
// assigning to an existing key of a map with string keys stores the new
// key string too.
func internMap(i func(string) string, m map[string]string) {
	for k, v := range m {
		m[i(k)] = i(v)
	}
}
