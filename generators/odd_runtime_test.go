package generators_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	mythingsv1 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/my-things/v1"
	shopv1 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/shop/v1"
	shopv2 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/shop/v2"
	shopv3beta1 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/shop/v3beta1"
	typego "github.com/typedinformer/typedinformer/generators/testdata/oddapis/type/go"
	"github.com/typedinformer/typedinformer/generators/testdata/oddclientset/versioned"
	"github.com/typedinformer/typedinformer/generators/testdata/oddgolden/informers/externalversions"
)

// TestOddGeneratedFactoryRuns drives the informers and listers generated for
// testdata/oddapis against the runtime: types that are definitions or
// aliases (of the same package, another package, another module), a
// non-ASCII type name, a dashed group directory and keyword directories must
// all list, and ForResource must find them.
func TestOddGeneratedFactoryRuns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	meta := func(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }
	client := versioned.NewFake()
	mustCreate := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(client.SprocketsV1.Create(&shopv1.Sprocket{ObjectMeta: meta("ns", "s1"), Size: 3}))
	mustCreate(client.CogsV1.Create(&shopv1.Cog{ObjectMeta: meta("ns", "c1")}))
	mustCreate(client.Ñandus.Create(&shopv1.Ñandu{ObjectMeta: meta("", "n1")}))
	mustCreate(client.Wheels.Create(&shopv1.Wheel{Common: shopv1.Common{ObjectMeta: meta("ns", "wh1")}}))
	mustCreate(client.Gizmos.Create(&shopv1.Gizmo{ObjectMeta: meta("ns", "g1"), Spec: shopv1.GizmoSpec{Teeth: 12}}))
	mustCreate(client.SprocketsV2.Create(&shopv2.Sprocket{ObjectMeta: meta("ns", "s2")}))
	mustCreate(client.CogsV2.Create(&shopv2.Cog{ObjectMeta: meta("ns", "c2")}))
	mustCreate(client.Pods.Create(&corev1.Pod{ObjectMeta: meta("ns", "p1")}))
	mustCreate(client.Nodes.Create(&shopv3beta1.Node{ObjectMeta: meta("", "node1")}))
	mustCreate(client.Things.Create(&mythingsv1.Thing{ObjectMeta: meta("ns", "t1")}))
	mustCreate(client.Widgets.Create(&typego.Widget{ObjectMeta: meta("ns", "w1")}))

	f := externalversions.NewSharedInformerFactory(client, 0)
	sprockets := f.Shop().V1().Sprockets()
	cogs := f.Shop().V1().Cogs()
	nandus := f.Shop().V1().Ñandus()
	wheels := f.Shop().V1().Wheels()
	gizmos := f.Shop().V1().Gizmos()
	sprockets2 := f.Shop().V2().Sprockets()
	cogs2 := f.Shop().V2().Cogs()
	pods := f.Shop().V3beta1().Pods()
	nodes := f.Shop().V3beta1().Nodes()
	things := f.MyThings().V1().Things()
	widgets := f.Type().Go().Widgets()
	sprockets.Informer()
	cogs.Informer()
	nandus.Informer()
	wheels.Informer()
	gizmos.Informer()
	sprockets2.Informer()
	cogs2.Informer()
	pods.Informer()
	nodes.Informer()
	things.Informer()
	widgets.Informer()
	f.Start(ctx)
	defer f.Shutdown()
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatalf("WaitForCacheSync: %v", err)
	}

	if s, err := sprockets.Lister().Sprockets("ns").Get("s1"); err != nil || s.Size != 3 {
		t.Errorf("v1 Sprockets(ns).Get(s1) = %v, %v", s, err)
	}
	if c, err := cogs.Lister().Cogs("ns").Get("c1"); err != nil || c.Name != "c1" {
		t.Errorf("v1 Cogs(ns).Get(c1) = %v, %v", c, err)
	}
	if n, err := nandus.Lister().Get("n1"); err != nil || n.Name != "n1" {
		t.Errorf("Ñandus Get(n1) = %v, %v", n, err)
	}
	if w, err := wheels.Lister().Wheels("ns").Get("wh1"); err != nil || w.Name != "wh1" {
		t.Errorf("Wheels(ns).Get(wh1) = %v, %v", w, err)
	}
	if g, err := gizmos.Lister().Gizmos("ns").Get("g1"); err != nil || g.Spec.Teeth != 12 {
		t.Errorf("Gizmos(ns).Get(g1) = %v, %v", g, err)
	}
	if s, err := sprockets2.Lister().Sprockets("ns").Get("s2"); err != nil || s.Name != "s2" {
		t.Errorf("v2 Sprockets(ns).Get(s2) = %v, %v", s, err)
	}
	if c, err := cogs2.Lister().Cogs("ns").Get("c2"); err != nil || c.Name != "c2" {
		t.Errorf("v2 Cogs(ns).Get(c2) = %v, %v", c, err)
	}
	if p, err := pods.Lister().Pods("ns").Get("p1"); err != nil || p.Name != "p1" {
		t.Errorf("Pods(ns).Get(p1) = %v, %v", p, err)
	}
	if n, err := nodes.Lister().Get("node1"); err != nil || n.Name != "node1" {
		t.Errorf("Nodes Get(node1) = %v, %v", n, err)
	}
	if all, err := things.Lister().List(labels.Everything()); err != nil || len(all) != 1 {
		t.Errorf("Things List = %d, %v; want 1", len(all), err)
	}
	if all, err := widgets.Lister().Widgets("ns").List(labels.Everything()); err != nil || len(all) != 1 {
		t.Errorf("Widgets(ns) List = %d, %v; want 1", len(all), err)
	}
	for _, gvr := range []schema.GroupVersionResource{
		{Group: "type.example.com", Version: "go", Resource: "widgets"},
		{Group: "shop.example.com", Version: "v1", Resource: "ñandus"},
		{Group: "shop.example.com", Version: "v2", Resource: "sprockets"},
		{Group: "shop.example.com", Version: "v3beta1", Resource: "pods"},
		{Group: "my-things.example.com", Version: "v1", Resource: "things"},
	} {
		gi, err := f.ForResource(gvr)
		if err != nil {
			t.Errorf("ForResource(%v): %v", gvr, err)
			continue
		}
		if objs, err := gi.Lister().List(labels.Everything()); err != nil || len(objs) != 1 {
			t.Errorf("ForResource(%v).Lister().List = %d, %v; want 1", gvr, len(objs), err)
		}
	}
}
