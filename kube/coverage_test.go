package kube_test

import (
	"context"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/kube"
	"github.com/typedinformer/typedinformer/kube/informers"
)

// accessor is one resource's informer as a factory reaches it:
// factory.Group().Version().Resource().
type accessor struct {
	path  []string     // {"Apps", "V1", "Deployments"}
	typ   reflect.Type // the interface the resource method returns
	value reflect.Value
}

func (a accessor) String() string { return strings.Join(a.path, ".") }

// accessors walks a factory interface type (and, when factory is valid, the
// values it returns): a method without arguments returning an interface
// declared under the informers package root leads one level down; an
// interface with an Informer method is a resource's.
func accessors(t reflect.Type, v reflect.Value, root string, path []string) []accessor {
	if _, ok := t.MethodByName("Informer"); ok && len(path) > 0 {
		return []accessor{{path: slices.Clone(path), typ: t, value: v}}
	}
	var out []accessor
	for i := range t.NumMethod() {
		m := t.Method(i)
		if m.Type.NumIn() != 0 || m.Type.NumOut() != 1 {
			continue
		}
		rt := m.Type.Out(0)
		if rt.Kind() != reflect.Interface || !strings.HasPrefix(rt.PkgPath(), root+"/") {
			continue
		}
		var next reflect.Value
		if v.IsValid() {
			next = v.MethodByName(m.Name).Call(nil)[0]
		}
		out = append(out, accessors(rt, next, root, append(path, m.Name))...)
	}
	return out
}

// methodNames lists t's method names; with nested, for methods returning an
// interface (a lister's <Resource>(namespace) returning its namespace
// lister) also "Method.Sub" for each method of that interface.
func methodNames(t reflect.Type, nested bool) []string {
	var out []string
	for i := range t.NumMethod() {
		m := t.Method(i)
		out = append(out, m.Name)
		if nested && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Interface && m.Type.Out(0).NumMethod() > 0 {
			for j := range m.Type.Out(0).NumMethod() {
				out = append(out, m.Name+"."+m.Type.Out(0).Method(j).Name)
			}
		}
	}
	return out
}

// missing returns the elements of want that have is lacking.
func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

const (
	clientGoInformers = "k8s.io/client-go/informers"
	ourInformers      = "github.com/typedinformer/typedinformer/kube/informers"
)

// TestFactoryCoversClientGo compares the factory with client-go's
// informers.SharedInformerFactory of the same k8s.io/api version: the same
// group, version and resource accessors, every method client-go's resource
// informers and their listers (namespace listers included) have, and the
// factory's own methods (Start, Shutdown, WaitForCacheSync, ForResource, ...).
// The informers themselves are the runtime's typed SharedIndexInformer[T],
// not client-go's untyped one, so their methods are not compared.
func TestFactoryCoversClientGo(t *testing.T) {
	theirsT := reflect.TypeFor[clientgoinformers.SharedInformerFactory]()
	oursT := reflect.TypeFor[informers.SharedInformerFactory]()
	theirs := accessors(theirsT, reflect.Value{}, clientGoInformers, nil)
	ours := accessors(oursT, reflect.Value{}, ourInformers, nil)
	if len(theirs) < 100 {
		t.Fatalf("found only %d resources in client-go's factory: the walk is broken", len(theirs))
	}
	byPath := map[string]accessor{}
	for _, a := range ours {
		byPath[a.String()] = a
	}
	var names []string
	for _, a := range theirs {
		names = append(names, a.String())
		o, ok := byPath[a.String()]
		if !ok {
			t.Errorf("client-go's factory has %s, ours does not", a)
			continue
		}
		if m := missing(methodNames(a.typ, false), methodNames(o.typ, false)); len(m) > 0 {
			t.Errorf("%s: client-go's informer has %v, ours does not", a, m)
		}
		lt, _ := a.typ.MethodByName("Lister")
		ol, ok := o.typ.MethodByName("Lister")
		if !ok {
			t.Errorf("%s: client-go's has a Lister, ours does not", a)
			continue
		}
		if m := missing(methodNames(lt.Type.Out(0), true), methodNames(ol.Type.Out(0), true)); len(m) > 0 {
			t.Errorf("%s.Lister(): client-go's lister has %v, ours does not", a, m)
		}
	}
	for _, a := range ours {
		if !slices.Contains(names, a.String()) {
			t.Errorf("our factory has %s, client-go's does not", a)
		}
	}
	var factoryMethods []string
	for i := range theirsT.NumMethod() {
		if m := theirsT.Method(i); m.Type.NumOut() != 1 || m.Type.Out(0).Kind() != reflect.Interface || !strings.HasPrefix(m.Type.Out(0).PkgPath(), clientGoInformers+"/") {
			factoryMethods = append(factoryMethods, m.Name)
		}
	}
	// InformerFor cannot be a method: it is generic in the object type.
	// Typed code calls runtime/informers.InformerFor[T](factory.Base(), ...).
	factoryMethods = slices.DeleteFunc(factoryMethods, func(m string) bool { return m == "InformerFor" })
	if m := missing(factoryMethods, methodNames(oursT, false)); len(m) > 0 {
		t.Errorf("client-go's factory has %v, ours does not", m)
	}
	t.Logf("%d resources, factory methods %v", len(theirs), factoryMethods)
}

