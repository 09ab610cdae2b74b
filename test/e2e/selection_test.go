package e2e

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	kubeinformers "github.com/typedinformer/typedinformer/kube/informers"
	corev1listers "github.com/typedinformer/typedinformer/kube/listers/core/v1"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// selected is one informer under test (or a union of some, which has no
// handler: rec is nil): how to read its cache and handler, and the
// selector it currently applies beyond the test label.
type selected struct {
	name   string
	rec    *recorder[*configMap]
	list   func() ([]*configMap, error)
	sel    string
	setSel func(string) error
	// last is what the informer held after the previous step (key ->
	// resourceVersion), and want each key's expected notifications.
	last map[string]string
	want map[string][]eventKind
}

// tierOps writes the test's ConfigMaps, each labelled with the test label
// and a tier.
type tierOps struct {
	c     clients
	ns    string
	label string
}

func (o tierOps) create(ctx context.Context, name, tier string) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: o.ns, Name: name, Labels: map[string]string{labelKey: o.label, "tier": tier}}}
	_, err := o.c.kube.CoreV1().ConfigMaps(o.ns).Create(ctx, cm, metav1.CreateOptions{})
	return err
}

func (o tierOps) relabel(ctx context.Context, name, tier string) error {
	cm, err := o.c.kube.CoreV1().ConfigMaps(o.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	cm.Labels["tier"] = tier
	_, err = o.c.kube.CoreV1().ConfigMaps(o.ns).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

func (o tierOps) remove(ctx context.Context, name string) error {
	return o.c.kube.CoreV1().ConfigMaps(o.ns).Delete(ctx, name, metav1.DeleteOptions{})
}

// server lists, consistently, the test's ConfigMaps that sel selects.
func (o tierOps) server(ctx context.Context, sel string) (map[string]string, error) {
	ls := labelKey + "=" + o.label
	if sel != "" {
		ls += "," + sel
	}
	l, err := o.c.kube.CoreV1().ConfigMaps(o.ns).List(ctx, metav1.ListOptions{LabelSelector: ls})
	if err != nil {
		return nil, err
	}
	return versions(pointers(l.Items)), nil
}

// converge waits until each informer's cache and its handler's view equal
// the server's objects under the informer's selector, then records the
// notifications that step implies: an add for a key that entered, a
// delete for one that left, an update for one whose resourceVersion
// changed.
func converge(t *testing.T, ctx context.Context, o tierOps, step string, infs ...*selected) {
	t.Helper()
	for _, s := range infs {
		var want map[string]string
		eventually(t, 30*time.Second, step+": "+s.name+" equals the server", func() error {
			var err error
			if want, err = o.server(ctx, s.sel); err != nil {
				return err
			}
			objs, err := s.list()
			if err != nil {
				return err
			}
			if d := diffVersions(versions(objs), want); d != "" {
				return fmt.Errorf("lister: %s", d)
			}
			if s.rec == nil {
				return nil
			}
			if d := diffVersions(s.rec.viewVersions(), want); d != "" {
				return fmt.Errorf("handler: %s", d)
			}
			return nil
		})
		for k, rv := range want {
			switch old, ok := s.last[k]; {
			case !ok:
				s.want[k] = append(s.want[k], added)
			case old != rv:
				s.want[k] = append(s.want[k], updated)
			}
		}
		for k := range s.last {
			if _, ok := want[k]; !ok {
				s.want[k] = append(s.want[k], deleted)
			}
		}
		s.last = want
	}
}

// transcript checks that s's handler was told exactly the notifications
// the steps imply, each key's in order (relist updates that change nothing
// left out).
func transcript(t *testing.T, s *selected) {
	t.Helper()
	if err := s.rec.check(); err != nil {
		t.Errorf("%s's handler: %v", s.name, err)
	}
	keys := slices.Sorted(maps.Keys(s.want))
	for _, k := range s.rec.keys() {
		if _, ok := s.want[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		var got []eventKind
		for _, e := range s.rec.events(k) {
			got = append(got, e.kind)
		}
		if !slices.Equal(got, s.want[k]) {
			t.Errorf("%s's handler was told %s: %v, want %v", s.name, k, s.rec.events(k), s.want[k])
		}
	}
}

// TestSelectorChangesOnTheServer changes the selectors of generated
// ConfigMap informers while ConfigMaps are created, relabelled and deleted
// on kube-apiserver. After each step every informer's lister and its
// handler's view must equal the server's list under the informer's
// selection, and at the end each handler must have been told each
// ConfigMap's adds, updates and deletes exactly as the steps imply, in
// order. "one informer" changes a factory's selectors; "two views" runs two
// informers of ConfigMaps in one factory (views with disjoint, then
// overlapping, selections), whose union lister must list each ConfigMap
// once. A last phase changes selectors while a writer keeps writing, and
// checks what must hold whatever the interleaving.
func TestSelectorChangesOnTheServer(t *testing.T) {
	ctx := context.Background()
	c, ns := adminIn(t, 1)
	label := testLabel(t)
	o := tierOps{c: c, ns: ns[0], label: label}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, tier := range []string{"a", "a", "a", "b", "b", "c"} {
		must(o.create(ctx, fmt.Sprintf("cm-%d", i), tier))
	}

	factory := newKubeFactory(c, withLabel(label))
	web := kubeinformers.NewSharedInformerFactoryWithOptions(c.kube, 0, informers.WithSelectionOf(factory.Base(), "tier=a", ""))
	api := kubeinformers.NewSharedInformerFactoryWithOptions(c.kube, 0, informers.WithSelectionOf(factory.Base(), "tier=b", ""))
	single := newKubeFactory(c, withLabel(label))
	must(single.Base().SetSelectors("tier=a", ""))

	mk := func(name string, f kubeinformers.SharedInformerFactory, sel string) *selected {
		setSel := func(label string) error { return f.Base().SetSelectors(label, "") }
		inf := configMapInformer(f)
		rec, _ := recordOn(t, inf)
		lister := f.Core().V1().ConfigMaps().Lister()
		return &selected{
			name: name, rec: rec, sel: sel, setSel: setSel,
			list: func() ([]*configMap, error) { return lister.List(labels.Everything()) },
			last: map[string]string{}, want: map[string][]eventKind{},
		}
	}
	one := mk("one informer", single, "tier=a")
	webInf := mk("view web", web, "tier=a")
	apiInf := mk("view api", api, "tier=b")
	if configMapInformer(web) == configMapInformer(api) || len(factory.Base().Informers()) != 0 {
		t.Fatal("the views do not hold one informer each")
	}
	unionLister := corev1listers.NewConfigMapLister(informers.UnionIndexer[*configMap](factory.Base()))
	union := &selected{
		name: "union of the views", sel: "tier in (a,b)",
		list: func() ([]*configMap, error) {
			objs, err := unionLister.List(labels.Everything())
			if err == nil && len(versions(objs)) != len(objs) {
				err = fmt.Errorf("the union lists a key twice: %d objects, %d keys", len(objs), len(versions(objs)))
			}
			return objs, err
		},
		last: map[string]string{}, want: map[string][]eventKind{},
	}
	// Only the parent factories are started: the views' informers are theirs.
	runFactory(t, factory)
	runFactory(t, single)
	for _, f := range []kubeinformers.SharedInformerFactory{factory, single} {
		if _, err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	all := []*selected{one, webInf, apiInf}
	check := func(step string) {
		t.Helper()
		converge(t, ctx, o, step, append(all, union)...)
	}
	setSel := func(s *selected, sel string) {
		t.Helper()
		must(s.setSel(sel))
		s.sel = sel
	}
	check("initial")

	must(o.relabel(ctx, "cm-2", "b"))
	must(o.create(ctx, "cm-6", "a"))
	must(o.remove(ctx, "cm-3"))
	check("relabel a to b, create, delete")

	setSel(one, "tier in (a,b)")
	setSel(apiInf, "tier in (b,c)")
	union.sel = "tier in (a,b,c)"
	check("widen the selections")

	must(o.relabel(ctx, "cm-0", "c"))
	must(o.relabel(ctx, "cm-5", "a"))
	must(o.remove(ctx, "cm-4"))
	check("relabel across selections, delete")

	setSel(one, "tier=c")
	setSel(webInf, "tier in (a,c)")
	check("narrow one informer, make the views overlap")

	must(o.create(ctx, "cm-7", "c"))
	must(o.relabel(ctx, "cm-1", "b"))
	check("create in the overlap, relabel")

	setSel(one, "")
	setSel(webInf, "tier=a")
	setSel(apiInf, "tier=b")
	union.sel = "tier in (a,b)"
	check("the views disjoint again, one informer takes all")
	for _, s := range all {
		transcript(t, s)
	}

	// Concurrent phase: selectors change while a writer works.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var writeErr error
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		tiers := []string{"a", "b", "c"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("cm-x%d", rng.IntN(8))
			var err error
			switch rng.IntN(3) {
			case 0:
				err = o.create(ctx, name, tiers[rng.IntN(3)])
			case 1:
				err = o.relabel(ctx, name, tiers[rng.IntN(3)])
			case 2:
				err = o.remove(ctx, name)
			}
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsAlreadyExists(err) && !apierrors.IsConflict(err) {
				writeErr = err
				return
			}
		}
	})
	for i, sels := range [][3]string{
		{"tier=b", "tier in (a,b)", "tier=c"},
		{"tier!=a", "tier=a", "tier in (b,c)"},
		{"", "tier=c", "tier=a"},
		{"tier in (a,c)", "tier=a", "tier=b"},
	} {
		must(one.setSel(sels[0]))
		must(webInf.setSel(sels[1]))
		must(apiInf.setSel(sels[2]))
		one.sel, webInf.sel, apiInf.sel = sels[0], sels[1], sels[2]
		time.Sleep(time.Duration(200+100*i) * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	must(writeErr)
	union.sel = "tier in (a,b)"
	// Only the final state is known: each handler's view and each lister
	// must match it, with no contradiction in between (an add of a key
	// the handler holds, a delete or update of one it does not, an older
	// version after a newer one).
	converge(t, ctx, o, "after the concurrent phase", append(all, union)...)
	for _, s := range all {
		if err := s.rec.check(); err != nil {
			t.Errorf("%s's handler after the concurrent phase: %v", s.name, err)
		}
	}
}
