package kube_test

import (
	"context"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/kube/informers"
	appsinformers "github.com/typedinformer/typedinformer/kube/informers/apps/v1"
	coreinformers "github.com/typedinformer/typedinformer/kube/informers/core/v1"
	"github.com/typedinformer/typedinformer/kube/informers/internalinterfaces"
	rbacinformers "github.com/typedinformer/typedinformer/kube/informers/rbac/v1"
	corelisters "github.com/typedinformer/typedinformer/kube/listers/core/v1"
	rbaclisters "github.com/typedinformer/typedinformer/kube/listers/rbac/v1"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

func meta(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }

// TestFactoryInformers runs informers the factory shares, reached as
// client-go's are (factory.Group().Version().Resource()), for namespaced and
// cluster-scoped types of several groups, with their listers.
func TestFactoryInformers(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, client *watchedClient, f informers.SharedInformerFactory)
	}{
		{"core/v1 configmaps", func(t *testing.T, c *watchedClient, f informers.SharedInformerFactory) {
			i := f.Core().V1().ConfigMaps()
			lifecycle[*corev1.ConfigMap]{
				gvr:       corev1.SchemeGroupVersion.WithResource("configmaps"),
				newObject: func(ns, name string) *corev1.ConfigMap { return &corev1.ConfigMap{ObjectMeta: meta(ns, name)} },
				get:       func(ns, name string) (*corev1.ConfigMap, error) { return i.Lister().ConfigMaps(ns).Get(name) },
				list:      func() ([]*corev1.ConfigMap, error) { return i.Lister().List(labels.Everything()) },
			}.run(t, c, i.Informer(), f.Start)
		}},
		{"core/v1 endpoints (plural exception)", endpointsLifecycle},
		{"core/v1 nodes (cluster-scoped)", func(t *testing.T, c *watchedClient, f informers.SharedInformerFactory) {
			i := f.Core().V1().Nodes()
			lifecycle[*corev1.Node]{
				gvr:       corev1.SchemeGroupVersion.WithResource("nodes"),
				newObject: func(_, name string) *corev1.Node { return &corev1.Node{ObjectMeta: meta("", name)} },
				get:       func(_, name string) (*corev1.Node, error) { return i.Lister().Get(name) },
				list:      func() ([]*corev1.Node, error) { return i.Lister().List(labels.Everything()) },
			}.run(t, c, i.Informer(), f.Start)
		}},
		{"apps/v1 deployments", func(t *testing.T, c *watchedClient, f informers.SharedInformerFactory) {
			i := f.Apps().V1().Deployments()
			lifecycle[*appsv1.Deployment]{
				gvr:       appsv1.SchemeGroupVersion.WithResource("deployments"),
				newObject: func(ns, name string) *appsv1.Deployment { return &appsv1.Deployment{ObjectMeta: meta(ns, name)} },
				get:       func(ns, name string) (*appsv1.Deployment, error) { return i.Lister().Deployments(ns).Get(name) },
				list:      func() ([]*appsv1.Deployment, error) { return i.Lister().List(labels.Everything()) },
			}.run(t, c, i.Informer(), f.Start)
		}},
		{"networking.k8s.io/v1 ingresses", func(t *testing.T, c *watchedClient, f informers.SharedInformerFactory) {
			i := f.Networking().V1().Ingresses()
			lifecycle[*networkingv1.Ingress]{
				gvr:       networkingv1.SchemeGroupVersion.WithResource("ingresses"),
				newObject: func(ns, name string) *networkingv1.Ingress { return &networkingv1.Ingress{ObjectMeta: meta(ns, name)} },
				get:       func(ns, name string) (*networkingv1.Ingress, error) { return i.Lister().Ingresses(ns).Get(name) },
				list:      func() ([]*networkingv1.Ingress, error) { return i.Lister().List(labels.Everything()) },
			}.run(t, c, i.Informer(), f.Start)
		}},
		{"rbac.authorization.k8s.io/v1 clusterroles (cluster-scoped)", func(t *testing.T, c *watchedClient, f informers.SharedInformerFactory) {
			i := f.Rbac().V1().ClusterRoles()
			lifecycle[*rbacv1.ClusterRole]{
				gvr:       rbacv1.SchemeGroupVersion.WithResource("clusterroles"),
				newObject: func(_, name string) *rbacv1.ClusterRole { return &rbacv1.ClusterRole{ObjectMeta: meta("", name)} },
				get:       func(_, name string) (*rbacv1.ClusterRole, error) { return i.Lister().Get(name) },
				list:      func() ([]*rbacv1.ClusterRole, error) { return i.Lister().List(labels.Everything()) },
			}.run(t, c, i.Informer(), f.Start)
		}},
		{"resource.k8s.io/v1 resourceclaims", func(t *testing.T, c *watchedClient, f informers.SharedInformerFactory) {
			i := f.Resource().V1().ResourceClaims()
			lifecycle[*resourcev1.ResourceClaim]{
				gvr: resourcev1.SchemeGroupVersion.WithResource("resourceclaims"),
				newObject: func(ns, name string) *resourcev1.ResourceClaim {
					return &resourcev1.ResourceClaim{ObjectMeta: meta(ns, name)}
				},
				get: func(ns, name string) (*resourcev1.ResourceClaim, error) {
					return i.Lister().ResourceClaims(ns).Get(name)
				},
				list: func() ([]*resourcev1.ResourceClaim, error) { return i.Lister().List(labels.Everything()) },
			}.run(t, c, i.Informer(), f.Start)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := newClient()
			f := informers.NewSharedInformerFactory(client, 0)
			defer f.Shutdown()
			tc.run(t, client, f)
		})
	}
}

