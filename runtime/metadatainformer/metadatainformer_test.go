package metadatainformer_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/lean"
	"github.com/typedinformer/typedinformer/runtime/metadatainformer"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// fakeClient serves one resource's metadata from a fake.Server and records
// the namespaces of its full syncs (lists and watch-lists).
type fakeClient struct {
	srv *fake.Server[*metav1.PartialObjectMetadata]
	gvr schema.GroupVersionResource

	mu    sync.Mutex
	lists []string
}

func (c *fakeClient) client() metadatainformer.Client {
	return metadatainformer.ClientFuncs{
		ListFunc: func(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
			if gvr != c.gvr {
				return nil, apierrors.NewNotFound(gvr.GroupResource(), "")
			}
			c.mu.Lock()
			c.lists = append(c.lists, ns)
			c.mu.Unlock()
			obj, err := c.srv.ListerWatcher(ns).List(ctx, o)
			if err != nil {
				return nil, err
			}
			l := obj.(*fake.List[*metav1.PartialObjectMetadata])
			out := &metav1.PartialObjectMetadataList{ListMeta: l.ListMeta}
			for _, it := range l.Items {
				out.Items = append(out.Items, *it)
			}
			return out, nil
		},
		WatchFunc: func(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (watch.Interface, error) {
			if o.SendInitialEvents != nil && *o.SendInitialEvents {
				// A watch-list (the default) is a full sync too.
				c.mu.Lock()
				c.lists = append(c.lists, ns)
				c.mu.Unlock()
			}
			return c.srv.ListerWatcher(ns).Watch(ctx, o)
		},
	}
}

func (c *fakeClient) listNamespaces() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lists...)
}

func meta(ns, name string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}},
	}
}

func newFakeClient(t *testing.T, objs ...*metav1.PartialObjectMetadata) *fakeClient {
	t.Helper()
	srv := fake.NewServer[*metav1.PartialObjectMetadata](fake.WithResource(deployments.GroupResource()))
	for _, o := range objs {
		if _, err := srv.Create(o); err != nil {
			t.Fatal(err)
		}
	}
	return &fakeClient{srv: srv, gvr: deployments}
}

func startFactory(t *testing.T, f *metadatainformer.Factory) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); f.Shutdown() })
	f.Start(ctx)
	sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
	defer scancel()
	if synced, err := f.WaitForCacheSync(sctx); err != nil || !synced[deployments] {
		t.Fatalf("WaitForCacheSync = %v, %v", synced, err)
	}
}

func TestFactoryTypedInformerAndListerOverNamespacesWithLean(t *testing.T) {
	fc := newFakeClient(t, meta("a", "web"), meta("b", "db"), meta("c", "other"))
	f := metadatainformer.NewFactory(fc.client(), 0, informers.WithNamespaces("a", "b"),
		informers.WithLean(lean.Options{StripManagedFields: true}))
	deps := f.ForResource(deployments)
	if f.ForResource(deployments).Informer() != deps.Informer() {
		t.Fatal("a second ForResource built another informer")
	}
	startFactory(t, f)
	if got := strings.Join(fc.listNamespaces(), ","); got != "a,b" && got != "b,a" {
		t.Fatalf("lists in namespaces %q, want one per namespace a and b", got)
	}
	web, err := deps.Lister().Namespace("a").Get("web")
	if err != nil {
		t.Fatal(err)
	}
	if web.Labels["app"] != "web" || web.ManagedFields != nil {
		t.Fatalf("cached %+v, want labels kept and managedFields stripped", web.ObjectMeta)
	}
	all, _ := deps.Lister().List(labels.Everything())
	if len(all) != 2 {
		t.Fatalf("lister holds %d objects, want the 2 of namespaces a and b", len(all))
	}
	if _, err := deps.Lister().Namespace("c").Get("other"); !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "deployments.apps") {
		t.Fatalf("Get outside the namespaces = %v, want NotFound naming deployments.apps", err)
	}
	// Changes arrive through the watch.
	if _, err := fc.srv.Create(meta("b", "late")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the late object", func() bool { _, err := deps.Lister().Namespace("b").Get("late"); return err == nil })
}

func TestFactoryClusterResourceListsOnce(t *testing.T) {
	fc := newFakeClient(t, meta("", "n1"))
	f := metadatainformer.NewFactory(fc.client(), 0, informers.WithNamespaces("a", "b"))
	nodes := f.ForClusterResource(deployments)
	startFactory(t, f)
	if got := fc.listNamespaces(); len(got) != 1 || got[0] != "" {
		t.Fatalf("lists in %q, want one over all namespaces", got)
	}
	if _, err := nodes.Lister().Get("n1"); err != nil {
		t.Fatal(err)
	}
}