// TestEveryInformerSyncs requests every informer of the factory and the
// generic informer of each resource through ForResource, starts them on
// client-go's fake clientset and waits for all to sync: every generated
// list and watch call reaches the clientset's resource it should, and
// ForResource knows every resource.
func TestEveryInformerSyncs(t *testing.T) {
	client := newClient()
	f := informers.NewSharedInformerFactory(client, 0)
	defer f.Shutdown()
	all := accessors(reflect.TypeFor[informers.SharedInformerFactory](), reflect.ValueOf(f), ourInformers, nil)
	for _, a := range all {
		a.value.MethodByName("Informer").Call(nil)
		gvr := resourceOf(t, a)
		if _, err := f.ForResource(gvr); err != nil {
			t.Errorf("%s: ForResource(%s): %v", a, gvr, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLimit)
	defer cancel()
	f.Start(ctx)
	synced, err := f.WaitForCacheSync(ctx)
	if err != nil {
		t.Fatalf("WaitForCacheSync: %v", err)
	}
	if len(synced) != len(all) {
		t.Errorf("%d informers synced, want one per resource: %d", len(synced), len(all))
	}
}

// resourceOf derives a's GroupVersionResource: the group and version of the
// object type its lister returns (from client-go's scheme) and the resource
// method's name, lower-cased, as client-gen's plural is.
func resourceOf(t *testing.T, a accessor) schema.GroupVersionResource {
	t.Helper()
	l, _ := a.typ.MethodByName("Lister")
	list, _ := l.Type.Out(0).MethodByName("List")
	elem := list.Type.Out(0).Elem() // *v1.Deployment
	gvks, _, err := scheme.Scheme.ObjectKinds(reflect.New(elem.Elem()).Interface().(object))
	if err != nil || len(gvks) == 0 {
		t.Fatalf("%s: %s is not in client-go's scheme: %v", a, elem, err)
	}
	return gvks[0].GroupVersion().WithResource(strings.ToLower(a.path[len(a.path)-1]))
}

// TestStatedVersion checks that kube.APIVersion is the k8s.io/api this
// module builds with, and that client-go and apimachinery are at the same
// version.
func TestStatedVersion(t *testing.T) {
	for _, m := range []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"} {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", m).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", m, err)
		}
		if v := strings.TrimSpace(string(out)); v != kube.APIVersion {
			t.Errorf("kube.APIVersion = %s, but go.mod requires %s %s", kube.APIVersion, m, v)
		}
	}
}
