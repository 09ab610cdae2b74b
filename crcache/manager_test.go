package crcache_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/typedinformer/typedinformer/crcache"
)

// The App custom resource: a kubebuilder tutorial's operator kind, which
// its Reconciler turns into a Deployment and a Service.
var appGV = schema.GroupVersion{Group: "demo.typedinformer.example.com", Version: "v1"}

type App struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AppSpec   `json:"spec"`
	Status            AppStatus `json:"status,omitempty"`
}

type AppSpec struct {
	Image    string `json:"image"`
	Replicas int32  `json:"replicas"`
	Port     int32  `json:"port"`
}

type AppStatus struct {
	Phase              string   `json:"phase,omitempty"`
	ObservedGeneration int64    `json:"observedGeneration,omitempty"`
	Deployments        int      `json:"deployments,omitempty"`
	Secrets            []string `json:"secrets,omitempty"`
}

func (a *App) DeepCopyObject() runtime.Object {
	out := *a
	a.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Secrets = slices.Clone(a.Status.Secrets)
	return &out
}

type AppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []App `json:"items"`
}

func (l *AppList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = make([]App, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*App)
	}
	return &out
}

const appCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "apps.demo.typedinformer.example.com"},
  "spec": {
    "group": "demo.typedinformer.example.com",
    "scope": "Namespaced",
    "names": {"plural": "apps", "singular": "app", "kind": "App", "listKind": "AppList"},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
      }}}
    }]
  }
}`

func appScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	s.AddKnownTypes(appGV, &App{}, &AppList{})
	metav1.AddToGroupVersion(s, appGV)
	return s
}

// installAppCRD creates the App CRD and waits until Apps can be listed.
func installAppCRD(t *testing.T, sch *runtime.Scheme) {
	t.Helper()
	ctx := t.Context()
	cfg := adminConfig()
	crd := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(appCRD), &crd.Object); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	err = poll(ctx, time.Minute, func() error {
		c, err := client.New(cfg, client.Options{Scheme: sch})
		if err != nil {
			return err
		}
		return c.List(ctx, &AppList{})
	})
	if err != nil {
		t.Fatalf("the App CRD is not served: %v", err)
	}
}

// poll calls f until it succeeds or timeout passes, returning its last error.
func poll(ctx context.Context, timeout time.Duration, f func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-tick.C:
		}
	}
}

// ownerIndex is the field index of Deployments by their controlling App.
const ownerIndex = ".metadata.controller"

// appReconciler gives each App a Deployment and a Service it controls: the
// Deployment's pod template names the App's Secrets (read metadata-only)
// and the value of its ConfigMap "<app>-config"; the status counts the
// Deployments the App controls (through a field index). Every reconcile
// request is recorded.
type appReconciler struct {
	client.Client

	mu         sync.Mutex
	reconciled map[string]int
}

func (r *appReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.mu.Lock()
	r.reconciled[req.String()]++
	r.mu.Unlock()

	app := &App{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	secrets := &metav1.PartialObjectMetadataList{}
	secrets.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
	if err := r.List(ctx, secrets, client.InNamespace(app.Namespace), client.MatchingLabels{"app": app.Name}); err != nil {
		return ctrl.Result{}, err
	}
	var names []string
	for _, s := range secrets.Items {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	var configValue string
	cm := &corev1.ConfigMap{}
	switch err := r.Get(ctx, types.NamespacedName{Namespace: app.Namespace, Name: app.Name + "-config"}, cm); {
	case err == nil:
		configValue = cm.Data["v"]
	case !apierrors.IsNotFound(err):
		return ctrl.Result{}, err
	}
	labels := map[string]string{"app": app.Name}

	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		dep.Spec.Replicas = ptr.To(app.Spec.Replicas)
		dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		dep.Spec.Template.Labels = labels
		dep.Spec.Template.Annotations = map[string]string{"secrets": strings.Join(names, ","), "config": configValue}
		if len(dep.Spec.Template.Spec.Containers) == 0 {
			dep.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app"}}
		}
		dep.Spec.Template.Spec.Containers[0].Image = app.Spec.Image
		return controllerutil.SetControllerReference(app, dep, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		svc.Spec.Selector = labels
		if len(svc.Spec.Ports) == 0 {
			svc.Spec.Ports = []corev1.ServicePort{{Name: "http"}}
		}
		svc.Spec.Ports[0].Port = app.Spec.Port
		svc.Spec.Ports[0].TargetPort = intstr.FromInt32(app.Spec.Port)
		return controllerutil.SetControllerReference(app, svc, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}

	owned := &appsv1.DeploymentList{}
	if err := r.List(ctx, owned, client.InNamespace(app.Namespace), client.MatchingFields{ownerIndex: app.Name}); err != nil {
		return ctrl.Result{}, err
	}
	want := AppStatus{Phase: "Ready", ObservedGeneration: app.Generation, Deployments: len(owned.Items), Secrets: names}
	if app.Status.Phase == want.Phase && app.Status.ObservedGeneration == want.ObservedGeneration &&
		app.Status.Deployments == want.Deployments && slices.Equal(app.Status.Secrets, want.Secrets) {
		return ctrl.Result{}, nil
	}
	app.Status = want
	return ctrl.Result{}, r.Status().Update(ctx, app)
}

func (r *appReconciler) setup(mgr ctrl.Manager, name string) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &appsv1.Deployment{}, ownerIndex, func(o client.Object) []string {
		if owner := metav1.GetControllerOf(o); owner != nil && owner.APIVersion == appGV.String() && owner.Kind == "App" {
			return []string{owner.Name}
		}
		return nil
	}); err != nil {
		return err
	}
	// The Secret's "app" label names its App; the predicate keeps Secrets
	// without one from reaching the map function.
	secretToApp := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetLabels()["app"]}}}
	})
	configToApp := handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, cm *corev1.ConfigMap) []reconcile.Request {
		if app, ok := strings.CutSuffix(cm.Name, "-config"); ok {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: cm.Namespace, Name: app}}}
		}
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(&App{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Watches(&corev1.Secret{}, secretToApp, builder.OnlyMetadata,
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()["app"] != "" }))).
		WatchesRawSource(source.Kind(mgr.GetCache(), &corev1.ConfigMap{}, configToApp,
			predicate.TypedResourceVersionChangedPredicate[*corev1.ConfigMap]{})).
		Complete(r)
}

// appState is what the test reads of an App and what its Reconciler made,
// straight from the API server.
type appState struct {
	Status      AppStatus
	Replicas    int32
	Image       string
	Annotations map[string]string
	Owner       string
	Ports       []int32
}

func readAppState(ctx context.Context, c client.Client, ns, name string) (appState, error) {
	var s appState
	key := types.NamespacedName{Namespace: ns, Name: name}
	app := &App{}
	if err := c.Get(ctx, key, app); err != nil {
		return s, err
	}
	s.Status = app.Status
	dep := &appsv1.Deployment{}
	if err := c.Get(ctx, key, dep); err != nil {
		return s, err
	}
	s.Replicas = ptr.Deref(dep.Spec.Replicas, -1)
	if cs := dep.Spec.Template.Spec.Containers; len(cs) > 0 {
		s.Image = cs[0].Image
	}
	s.Annotations = dep.Spec.Template.Annotations
	if owner := metav1.GetControllerOf(dep); owner != nil && owner.UID == app.UID {
		s.Owner = owner.Kind + "/" + owner.Name
	}
	svc := &corev1.Service{}
	if err := c.Get(ctx, key, svc); err != nil {
		return s, err
	}
	if owner := metav1.GetControllerOf(svc); owner == nil || owner.UID != app.UID {
		return s, fmt.Errorf("Service %s is not controlled by its App", key)
	}
	for _, p := range svc.Spec.Ports {
		s.Ports = append(s.Ports, p.Port)
	}
	return s, nil
}

func (s appState) String() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestManagerOnBothCaches runs one operator (For Apps with a generation
// predicate, Owns Deployments and Services, Watches Secrets metadata-only
// with a label predicate, a typed source.Kind of ConfigMaps, a field index,
// read-your-own-writes reads) on a manager whose cache is
// controller-runtime's cache.New and on one whose cache is crcache.New,
// through one script against the real kube-apiserver: every step must
// reach the same state on both, and both must reconcile exactly the Apps.
func TestManagerOnBothCaches(t *testing.T) {
	sch := appScheme(t)
	installAppCRD(t, sch)
	sides := []struct {
		name string
		new  cache.NewCacheFunc
	}{{"controller-runtime", cache.New}, {"crcache", crcache.New}}
	got := map[string][]string{}
	for _, side := range sides {
		t.Run(side.name, func(t *testing.T) {
			got[side.name] = runAppScript(t, sch, "mgr-"+side.name, side.new)
		})
	}
	want, have := got["controller-runtime"], got["crcache"]
	if !slices.Equal(want, have) {
		t.Errorf("the steps' states differ:\ncontroller-runtime: %q\ncrcache:            %q", want, have)
	}
}

// runAppScript runs the App operator in namespace ns on a manager whose
// cache newCache builds, and returns the state after every step.
func runAppScript(t *testing.T, sch *runtime.Scheme, ns string, newCache cache.NewCacheFunc) []string {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cfg := adminConfig()
	w, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	newApp := func(name, image string, replicas, port int32) *App {
		return &App{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: AppSpec{Image: image, Replicas: replicas, Port: port}}
	}
	// An App that exists before the manager starts comes with the first list.
	if err := w.Create(ctx, newApp("a2", "app:2", 1, 8080)); err != nil {
		t.Fatal(err)
	}

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 sch,
		NewCache:               newCache,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Client:                 client.Options{Cache: &client.CacheOptions{EnableReadYourWritesConsistency: ptr.To(true)}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &appReconciler{Client: mgr.GetClient(), reconciled: map[string]int{}}
	if err := r.setup(mgr, "app"); err != nil {
		t.Fatal(err)
	}
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	var states []string
	expect := func(step, name string, want appState) {
		t.Helper()
		var last appState
		err := poll(ctx, time.Minute, func() error {
			s, err := readAppState(ctx, w, ns, name)
			if err != nil {
				return err
			}
			last = s
			if s.String() != want.String() {
				return errors.New("not yet")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v\n got %s\nwant %s", step, err, last, want)
		}
		states = append(states, step+": "+want.String())
	}
	// ready is an App's state once reconciled.
	ready := func(app string, gen int64, image string, replicas, port int32, secrets []string, config string) appState {
		return appState{
			Status:   AppStatus{Phase: "Ready", ObservedGeneration: gen, Deployments: 1, Secrets: secrets},
			Replicas: replicas, Image: image,
			Annotations: map[string]string{"secrets": strings.Join(secrets, ","), "config": config},
			Owner:       "App/" + app, Ports: []int32{port},
		}
	}

	expect("initial list", "a2", ready("a2", 1, "app:2", 1, 8080, nil, ""))

	a1 := newApp("a1", "app:1", 2, 80)
	if err := w.Create(ctx, a1); err != nil {
		t.Fatal(err)
	}
	expect("created", "a1", ready("a1", 1, "app:1", 2, 80, nil, ""))

	if err := w.Get(ctx, client.ObjectKeyFromObject(a1), a1); err != nil {
		t.Fatal(err)
	}
	a1.Spec.Replicas = 3
	if err := w.Update(ctx, a1); err != nil {
		t.Fatal(err)
	}
	expect("spec changed", "a1", ready("a1", 2, "app:1", 3, 80, nil, ""))

	// Owns: an edit of the Deployment is undone, a deleted Service comes back.
	err = poll(ctx, time.Minute, func() error {
		dep := &appsv1.Deployment{}
		if err := w.Get(ctx, client.ObjectKeyFromObject(a1), dep); err != nil {
			return err
		}
		dep.Spec.Replicas = ptr.To[int32](5)
		return w.Update(ctx, dep)
	})
	if err != nil {
		t.Fatal(err)
	}
	expect("deployment edited", "a1", ready("a1", 2, "app:1", 3, 80, nil, ""))
	if err := w.Delete(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a1"}}); err != nil {
		t.Fatal(err)
	}
	expect("service deleted", "a1", ready("a1", 2, "app:1", 3, 80, nil, ""))

	// Metadata-only Secrets: one without the label is filtered by the
	// predicate (else it would be reconciled as an App named ""), one with
	// it reaches its App.
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plain"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s1", Labels: map[string]string{"app": "a1"}}},
	} {
		if err := w.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	expect("secret added", "a1", ready("a1", 2, "app:1", 3, 80, []string{"s1"}, ""))

	// source.Kind: the App's ConfigMap, created then changed.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a1-config"}, Data: map[string]string{"v": "x"}}
	if err := w.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	expect("config created", "a1", ready("a1", 2, "app:1", 3, 80, []string{"s1"}, "x"))
	cm.Data["v"] = "y"
	if err := w.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	expect("config changed", "a1", ready("a1", 2, "app:1", 3, 80, []string{"s1"}, "y"))
	expect("other app untouched", "a2", ready("a2", 1, "app:2", 1, 8080, nil, ""))

	r.mu.Lock()
	keys := slices.Sorted(maps.Keys(r.reconciled))
	r.mu.Unlock()
	if want := []string{ns + "/a1", ns + "/a2"}; !slices.Equal(keys, want) {
		t.Errorf("reconciled %q, want exactly %q", keys, want)
	}
	states = append(states, fmt.Sprintf("reconciled %d keys", len(keys)))
	return states
}
