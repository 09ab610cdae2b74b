package crcache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/typedinformer/typedinformer/crcache"
)

// fixture creates namespaces and ConfigMaps (labelled app=a or app=b, one
// per namespace without labels) and returns the namespaces.
func fixture(t *testing.T, c client.Client, prefix string) []string {
	t.Helper()
	ctx := t.Context()
	var names []string
	for i := range 3 {
		ns := fmt.Sprintf("%s-%d", prefix, i)
		names = append(names, ns)
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"fixture": prefix}}}); err != nil {
			t.Fatal(err)
		}
		for j := range 4 {
			cm := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%d", j)},
				Data:       map[string]string{"k": fmt.Sprintf("v%d", j%2)},
			}
			if j < 3 {
				cm.Labels = map[string]string{"app": string(rune('a' + j%2))}
			}
			if err := c.Create(ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
	}
	return names
}

// unknownKind is registered in the test scheme but served by no API server.
type unknownKind struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (u *unknownKind) DeepCopyObject() runtime.Object {
	c := *u
	u.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

type unknownKindList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []unknownKind `json:"items"`
}

func (u *unknownKindList) DeepCopyObject() runtime.Object {
	c := *u
	c.Items = append([]unknownKind(nil), u.Items...)
	return &c
}

// unregistered is in no scheme.
type unregistered struct{ unknownKind }

func (u *unregistered) DeepCopyObject() runtime.Object { c := *u; return &c }

// unregisteredList is in no scheme either.
type unregisteredList struct{ unknownKindList }

func (u *unregisteredList) DeepCopyObject() runtime.Object { c := *u; return &c }

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	gv := schema.GroupVersion{Group: "nowhere.example.com", Version: "v1"}
	s.AddKnownTypeWithName(gv.WithKind("Unknown"), &unknownKind{})
	s.AddKnownTypeWithName(gv.WithKind("UnknownList"), &unknownKindList{})
	return s
}

// op is one read, and what it returned as text: the objects (sorted by
// key, with everything the server sent) or the error's type and message.
type op struct {
	name string
	run  func(ctx context.Context, c cache.Cache) (string, error)
}

func result(v any, err error) string {
	if err != nil {
		return fmt.Sprintf("error %T: %v (NotFound=%v)", err, err, apierrors.IsNotFound(err))
	}
	b, jerr := json.Marshal(v)
	if jerr != nil {
		return "marshal: " + jerr.Error()
	}
	return string(b)
}

func list[L client.ObjectList](newList func() L, items func(L) []client.Object, opts ...client.ListOption) func(ctx context.Context, c cache.Cache) (string, error) {
	return func(ctx context.Context, c cache.Cache) (string, error) {
		l := newList()
		err := c.List(ctx, l, opts...)
		if err != nil {
			// A failed List leaves the list as it was: empty.
			if n := len(items(l)); n > 0 || l.GetContinue() != "" || l.GetResourceVersion() != "" {
				return result(nil, err) + fmt.Sprintf(" PARTLY FILLED: %d items, continue %q", n, l.GetContinue()), nil
			}
			return result(nil, err), nil
		}
		objs := items(l)
		sort.Slice(objs, func(i, j int) bool {
			return client.ObjectKeyFromObject(objs[i]).String() < client.ObjectKeyFromObject(objs[j]).String()
		})
		return result(map[string]any{"items": objs, "continue": l.GetContinue()}, nil), nil
	}
}

func get(obj func() client.Object, key client.ObjectKey, opts ...client.GetOption) func(ctx context.Context, c cache.Cache) (string, error) {
	return func(ctx context.Context, c cache.Cache) (string, error) {
		o := obj()
		err := c.Get(ctx, key, o, opts...)
		if err != nil {
			return result(nil, err), nil
		}
		return result(o, nil), nil
	}
}

// informerOp is an informer call of c that can only fail; its result is
// the error as text.
func informerOp(f func(ctx context.Context, c cache.Cache) error) func(ctx context.Context, c cache.Cache) (string, error) {
	return func(ctx context.Context, c cache.Cache) (string, error) {
		err := f(ctx, c)
		if err == nil {
			return "ok", nil
		}
		return result(nil, err), nil
	}
}

func configMaps(l *corev1.ConfigMapList) []client.Object {
	var out []client.Object
	for i := range l.Items {
		out = append(out, &l.Items[i])
	}
	return out
}

func metadataList(l *metav1.PartialObjectMetadataList) []client.Object {
	var out []client.Object
	for i := range l.Items {
		out = append(out, &l.Items[i])
	}
	return out
}