// endpointsLifecycle runs core/v1 Endpoints, whose plural is an exception
// (Endpoints, not Endpointses) that client-gen's names and ours must share.
//
//nolint:staticcheck // Endpoints is deprecated but still served and informed on.
func endpointsLifecycle(t *testing.T, c *watchedClient, f informers.SharedInformerFactory) {
	i := f.Core().V1().Endpoints()
	lifecycle[*corev1.Endpoints]{
		gvr:       corev1.SchemeGroupVersion.WithResource("endpoints"),
		newObject: func(ns, name string) *corev1.Endpoints { return &corev1.Endpoints{ObjectMeta: meta(ns, name)} },
		get:       func(ns, name string) (*corev1.Endpoints, error) { return i.Lister().Endpoints(ns).Get(name) },
		list:      func() ([]*corev1.Endpoints, error) { return i.Lister().Endpoints("shop").List(labels.Everything()) },
	}.run(t, c, i.Informer(), f.Start)
}

// TestStandaloneInformers runs the unshared informers the per-type
// constructors build (NewFilteredXInformer, NewXInformerWithOptions), with
// listers built over their indexers by the listers' own constructors.
func TestStandaloneInformers(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, client *watchedClient)
	}{
		{"NewFilteredConfigMapInformer with NewConfigMapLister", func(t *testing.T, c *watchedClient) {
			var tweaked atomic.Int32
			inf := coreinformers.NewFilteredConfigMapInformer(c, "shop", 0, nil, func(*metav1.ListOptions) { tweaked.Add(1) })
			l := corelisters.NewConfigMapLister(inf.GetIndexer())
			lifecycle[*corev1.ConfigMap]{
				gvr:       corev1.SchemeGroupVersion.WithResource("configmaps"),
				newObject: func(ns, name string) *corev1.ConfigMap { return &corev1.ConfigMap{ObjectMeta: meta(ns, name)} },
				get:       func(ns, name string) (*corev1.ConfigMap, error) { return l.ConfigMaps(ns).Get(name) },
				list:      func() ([]*corev1.ConfigMap, error) { return l.List(labels.Everything()) },
			}.run(t, c, inf, runInBackground(t, inf))
			if tweaked.Load() == 0 {
				t.Errorf("tweakListOptions was never called")
			}
		}},
		{"NewClusterRoleInformerWithOptions with NewClusterRoleLister", func(t *testing.T, c *watchedClient) {
			inf := rbacinformers.NewClusterRoleInformerWithOptions(c, internalinterfaces.InformerOptions{})
			l := rbaclisters.NewClusterRoleLister(inf.GetIndexer())
			lifecycle[*rbacv1.ClusterRole]{
				gvr:       rbacv1.SchemeGroupVersion.WithResource("clusterroles"),
				newObject: func(_, name string) *rbacv1.ClusterRole { return &rbacv1.ClusterRole{ObjectMeta: meta("", name)} },
				get:       func(_, name string) (*rbacv1.ClusterRole, error) { return l.Get(name) },
				list:      func() ([]*rbacv1.ClusterRole, error) { return l.List(labels.Everything()) },
			}.run(t, c, inf, runInBackground(t, inf))
		}},
		{"NewTypedDeploymentInformer", func(t *testing.T, c *watchedClient) {
			inf := appsinformers.NewTypedDeploymentInformer(c, metav1.NamespaceAll, 0, nil)
			lifecycle[*appsv1.Deployment]{
				gvr:       appsv1.SchemeGroupVersion.WithResource("deployments"),
				newObject: func(ns, name string) *appsv1.Deployment { return &appsv1.Deployment{ObjectMeta: meta(ns, name)} },
				get: func(ns, name string) (*appsv1.Deployment, error) {
					obj, ok, err := inf.GetTypedIndexer().GetByKey(ns + "/" + name)
					if err == nil && !ok {
						err = apierrors.NewNotFound(appsv1.Resource("deployments"), name)
					}
					return obj, err
				},
				list: func() ([]*appsv1.Deployment, error) { return inf.GetTypedIndexer().List(), nil },
			}.run(t, c, inf, runInBackground(t, inf))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newClient()) })
	}
}

