package listers_test

import (
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

var podsGR = schema.GroupResource{Resource: "pods"}

func pod(ns, name string, lbls map[string]string) *corev1.Pod {
	p := testutil.Pod(ns, name)
	p.Labels = lbls
	return p
}

func podIndexer(t *testing.T) cache.Indexer[*corev1.Pod] {
	t.Helper()
	idx := cache.NewIndexer[*corev1.Pod](nil)
	for _, p := range []*corev1.Pod{
		pod("a", "web-1", map[string]string{"app": "web"}),
		pod("a", "web-2", map[string]string{"app": "web", "tier": "front"}),
		pod("a", "db-1", map[string]string{"app": "db"}),
		pod("b", "web-1", map[string]string{"app": "web"}),
		pod("b", "plain", nil),
	} {
		if err := idx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return idx
}

func keys(objs []*corev1.Pod) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, cache.NewObjectName(o.Namespace, o.Name).String())
	}
	slices.Sort(out)
	return out
}

// TestListerList checks List across namespaces and through namespace
// listers: each returns exactly the Pods its selector matches, and a
// namespace lister only those of its namespace (all for NamespaceAll).
func TestListerList(t *testing.T) {
	l := listers.New(podIndexer(t), podsGR)
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	for _, tc := range []struct {
		name     string
		list     func(labels.Selector) ([]*corev1.Pod, error)
		selector labels.Selector
		want     []string
	}{
		{"nil selector matches all", l.List, nil, []string{"a/db-1", "a/web-1", "a/web-2", "b/plain", "b/web-1"}},
		{"everything", l.List, labels.Everything(), []string{"a/db-1", "a/web-1", "a/web-2", "b/plain", "b/web-1"}},
		{"equality", l.List, web, []string{"a/web-1", "a/web-2", "b/web-1"}},
		{"two labels", l.List, labels.SelectorFromSet(labels.Set{"app": "web", "tier": "front"}), []string{"a/web-2"}},
		{"nothing matches", l.List, labels.SelectorFromSet(labels.Set{"app": "cache"}), []string{}},
		{"namespace a", l.Namespace("a").List, labels.Everything(), []string{"a/db-1", "a/web-1", "a/web-2"}},
		{"namespace b", l.Namespace("b").List, web, []string{"b/web-1"}},
		{"namespace missing", l.Namespace("missing").List, labels.Everything(), []string{}},
		{"namespace all", l.Namespace(metav1.NamespaceAll).List, labels.SelectorFromSet(labels.Set{"app": "db"}), []string{"a/db-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.list(tc.selector)
			if err != nil {
				t.Fatal(err)
			}
			if g := keys(got); !slices.Equal(g, tc.want) {
				t.Fatalf("List = %v, want %v", g, tc.want)
			}
		})
	}
}

// checkNotFound fails t unless err, from what's Get(name), is a NotFound
// APIStatus whose details name gr and name.
func checkNotFound(t *testing.T, what string, gr schema.GroupResource, name string, err error) {
	t.Helper()
	if !apierrors.IsNotFound(err) {
		t.Fatalf("%s Get(%q) = %v, want NotFound", what, name, err)
	}
	var apiStatus apierrors.APIStatus
	if !errors.As(err, &apiStatus) {
		t.Fatalf("%s Get(%q) err = %T, want an APIStatus", what, name, err)
	}
	status := apiStatus.Status()
	if d := status.Details; d == nil || d.Group != gr.Group || d.Kind != gr.Resource || d.Name != name {
		t.Fatalf("%s Get(%q): details %+v, want %v named %q", what, name, status.Details, gr, name)
	}
}

func TestNamespaceListerGetReturnsNotFoundWithGroupResource(t *testing.T) {
	gr := schema.GroupResource{Group: "example.com", Resource: "foos"}
	l := listers.New(podIndexer(t), gr)
	got, err := l.Namespace("b").Get("web-1")
	if err != nil || got.Namespace != "b" || got.Name != "web-1" {
		t.Fatalf("Get(b/web-1) = %v, %v", got, err)
	}
	_, err = l.Namespace("b").Get("db-1")
	checkNotFound(t, "NamespaceLister(b)", gr, "db-1", err)
	if want := `foos.example.com "db-1" not found`; err.Error() != want {
		t.Fatalf("error = %q, want %q", err, want)
	}
}