func namespacesOf(l *corev1.NamespaceList) []client.Object {
	var out []client.Object
	for i := range l.Items {
		if l.Items[i].Labels["fixture"] != "" {
			out = append(out, &l.Items[i])
		}
	}
	return out
}

func metaList(kind string) func() *metav1.PartialObjectMetadataList {
	return func() *metav1.PartialObjectMetadataList {
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
		return l
	}
}

func metaObject(kind string) func() client.Object {
	return func() client.Object {
		p := &metav1.PartialObjectMetadata{}
		p.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
		return p
	}
}

func unstructuredObject(kind string) func() client.Object {
	return func() client.Object {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
		return u
	}
}

func unstructuredList(kind string) func() *unstructured.UnstructuredList {
	return func() *unstructured.UnstructuredList {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
		return l
	}
}

func unstructuredItems(l *unstructured.UnstructuredList) []client.Object {
	var out []client.Object
	for i := range l.Items {
		out = append(out, &l.Items[i])
	}
	return out
}

// byData indexes ConfigMaps by their "k" value.
func byData(o client.Object) []string {
	if u, ok := o.(*unstructured.Unstructured); ok {
		v, _, _ := unstructured.NestedString(u.Object, "data", "k")
		return []string{v}
	}
	return []string{o.(*corev1.ConfigMap).Data["k"]}
}

// runRead runs r on c, a panic reported as its result.
func runRead(ctx context.Context, r op, c cache.Cache) (res string) {
	defer func() {
		if p := recover(); p != nil {
			res = fmt.Sprintf("panic: %v", p)
		}
	}()
	res, _ = r.run(ctx, c)
	return res
}