// TestGenericInformers runs informers reached through ForResource, as
// client-go's dynamic-resource code reaches them, with the generic lister.
func TestGenericInformers(t *testing.T) {
	for _, tc := range []struct {
		gvr       schema.GroupVersionResource
		namespace string
		newObject func(ns, name string) runtime.Object
	}{
		{corev1.SchemeGroupVersion.WithResource("secrets"), "shop", func(ns, name string) runtime.Object {
			return &corev1.Secret{ObjectMeta: meta(ns, name)}
		}},
		{corev1.SchemeGroupVersion.WithResource("namespaces"), "", func(_, name string) runtime.Object {
			return &corev1.Namespace{ObjectMeta: meta("", name)}
		}},
		{appsv1.SchemeGroupVersion.WithResource("statefulsets"), "shop", func(ns, name string) runtime.Object {
			return &appsv1.StatefulSet{ObjectMeta: meta(ns, name)}
		}},
	} {
		t.Run(tc.gvr.String(), func(t *testing.T) {
			client := newClient()
			f := informers.NewSharedInformerFactory(client, 0)
			defer f.Shutdown()
			gi, err := f.ForResource(tc.gvr)
			if err != nil {
				t.Fatalf("ForResource(%s): %v", tc.gvr, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLimit)
			defer cancel()
			first := tc.newObject(tc.namespace, "first")
			if err := client.Tracker().Create(tc.gvr, first, tc.namespace); err != nil {
				t.Fatal(err)
			}
			f.Start(ctx)
			if err := cache.WaitForSync(ctx, gi.Informer()); err != nil {
				t.Fatalf("WaitForSync: %v", err)
			}
			client.waitWatch(t, tc.gvr)
			get := func(name string) (runtime.Object, error) {
				if tc.namespace == "" {
					return gi.Lister().Get(name)
				}
				return gi.Lister().ByNamespace(tc.namespace).Get(name)
			}
			if _, err := get("first"); err != nil {
				t.Fatalf("generic lister Get(first) after sync: %v", err)
			}
			second := tc.newObject(tc.namespace, "second")
			if err := client.Tracker().Create(tc.gvr, second, tc.namespace); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, "second in the generic lister", func() bool { _, err := get("second"); return err == nil })
			if err := client.Tracker().Delete(tc.gvr, tc.namespace, "first"); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, "first gone from the generic lister", func() bool { _, err := get("first"); return err != nil })
			all, err := gi.Lister().List(labels.Everything())
			if err != nil || len(all) != 1 {
				t.Fatalf("generic lister List() = %v, %v; want second only", all, err)
			}
		})
	}
}

// runInBackground returns a start function that runs inf until the test's
// context is cancelled, and waits for it to return at cleanup.
func runInBackground(t *testing.T, inf cache.AnyInformer) func(context.Context) {
	return func(ctx context.Context) {
		done := make(chan struct{})
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			defer close(done)
			inf.Run(ctx)
		}()
		t.Cleanup(func() {
			cancel()
			<-done
		})
	}
}