func TestNewFactoryFromBaseCopiesTheGeneratedFactoryConfig(t *testing.T) {
	fc := newFakeClient(t, meta("a", "web"), meta("b", "db"))
	var tweaked sync.Map
	base := informers.NewFactory(0, informers.WithNamespace("a"),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { tweaked.Store("yes", true) }),
		informers.WithLean(lean.Options{StripManagedFields: true}))
	f := metadatainformer.NewFactoryFromBase(fc.client(), base)
	deps := f.ForResource(deployments)
	startFactory(t, f)
	if got := fc.listNamespaces(); len(got) != 1 || got[0] != "a" {
		t.Fatalf("lists in %q, want the base's namespace a", got)
	}
	if _, ok := tweaked.Load("yes"); !ok {
		t.Fatal("the base's tweak was not applied")
	}
	web, err := deps.Lister().Namespace("a").Get("web")
	if err != nil || web.ManagedFields != nil {
		t.Fatalf("cached %v (%v), want managedFields stripped by the base's lean mode", web, err)
	}
}

// TestNewFactoryFromBaseOfAView: a metadata factory built from a view
// applies the parent's selection and the view's, and follows changes of
// either, as the view's own informers do.
func TestNewFactoryFromBaseOfAView(t *testing.T) {
	fc := newFakeClient(t, meta("a", "web"), meta("a", "db"), meta("a", "cache"))
	parent := informers.NewFactory(0)
	if err := parent.SetSelectors("app!=db", ""); err != nil {
		t.Fatal(err)
	}
	view, err := parent.ForSelection("app!=cache", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := view.Selections(); len(got) != 2 || got[0] != parent.Selection() || got[1] != view.Selection() {
		t.Fatalf("the view's Selections are %v, want the parent's then its own", got)
	}
	f := metadatainformer.NewFactoryFromBase(fc.client(), view)
	deps := f.ForResource(deployments)
	startFactory(t, f)
	names := func() string {
		objs, _ := deps.Lister().List(labels.Everything())
		var ns []string
		for _, o := range objs {
			ns = append(ns, o.Name)
		}
		slices.Sort(ns)
		return strings.Join(ns, ",")
	}
	if got := names(); got != "web" {
		t.Fatalf("cached %q, want web alone (app!=db from the parent, app!=cache from the view)", got)
	}
	if err := parent.SetSelectors("", ""); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the parent's change to reach the metadata informer", func() bool { return names() == "db,web" })
	if err := view.SetSelectors("app=db", ""); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the view's change to reach the metadata informer", func() bool { return names() == "db" })
}

func TestFactoryInformerRequestedAfterStartRuns(t *testing.T) {
	fc := newFakeClient(t, meta("a", "web"))
	f := metadatainformer.NewFactory(fc.client(), 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	f.Start(ctx)
	deps := f.ForResource(deployments)
	testutil.Eventually(t, "the late informer to sync", deps.Informer().HasSynced)
}

func TestClientFuncsNilFuncIsAnError(t *testing.T) {
	var c metadatainformer.ClientFuncs
	if _, err := c.List(context.Background(), deployments, "", metav1.ListOptions{}); err == nil {
		t.Fatal("nil ListFunc: no error")
	}
	if _, err := c.Watch(context.Background(), deployments, "", metav1.ListOptions{}); err == nil {
		t.Fatal("nil WatchFunc: no error")
	}
}

func TestNewFactoryFromBaseCarriesTheShardScope(t *testing.T) {
	fc := newFakeClient(t, meta("a", "web"), meta("b", "db"))
	h := sharding.Hash("a")
	scope, err := sharding.NewScope(sharding.FieldNamespace, []sharding.Range{{First: h, Last: h}})
	if err != nil {
		t.Fatal(err)
	}
	f := metadatainformer.NewFactoryFromBase(fc.client(), informers.NewFactory(0, informers.WithShardScope(scope)))
	deps := f.ForResource(deployments)
	startFactory(t, f)
	all, _ := deps.Lister().List(labels.Everything())
	if len(all) != 1 || all[0].Namespace != "a" {
		t.Fatalf("lister holds %v, want only the shard's object a/web", all)
	}
}

// TestFactoryRemoveInformer: a removed resource's informer stops, the
// factory forgets it and builds a fresh one on the next ForResource;
// removing what the factory does not hold is an error naming it.
func TestFactoryRemoveInformer(t *testing.T) {
	fc := newFakeClient(t, meta("a", "web"))
	f := metadatainformer.NewFactory(fc.client(), 0)
	old := f.ForResource(deployments)
	startFactory(t, f)
	if got := f.Resources(); len(got) != 1 || got[0] != deployments {
		t.Fatalf("Resources = %v, want [%v]", got, deployments)
	}
	if err := f.RemoveInformer(deployments); err != nil {
		t.Fatal(err)
	}
	if got := f.Resources(); len(got) != 0 {
		t.Fatalf("Resources after the removal = %v, want none", got)
	}
	if err := f.RemoveInformer(deployments); err == nil || !strings.Contains(err.Error(), "deployments") {
		t.Fatalf("removing it again: %v, want an error naming deployments", err)
	}
	fresh := f.ForResource(deployments)
	if fresh.Informer() == old.Informer() {
		t.Fatal("ForResource after the removal returned the removed informer")
	}
	testutil.Eventually(t, "the fresh informer to sync", fresh.Informer().HasSynced)
}