// TestSameAsControllerRuntime reads the same objects through
// controller-runtime's cache and ours, built with the same options, and
// requires the same answer to every read: objects, continue tokens,
// errors.
func TestSameAsControllerRuntime(t *testing.T) {
	cfg := adminConfig()
	sch := testScheme(t)
	writer, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		t.Fatal(err)
	}
	ns := fixture(t, writer, "cmp")
	cmPod := func() client.Object { return &corev1.ConfigMap{} }
	cmList := func() *corev1.ConfigMapList { return &corev1.ConfigMapList{} }
	reads := []op{
		{"get", get(cmPod, client.ObjectKey{Namespace: ns[0], Name: "cm-1"})},
		{"get without deep copy", get(cmPod, client.ObjectKey{Namespace: ns[1], Name: "cm-2"}, client.UnsafeDisableDeepCopy)},
		{"get missing", get(cmPod, client.ObjectKey{Namespace: ns[0], Name: "nope"})},
		{"get cluster-scoped", get(func() client.Object { return &corev1.Namespace{} }, client.ObjectKey{Name: ns[2]})},
		{"get metadata-only", get(metaObject("ConfigMap"), client.ObjectKey{Namespace: ns[2], Name: "cm-0"})},
		{"get unstructured", get(unstructuredObject("ConfigMap"), client.ObjectKey{Namespace: ns[1], Name: "cm-3"})},
		{"get unstructured cluster-scoped", get(unstructuredObject("Namespace"), client.ObjectKey{Name: ns[0]})},
		{"get unknown kind", get(func() client.Object { return &unknownKind{} }, client.ObjectKey{Namespace: ns[0], Name: "x"})},
		{"get unregistered type", get(func() client.Object { return &unregistered{} }, client.ObjectKey{Namespace: ns[0], Name: "x"})},
		{"list all", list(cmList, configMaps)},
		{"list namespace", list(cmList, configMaps, client.InNamespace(ns[1]))},
		{"list label", list(cmList, configMaps, client.MatchingLabels{"app": "a"})},
		{"list label and namespace", list(cmList, configMaps, client.InNamespace(ns[2]), client.MatchingLabels{"app": "b"})},
		{"list label set-based", list(cmList, configMaps, client.HasLabels{"app"})},
		{"list field index", list(cmList, configMaps, client.MatchingFields{"k": "v1"})},
		{"list field index in namespace", list(cmList, configMaps, client.InNamespace(ns[0]), client.MatchingFields{"k": "v0"})},
		{"list field index and label", list(cmList, configMaps, client.MatchingFields{"k": "v0"}, client.MatchingLabels{"app": "a"})},
		{"list unindexed field", list(cmList, configMaps, client.MatchingFields{"data.other": "x"})},
		{"list metadata.name unindexed", list(cmList, configMaps, client.MatchingFields{"metadata.name": "cm-0"})},
		{"list non-exact field", list(cmList, configMaps, client.MatchingFieldsSelector{Selector: fields.OneTermNotEqualSelector("k", "v0")})},
		{"list two fields, second unindexed", list(cmList, configMaps, client.MatchingFieldsSelector{Selector: fields.AndSelectors(fields.OneTermEqualSelector("k", "v0"), fields.OneTermEqualSelector("nope", "y"))})},
		{"list continue", list(cmList, configMaps, client.Continue("abc"))},
		// The store's order is a map's on both sides: a limit keeps any 2.
		{"list limit", func(ctx context.Context, c cache.Cache) (string, error) {
			l := &corev1.ConfigMapList{}
			if err := c.List(ctx, l, client.InNamespace(ns[0]), client.Limit(2)); err != nil {
				return result(nil, err), nil
			}
			return fmt.Sprintf("%d items, continue %q", len(l.Items), l.Continue), nil
		}},
		{"list without deep copy", list(cmList, configMaps, client.InNamespace(ns[1]), client.UnsafeDisableDeepCopy)},
		{"list cluster-scoped", list(func() *corev1.NamespaceList { return &corev1.NamespaceList{} }, namespacesOf)},
		{"list metadata-only", list(metaList("ConfigMapList"), metadataList, client.InNamespace(ns[0]))},
		{"list metadata-only label", list(metaList("ConfigMapList"), metadataList, client.MatchingLabels{"app": "b"})},
		{"list unstructured", list(unstructuredList("ConfigMapList"), unstructuredItems, client.InNamespace(ns[2]))},
		{"list unstructured label", list(unstructuredList("ConfigMapList"), unstructuredItems, client.MatchingLabels{"app": "a"})},
		{"list unstructured field index", list(unstructuredList("ConfigMapList"), unstructuredItems, client.MatchingFields{"k": "v1"})},
		{"list unknown kind", list(func() *unknownKindList { return &unknownKindList{} }, func(*unknownKindList) []client.Object { return nil })},
		{"list unregistered type", list(func() *unregisteredList { return &unregisteredList{} }, func(*unregisteredList) []client.Object { return nil })},
		{"list unregistered type in namespace", list(func() *unregisteredList { return &unregisteredList{} }, func(*unregisteredList) []client.Object { return nil }, client.InNamespace(ns[0]))},
		{"list unknown kind with field index", list(func() *unknownKindList { return &unknownKindList{} }, func(*unknownKindList) []client.Object { return nil }, client.MatchingFields{"k": "v"})},
		{"list metadata-only unknown kind", list(func() *metav1.PartialObjectMetadataList {
			l := &metav1.PartialObjectMetadataList{}
			l.SetGroupVersionKind(schema.GroupVersionKind{Group: "nowhere.example.com", Version: "v1", Kind: "UnknownList"})
			return l
		}, metadataList)},
		{"list unstructured unknown kind", list(func() *unstructured.UnstructuredList {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(schema.GroupVersionKind{Group: "nowhere.example.com", Version: "v1", Kind: "UnknownList"})
			return l
		}, unstructuredItems)},
		{"list unindexed field in namespace", list(cmList, configMaps, client.InNamespace(ns[1]), client.MatchingFields{"data.other": "x"})},
		{"list set-based field", list(cmList, configMaps, client.MatchingFieldsSelector{Selector: fields.AndSelectors(fields.OneTermEqualSelector("k", "v0"), fields.OneTermNotEqualSelector("k", "v1"))})},
		{"list continue with limit", list(cmList, configMaps, client.Limit(1), client.Continue("x"))},
		// Raw list options (resourceVersion, a server-side selector) are
		// not the cache's: both ignore them.
		{"list raw options", list(cmList, configMaps, client.InNamespace(ns[0]), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "1", FieldSelector: "metadata.name=cm-0"}})},
		{"get informer unknown kind", informerOp(func(ctx context.Context, c cache.Cache) error {
			_, err := c.GetInformer(ctx, &unknownKind{})
			return err
		})},
		{"get informer unregistered type", informerOp(func(ctx context.Context, c cache.Cache) error {
			_, err := c.GetInformer(ctx, &unregistered{})
			return err
		})},
		{"get informer for kind not in scheme", informerOp(func(ctx context.Context, c cache.Cache) error {
			_, err := c.GetInformerForKind(ctx, schema.GroupVersionKind{Group: "nowhere.example.com", Version: "v1", Kind: "Missing"})
			return err
		})},
		{"get informer for kind the server lacks", informerOp(func(ctx context.Context, c cache.Cache) error {
			_, err := c.GetInformerForKind(ctx, schema.GroupVersionKind{Group: "nowhere.example.com", Version: "v1", Kind: "Unknown"})
			return err
		})},
		{"index field unknown kind", informerOp(func(ctx context.Context, c cache.Cache) error {
			return c.IndexField(ctx, &unknownKind{}, "x", func(client.Object) []string { return nil })
		})},
		{"index field unregistered type", informerOp(func(ctx context.Context, c cache.Cache) error {
			return c.IndexField(ctx, &unregistered{}, "x", func(client.Object) []string { return nil })
		})},
		{"remove informer unregistered type", informerOp(func(ctx context.Context, c cache.Cache) error {
			return c.RemoveInformer(ctx, &unregistered{})
		})},
	}
	setups := []struct {
		name string
		opts func() cache.Options
	}{
		{"defaults", func() cache.Options { return cache.Options{} }},
		{"default namespaces", func() cache.Options {
			return cache.Options{DefaultNamespaces: map[string]cache.Config{
				ns[0]: {}, ns[1]: {LabelSelector: labels.SelectorFromSet(labels.Set{"app": "a"})},
			}}
		}},
		{"default label selector and transform", func() cache.Options {
			return cache.Options{
				DefaultLabelSelector: labels.SelectorFromSet(labels.Set{"app": "b"}),
				DefaultTransform:     cache.TransformStripManagedFields(),
			}
		}},
		{"by object field selector, no deep copy", func() cache.Options {
			return cache.Options{
				ByObject: map[client.Object]cache.ByObject{
					&corev1.ConfigMap{}: {Field: fields.OneTermEqualSelector("metadata.namespace", ns[2]), UnsafeDisableDeepCopy: ptr.To(true)},
				},
			}
		}},
		{"by object namespaces with all", func() cache.Options {
			return cache.Options{
				ByObject: map[client.Object]cache.ByObject{
					&corev1.ConfigMap{}: {Namespaces: map[string]cache.Config{ns[0]: {}, metav1.NamespaceAll: {LabelSelector: labels.SelectorFromSet(labels.Set{"app": "a"})}}},
				},
			}
		}},
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			build := func(name string, f cache.NewCacheFunc, failOnMissing bool) cache.Cache {
				o := s.opts()
				o.Scheme = sch
				o.ReaderFailOnMissingInformer = failOnMissing
				c, err := f(cfg, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return c
			}
			sides := []struct {
				name string
				new  cache.NewCacheFunc
			}{{"controller-runtime", cache.New}, {"crcache", crcache.New}}
			got := map[string][]string{}
			for _, side := range sides {
				c := build(side.name, side.new, false)
				// Before Start: reads fail as not started.
				notStarted, _ := reads[0].run(ctx, c)
				if err := c.IndexField(ctx, &corev1.ConfigMap{}, "k", byData); err != nil {
					t.Fatalf("%s: IndexField: %v", side.name, err)
				}
				if err := c.IndexField(ctx, unstructuredObject("ConfigMap")(), "k", byData); err != nil {
					t.Fatalf("%s: IndexField: %v", side.name, err)
				}
				runCtx, stop := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() { done <- c.Start(runCtx) }()
				if !c.WaitForCacheSync(ctx) {
					t.Fatalf("%s: not synced", side.name)
				}
				out := []string{"before start: " + notStarted}
				for _, r := range reads {
					res := runRead(ctx, r, c)
					if strings.Contains(res, "PARTLY FILLED") || strings.HasPrefix(res, "panic") {
						t.Errorf("%s: %s: %s", side.name, r.name, res)
					}
					out = append(out, r.name+": "+res)
				}
				// A second Start fails.
				// (which namespace's cache answers first is left to chance on both sides)
				err := c.Start(ctx)
				out = append(out, fmt.Sprintf("second start fails as already started: %v", err != nil && strings.HasSuffix(err.Error(), "informer already started")))
				stop()
				if err := <-done; err != nil {
					t.Errorf("%s: Start returned %v", side.name, err)
				}

				// ReaderFailOnMissingInformer: not cached, then not started.
				strict := build(side.name, side.new, true)
				missing, _ := reads[0].run(ctx, strict)
				if _, err := strict.GetInformer(ctx, &corev1.ConfigMap{}, cache.BlockUntilSynced(false)); err != nil {
					t.Fatalf("%s: GetInformer: %v", side.name, err)
				}
				unstarted, _ := reads[0].run(ctx, strict)
				out = append(out, "strict, no informer: "+missing, "strict, not started: "+unstarted)
				got[side.name] = out
			}
			want, have := got["controller-runtime"], got["crcache"]
			for i := range want {
				if i >= len(have) || want[i] != have[i] {
					h := "<missing>"
					if i < len(have) {
						h = have[i]
					}
					t.Errorf("read %d differs:\ncontroller-runtime: %s\ncrcache:            %s", i, want[i], h)
				}
			}
			if testing.Verbose() {
				t.Logf("crcache:\n%s", strings.Join(have, "\n"))
			}
		})
	}
}
