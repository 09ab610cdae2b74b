package informers_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// generatedStyle builds informers the way informer-gen's code does: the
// factory's TweakListOptions is read once, when the informer is built, and
// applied to every list and watch; the informer names the Resource a
// WriteTracker matches writes by.
func generatedStyle(f *informers.Factory, srv *fake.Server[*corev1.Pod]) informers.NewInformerFunc[*corev1.Pod] {
	return func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
		lw := srv.ListerWatcher(ns)
		tweak := f.TweakListOptions()
		return cache.NewSharedIndexInformerWithOptions[*corev1.Pod](&cache.ListWatch{
			ListFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				tweak(&o)
				return lw.List(ctx, o)
			},
			WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				tweak(&o)
				return lw.Watch(ctx, o)
			},
		}, cache.SharedIndexInformerOptions[*corev1.Pod]{
			ResyncPeriod: resync,
			Resource:     podsGVR,
			Reflector:    cache.ReflectorOptions{DisableWatchList: true, InitialBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond},
		})
	}
}

func podKeys(objs []*corev1.Pod) string {
	var ks []string
	for _, p := range objs {
		ks = append(ks, testutil.Key(p))
	}
	sortStrings(ks)
	return strings.Join(ks, " ")
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

// TestFactorySelectionChangesRunningInformers changes a factory's tweak and
// selectors while its informers (a single-namespace one and the children
// of a multi-namespace one) run: each relists with the new value.
func TestFactorySelectionChangesRunningInformers(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []informers.Option
	}{
		{"all namespaces", nil},
		{"namespace set", []informers.Option{informers.WithNamespaces("ns1", "ns2")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewServer[*corev1.Pod]()
			for _, p := range []*corev1.Pod{
				testutil.Pod("ns1", "a1", testutil.Labels("app", "a", "tier", "x")),
				testutil.Pod("ns2", "a2", testutil.Labels("app", "a", "tier", "y")),
				testutil.Pod("ns1", "b1", testutil.Labels("app", "b", "tier", "x")),
				testutil.Pod("ns2", "b2", testutil.Labels("app", "b", "tier", "y")),
			} {
				testutil.MustCreate(t, srv, p)
			}
			opts := append([]informers.Option{informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "app=a" })}, tc.opts...)
			f := informers.NewFactory(0, opts...)
			inf := informers.InformerFor(f, true, generatedStyle(f, srv))
			ctx, cancel := context.WithCancel(context.Background())
			defer func() { cancel(); f.Shutdown() }()
			f.Start(ctx)
			if _, err := f.WaitForCacheSync(ctx); err != nil {
				t.Fatal(err)
			}
			wait := func(want string) {
				t.Helper()
				testutil.Eventually(t, "store "+want, func() bool { return podKeys(inf.GetStore().List()) == want })
			}
			wait("ns1/a1 ns2/a2")
			if err := f.SetTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "app=b" }); err != nil {
				t.Fatal(err)
			}
			wait("ns1/b1 ns2/b2")
			if err := f.SetSelectors("tier=y", ""); err != nil {
				t.Fatal(err)
			}
			wait("ns2/b2")
			// Bad input changes nothing.
			for _, bad := range []struct {
				err  error
				want string
			}{
				{f.SetSelectors("tier in (", ""), `label selector "tier in ("`},
				{f.SetTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "nofield" }), `field selector "nofield" set by the TweakListOptionsFunc`},
			} {
				if bad.err == nil || !strings.Contains(bad.err.Error(), bad.want) {
					t.Errorf("error %v, want one naming %s", bad.err, bad.want)
				}
			}
			testutil.MustCreate(t, srv, testutil.Pod("ns1", "b3", testutil.Labels("app", "b", "tier", "y")))
			wait("ns1/b3 ns2/b2")
			f.Shutdown()
			if err := f.SetSelectors("", ""); !errors.Is(err, informers.ErrShutdown) {
				t.Errorf("SetSelectors after Shutdown: %v, want ErrShutdown", err)
			}
		})
	}
}

// TestFactoryWithSelectionSharesChanges: a factory built WithSelection of
// another's follows that one's changes (as a metadata factory built from a
// typed one does).
func TestFactoryWithSelectionSharesChanges(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	testutil.MustCreate(t, srv, testutil.Pod("ns1", "a", testutil.Labels("app", "a")))
	testutil.MustCreate(t, srv, testutil.Pod("ns1", "b", testutil.Labels("app", "b")))
	base := informers.NewFactory(0, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "app=a" }))
	derived := informers.NewFactory(0, informers.WithSelection(base.Selection()))
	inf := informers.InformerFor(derived, true, generatedStyle(derived, srv))
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); derived.Shutdown(); base.Shutdown() }()
	derived.Start(ctx)
	testutil.Eventually(t, "app=a", func() bool { return podKeys(inf.GetStore().List()) == "ns1/a" })
	if err := base.SetSelectors("", ""); err != nil {
		t.Fatal(err)
	}
	if err := base.SetTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "app=b" }); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "app=b", func() bool { return podKeys(inf.GetStore().List()) == "ns1/b" })
}
