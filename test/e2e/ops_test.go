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
	c = admin(t)
	ns = testNamespaces(t, c, 1)[0]
	label = testLabel(t)
	return c, ns, label, mk(c, label)
}

func labelSelector(label string) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: labelKey + "=" + label}
}

func configMapOps(c clients, label string) ops[*corev1.ConfigMap] {
	return ops[*corev1.ConfigMap]{
		kind: "ConfigMap",
		create: func(ctx context.Context, ns, name string, i int) (*corev1.ConfigMap, error) {
			cm := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{labelKey: label}},
				Data:       map[string]string{"i": strconv.Itoa(i)},
			}
			return c.kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		},
		update: func(ctx context.Context, cm *corev1.ConfigMap, i int) (*corev1.ConfigMap, error) {
			cm = cm.DeepCopy()
			cm.Data["i"] = strconv.Itoa(i)
			return c.kube.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
		},
		remove: func(ctx context.Context, ns, name string) error {
			return c.kube.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
		},
		list: func(ctx context.Context) ([]*corev1.ConfigMap, error) {
			l, err := c.kube.CoreV1().ConfigMaps("").List(ctx, labelSelector(label))
			if err != nil {
				return nil, err
			}
			return pointers(l.Items), nil
		},
	}
}

func podTemplateOps(c clients, label string) ops[*corev1.PodTemplate] {
	return ops[*corev1.PodTemplate]{
		kind: "PodTemplate",
		create: func(ctx context.Context, ns, name string, i int) (*corev1.PodTemplate, error) {
			pt := &corev1.PodTemplate{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{labelKey: label}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"i": strconv.Itoa(i)}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/c:1"}}},
				},
			}
			return c.kube.CoreV1().PodTemplates(ns).Create(ctx, pt, metav1.CreateOptions{})
		},
		update: func(ctx context.Context, pt *corev1.PodTemplate, i int) (*corev1.PodTemplate, error) {
			pt = pt.DeepCopy()
			pt.Template.Annotations["i"] = strconv.Itoa(i)
			return c.kube.CoreV1().PodTemplates(pt.Namespace).Update(ctx, pt, metav1.UpdateOptions{})
		},
		remove: func(ctx context.Context, ns, name string) error {
			return c.kube.CoreV1().PodTemplates(ns).Delete(ctx, name, metav1.DeleteOptions{})
		},
		list: func(ctx context.Context) ([]*corev1.PodTemplate, error) {
			l, err := c.kube.CoreV1().PodTemplates("").List(ctx, labelSelector(label))
			if err != nil {
				return nil, err
			}
			return pointers(l.Items), nil
		},
	}
}

func fooOps(c clients, label string) ops[*foo] {
	return ops[*foo]{
		kind: "Foo",
		create: func(ctx context.Context, ns, name string, i int) (*foo, error) {
			f := &foo{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{labelKey: label}},
				Spec:       samplesv1alpha1.FooSpec{Data: map[string]string{"i": strconv.Itoa(i)}},
			}
			return c.samples.SamplesV1alpha1().Foos(ns).Create(ctx, f, metav1.CreateOptions{})
		},
		update: func(ctx context.Context, f *foo, i int) (*foo, error) {
			f = f.DeepCopy()
			f.Spec.Data["i"] = strconv.Itoa(i)
			return c.samples.SamplesV1alpha1().Foos(f.Namespace).Update(ctx, f, metav1.UpdateOptions{})
		},
		remove: func(ctx context.Context, ns, name string) error {
			return c.samples.SamplesV1alpha1().Foos(ns).Delete(ctx, name, metav1.DeleteOptions{})
		},
		list: func(ctx context.Context) ([]*foo, error) {
			l, err := c.samples.SamplesV1alpha1().Foos("").List(ctx, labelSelector(label))
			if err != nil {
				return nil, err
			}
			return pointers(l.Items), nil
		},
	}
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