func TestListerGetClusterScoped(t *testing.T) {
	idx := cache.NewIndexer[*corev1.Node](nil)
	if err := idx.Add(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}); err != nil {
		t.Fatal(err)
	}
	l := listers.New(idx, schema.GroupResource{Resource: "nodes"})
	if n, err := l.Get("n1"); err != nil || n.Name != "n1" {
		t.Fatalf("Get(n1) = %v, %v", n, err)
	}
	if n, err := l.Get("n2"); !apierrors.IsNotFound(err) || n != nil {
		t.Fatalf("Get(n2) = %v, %v; want nil, NotFound", n, err)
	}
}

func TestListerListDoesNotAliasBetweenCalls(t *testing.T) {
	l := listers.New(podIndexer(t), podsGR)
	web, _ := l.List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	all, _ := l.List(labels.Everything())
	if len(web) != 3 || len(all) != 5 {
		t.Fatalf("len(web)=%d len(all)=%d", len(web), len(all))
	}
	for _, p := range web {
		if p.Labels["app"] != "web" {
			t.Fatalf("filtered list changed by a later call: %v", keys(web))
		}
	}
}

func TestGenericListerMatchesTypedLister(t *testing.T) {
	g := listers.NewGeneric(podIndexer(t), podsGR)
	objs, err := g.List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	if err != nil || len(objs) != 3 {
		t.Fatalf("List = %d objects, %v", len(objs), err)
	}
	objs, err = g.ByNamespace("b").List(labels.Everything())
	if err != nil || len(objs) != 2 {
		t.Fatalf("ByNamespace(b).List = %d objects, %v", len(objs), err)
	}
	obj, err := g.ByNamespace("a").Get("db-1")
	if err != nil || obj.(*corev1.Pod).Name != "db-1" {
		t.Fatalf("Get = %v, %v", obj, err)
	}
	obj, err = g.ByNamespace("a").Get("nope")
	if !apierrors.IsNotFound(err) || obj != nil {
		t.Fatalf("Get(nope) = %#v, %v; want untyped nil and NotFound", obj, err)
	}
}

// Any name the cache does not hold is NotFound with the lister's
// GroupResource, also names that make no valid store key.
func TestListerGetReturnsNotFoundForAnyNameNotInTheCache(t *testing.T) {
	gr := schema.GroupResource{Group: "example.com", Resource: "foos"}
	l := listers.New(podIndexer(t), gr)
	g := listers.NewGeneric(podIndexer(t), gr)
	for _, name := range []string{"", "a/b", "x/y/z", "/", "a/", "missing"} {
		_, err := l.Get(name)
		checkNotFound(t, "Lister", gr, name, err)
		_, err = l.Namespace("a").Get(name)
		checkNotFound(t, "NamespaceLister", gr, name, err)
		_, err = g.Get(name)
		checkNotFound(t, "GenericLister", gr, name, err)
		_, err = g.ByNamespace("a").Get(name)
		checkNotFound(t, "GenericNamespaceLister", gr, name, err)
	}
}

func TestListerNilIndexerIsAnErrorNotAPanic(t *testing.T) {
	l := listers.New[*corev1.Pod](nil, podsGR)
	if _, err := l.Get("x"); err == nil || apierrors.IsNotFound(err) {
		t.Fatalf("Get = %v, want an error about the nil indexer", err)
	}
	if _, err := l.List(nil); err == nil {
		t.Fatal("List over a nil indexer returned no error")
	}
	if _, err := l.Namespace("a").List(nil); err == nil {
		t.Fatal("namespaced List over a nil indexer returned no error")
	}
	if _, err := listers.NewGeneric[*corev1.Pod](nil, podsGR).ByNamespace("a").Get("x"); err == nil {
		t.Fatal("generic Get over a nil indexer returned no error")
	}
}
