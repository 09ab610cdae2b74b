package generators_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"

	corev1 "github.com/typedinformer/typedinformer/generators/testdata/apis/core/v1"
	examplev1 "github.com/typedinformer/typedinformer/generators/testdata/apis/example/v1"
	"github.com/typedinformer/typedinformer/generators/testdata/clientset/versioned"
	"github.com/typedinformer/typedinformer/generators/testdata/golden/informers/externalversions"
	examplev1informers "github.com/typedinformer/typedinformer/generators/testdata/golden/informers/externalversions/example/v1"
	"github.com/typedinformer/typedinformer/generators/testdata/golden/informers/externalversions/internalinterfaces"
)

func widget(ns, name string, size int) *examplev1.Widget {
	return &examplev1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: examplev1.WidgetSpec{Size: size}}
}

// TestGeneratedFactoryRuns drives the golden factory, informers and listers
// against the runtime and a fake clientset: the generated glue must list,
// watch, index by namespace, serve ForResource and carry the user's lister
// expansion.
func TestGeneratedFactoryRuns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := versioned.NewFake()
	for _, w := range []*examplev1.Widget{widget("ns1", "a", 5), widget("ns2", "b", 1)} {
		if _, err := client.Widgets.Create(w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.Nodes.Create(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}); err != nil {
		t.Fatal(err)
	}

	f := externalversions.NewSharedInformerFactory(client, 0)
	widgets := f.Example().V1().Widgets()
	nodes := f.Core().V1().Nodes()
	added := make(chan string, 10)
	if _, err := widgets.Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*examplev1.Widget]{
		AddFunc: func(w *examplev1.Widget, _ bool) { added <- w.Namespace + "/" + w.Name },
	}); err != nil {
		t.Fatal(err)
	}
	nodes.Informer()
	if widgets.Informer() != f.Example().V1().Widgets().Informer() {
		t.Error("the factory handed out two informers for Widgets")
	}
	f.Start(ctx)
	defer f.Shutdown()
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatalf("WaitForCacheSync: %v", err)
	}

	all, err := widgets.Lister().List(labels.Everything())
	if err != nil || len(all) != 2 {
		t.Errorf("List = %d widgets, %v; want 2", len(all), err)
	}
	if w, err := widgets.Lister().Widgets("ns1").Get("a"); err != nil || w.Spec.Size != 5 {
		t.Errorf("Widgets(ns1).Get(a) = %v, %v", w, err)
	}
	if _, err := widgets.Lister().Widgets("ns1").Get("b"); !apierrors.IsNotFound(err) {
		t.Errorf("Widgets(ns1).Get(b): %v, want NotFound", err)
	}
	if large, err := widgets.Lister().ListLarge(3); err != nil || len(large) != 1 || large[0].Name != "a" {
		t.Errorf("user expansion ListLarge(3) = %v, %v", large, err)
	}
	if n, err := nodes.Lister().Get("n1"); err != nil || n.Name != "n1" {
		t.Errorf("Nodes Get(n1) = %v, %v", n, err)
	}

	gi, err := f.ForResource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"})
	if err != nil {
		t.Fatal(err)
	}
	if objs, err := gi.Lister().List(labels.Everything()); err != nil || len(objs) != 2 {
		t.Errorf("ForResource(widgets).Lister().List = %d, %v; want 2", len(objs), err)
	}
	if _, err := f.ForResource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "hiddens"}); err == nil {
		t.Error("ForResource(hiddens) succeeded: Hidden has no informer")
	}

	seen := map[string]bool{}
	for len(seen) < 2 {
		select {
		case k := <-added:
			seen[k] = true
		case <-ctx.Done():
			t.Fatalf("initial adds: saw %v", seen)
		}
	}
	if _, err := client.Widgets.Create(widget("ns1", "c", 2)); err != nil {
		t.Fatal(err)
	}
	select {
	case k := <-added:
		if k != "ns1/c" {
			t.Errorf("watched add of %s, want ns1/c", k)
		}
	case <-ctx.Done():
		t.Fatal("the watch did not deliver ns1/c")
	}
	if _, err := widgets.Lister().Widgets("ns1").Get("c"); err != nil {
		t.Errorf("lister after the watched add: %v", err)
	}
}

