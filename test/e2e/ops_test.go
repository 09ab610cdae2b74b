package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// ops writes and lists objects of one kind carrying one test label, so
// that scenarios can be written once for ConfigMaps, PodTemplates and
// Widgets.
type ops[T cache.Object] struct {
	kind string
	// create creates object name in namespace; i varies its content.
	create func(ctx context.Context, namespace, name string, i int) (T, error)
	// update changes obj's content (on a copy) and writes it.
	update func(ctx context.Context, obj T, i int) (T, error)
	// remove deletes an object.
	remove func(ctx context.Context, namespace, name string) error
	// list is a consistent list of every labelled object in all namespaces.
	list func(ctx context.Context) ([]T, error)
}

// createN creates n objects in namespace, named by format applied to 0..n-1
// and varied by their index, failing t on the first error.
func (o ops[T]) createN(t testing.TB, ctx context.Context, namespace, format string, n int) {
	t.Helper()
	for i := range n {
		if _, err := o.create(ctx, namespace, fmt.Sprintf(format, i), i); err != nil {
			t.Fatalf("creating %s %s: %v", o.kind, fmt.Sprintf(format, i), err)
		}
	}
}

// inNewNamespace returns admin clients, a new test namespace, a new test
// label and the ops mk builds for that label.
func inNewNamespace[T cache.Object](t testing.TB, mk func(clients, string) ops[T]) (c clients, ns, label string, o ops[T]) {
	t.Helper()
	c, namespaces := adminIn(t, 1)
	ns = namespaces[0]
	label = testLabel(t)
	return c, ns, label, mk(c, label)
}

func labelSelector(label string) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: labelKey + "=" + label}
}

// typedClient is the part of a generated typed client of one namespace
// that ops use; L is the kind's list type.
type typedClient[T, L any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
}

// typedOps are the ops of kind for the objects carrying label, written
// through client, the kind's typed client of a namespace ("" for all).
// build makes the object of meta (namespace, name and label set) varied by
// i; vary sets the content varied by i (on a copy); items are a list's
// objects.
func typedOps[T cache.Object, L any, C typedClient[T, L]](kind, label string, client func(namespace string) C,
	build func(meta metav1.ObjectMeta, i int) T, vary func(obj T, i int), items func(L) []T) ops[T] {
	return ops[T]{
		kind: kind,
		create: func(ctx context.Context, ns, name string, i int) (T, error) {
			meta := metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{labelKey: label}}
			return client(ns).Create(ctx, build(meta, i), metav1.CreateOptions{})
		},
		update: func(ctx context.Context, obj T, i int) (T, error) {
			obj = obj.DeepCopyObject().(T)
			vary(obj, i)
			return client(obj.GetNamespace()).Update(ctx, obj, metav1.UpdateOptions{})
		},
		remove: func(ctx context.Context, ns, name string) error {
			return client(ns).Delete(ctx, name, metav1.DeleteOptions{})
		},
		list: func(ctx context.Context) ([]T, error) {
			l, err := client("").List(ctx, labelSelector(label))
			if err != nil {
				return nil, err
			}
			return items(l), nil
		},
	}
}

func configMapOps(c clients, label string) ops[*corev1.ConfigMap] {
	return typedOps("ConfigMap", label, c.kube.CoreV1().ConfigMaps,
		func(meta metav1.ObjectMeta, i int) *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"i": strconv.Itoa(i)}}
		},
		func(cm *corev1.ConfigMap, i int) { cm.Data["i"] = strconv.Itoa(i) },
		func(l *corev1.ConfigMapList) []*corev1.ConfigMap { return pointers(l.Items) })
}

func podTemplateOps(c clients, label string) ops[*corev1.PodTemplate] {
	return typedOps("PodTemplate", label, c.kube.CoreV1().PodTemplates,
		func(meta metav1.ObjectMeta, i int) *corev1.PodTemplate {
			return &corev1.PodTemplate{
				ObjectMeta: meta,
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"i": strconv.Itoa(i)}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/c:1"}}},
				},
			}
		},
		func(pt *corev1.PodTemplate, i int) { pt.Template.Annotations["i"] = strconv.Itoa(i) },
		func(l *corev1.PodTemplateList) []*corev1.PodTemplate { return pointers(l.Items) })
}

func fooOps(c clients, label string) ops[*foo] {
	return typedOps("Foo", label, c.samples.SamplesV1alpha1().Foos,
		func(meta metav1.ObjectMeta, i int) *foo {
			return &foo{ObjectMeta: meta, Spec: samplesv1alpha1.FooSpec{Data: map[string]string{"i": strconv.Itoa(i)}}}
		},
		func(f *foo, i int) { f.Spec.Data["i"] = strconv.Itoa(i) },
		func(l *samplesv1alpha1.FooList) []*foo { return pointers(l.Items) })
}

func pointers[E any](items []E) []*E {
	out := make([]*E, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// withoutTypeMeta returns a copy of obj with kind and apiVersion cleared.
// Whether a typed object carries them depends on how client-go decoded it,
// not on the informer: items of a custom resource list keep them, objects
// decoded from a watch do not.
func withoutTypeMeta[T cache.Object](obj T) T {
	c := obj.DeepCopyObject().(T)
	c.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return c
}

// matchesServer returns nil when store holds exactly the objects of a fresh
// consistent server list: the same keys at the same resourceVersions with
// semantically equal content (apart from kind and apiVersion; see
// withoutTypeMeta).
func matchesServer[T cache.Object](ctx context.Context, store cache.Store[T], o ops[T]) error {
	server, err := o.list(ctx)
	if err != nil {
		return fmt.Errorf("listing %ss: %w", o.kind, err)
	}
	cached := store.List()
	if d := diffVersions(versions(cached), versions(server)); d != "" {
		return fmt.Errorf("cache of %ss differs from the server: %s", o.kind, d)
	}
	for _, want := range server {
		got, ok, err := store.GetByKey(key(want))
		if err != nil || !ok {
			return fmt.Errorf("cache of %ss: %s: ok=%v err=%v", o.kind, key(want), ok, err)
		}
		if !equality.Semantic.DeepEqual(withoutTypeMeta(got), withoutTypeMeta(want)) {
			return fmt.Errorf("cache of %ss: %s at %s differs from the server's copy:\n got: %v\nwant: %v", o.kind, key(want), want.GetResourceVersion(), got, want)
		}
	}
	return nil
}