// TestGeneratedFactoryNamespaces checks that the factory's namespace options
// reach the generated informers: one namespace, several, and the cluster
// scope of Nodes.
func TestGeneratedFactoryNamespaces(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := versioned.NewFake()
	for _, w := range []*examplev1.Widget{widget("ns1", "a", 1), widget("ns2", "b", 1), widget("ns3", "c", 1)} {
		if _, err := client.Widgets.Create(w); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.Nodes.Create(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		factory externalversions.SharedInformerFactory
		want    int
	}{
		{"one namespace", externalversions.NewFilteredSharedInformerFactory(client, 0, "ns2", nil), 1},
		{"two namespaces", externalversions.NewSharedInformerFactoryWithOptions(client, 0, externalversions.WithNamespaces("ns1", "ns3")), 2},
		{"tweaked", externalversions.NewSharedInformerFactoryWithOptions(client, 0, externalversions.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = "metadata.name=a"
		})), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.factory
			widgets := f.Example().V1().Widgets()
			nodes := f.Core().V1().Nodes()
			widgets.Informer()
			nodes.Informer()
			f.Start(ctx)
			defer f.Shutdown()
			if _, err := f.WaitForCacheSync(ctx); err != nil {
				var ns *cache.NotSyncedError
				t.Fatalf("WaitForCacheSync: %v (NotSyncedError: %v)", err, errors.As(err, &ns))
			}
			if got, _ := widgets.Lister().List(labels.Everything()); len(got) != c.want {
				t.Errorf("widgets = %d, want %d", len(got), c.want)
			}
			if c.name != "tweaked" {
				if got, _ := nodes.Lister().List(labels.Everything()); len(got) != 1 {
					t.Errorf("cluster-scoped nodes = %d, want 1", len(got))
				}
			}
		})
	}
}

// TestGeneratedTypedNamesRun drives client-go v0.37's names in the golden
// code: the version method's Typed<Type>Informer, TypedInformer (the very
// informer Informer returns), <Type>HandlerFuncs whose DeleteFunc gets a
// Deleted<Type>, <Type>Indexers, the factory's InformerName, and an unshared
// informer from NewTyped<Type>InformerWithOptions.
func TestGeneratedTypedNamesRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := versioned.NewFake()
	if _, err := client.Widgets.Create(widget("ns1", "a", 5)); err != nil {
		t.Fatal(err)
	}
	name, err := cache.NewInformerName("typed-names")
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	f := externalversions.NewSharedInformerFactoryWithOptions(client, 0, externalversions.WithInformerName(name))
	if f.InformerName() != name {
		t.Errorf("InformerName() = %v, want the name given", f.InformerName())
	}
	widgets := f.Example().V1().Widgets() // a TypedWidgetInformer
	typed := widgets.TypedInformer()
	if cache.SharedIndexInformer[*examplev1.Widget](typed) != widgets.Informer() {
		t.Error("TypedInformer is not the informer Informer returns")
	}
	if examplev1informers.ToWidgetIndexInformer(widgets.Informer()) != typed {
		t.Error("ToWidgetIndexInformer wrapped an informer that already is one")
	}
	if examplev1informers.ToTypedWidgetInformer(widgets) != widgets {
		t.Error("ToTypedWidgetInformer wrapped an informer that already is one")
	}
	bySize := examplev1informers.WidgetIndexers{"size": func(w *examplev1.Widget) ([]string, error) { return []string{fmt.Sprint(w.Spec.Size)}, nil }}
	if err := typed.AddTypedIndexers(bySize); err != nil {
		t.Fatal(err)
	}
	added, deleted := make(chan string, 10), make(chan examplev1informers.DeletedWidget, 10)
	if _, err := typed.AddTypedEventHandler(examplev1informers.WidgetHandlerFuncs{
		AddFunc:    func(w *examplev1.Widget) { added <- w.Name },
		DeleteFunc: func(d examplev1informers.DeletedWidget) { deleted <- d },
	}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	defer f.Shutdown()
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatalf("WaitForCacheSync: %v", err)
	}
	if got := <-added; got != "a" {
		t.Errorf("added %q, want a", got)
	}
	if ws, err := typed.GetTypedIndexer().ByIndex("size", "5"); err != nil || len(ws) != 1 {
		t.Errorf("ByIndex(size, 5) = %v, %v", ws, err)
	}
	if err := client.Widgets.Delete("ns1", "a"); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-deleted:
		if d.GetName() != "a" || d.FinalStateUnknown != nil {
			t.Errorf("deleted %+v, want a, not a tombstone", d)
		}
	case <-ctx.Done():
		t.Fatal("no delete notification")
	}

	unshared := examplev1informers.NewTypedWidgetInformerWithOptions(client, "ns1", internalinterfaces.InformerOptions{
		Indexers: cache.TypedIndexersToIndexers(bySize),
	})
	go unshared.Run(ctx)
	if err := cache.WaitForSync(ctx, unshared); err != nil {
		t.Fatalf("unshared informer: %v", err)
	}
	if _, err := unshared.GetTypedIndexer().ByTypedIndex("size", "5"); err != nil { // "a" is gone: only the index must exist
		t.Errorf("unshared informer lacks the size index: %v", err)
	}
	// InformerOptions serves every type of the package: another type's
	// indexers are refused when the informer is built, and it says so.
	wrong := examplev1informers.NewWidgetInformerWithOptions(client, "ns1", internalinterfaces.InformerOptions{
		Indexers: cache.Indexers[*corev1.Node]{},
	})
	if err := wrong.LastError(); err == nil || !strings.Contains(err.Error(), "AnyIndexers holds cache.Indexers[*") || !strings.Contains(err.Error(), "v1.Node]") {
		t.Errorf("informer with a Node indexer for Widgets: LastError() = %v", err)
	}
}
