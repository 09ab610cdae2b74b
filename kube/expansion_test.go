package kube_test

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoappsv1 "k8s.io/client-go/listers/apps/v1"
	clientgoappsv1beta1 "k8s.io/client-go/listers/apps/v1beta1"
	clientgoappsv1beta2 "k8s.io/client-go/listers/apps/v1beta2"
	clientgobatchv1 "k8s.io/client-go/listers/batch/v1"
	clientgocorev1 "k8s.io/client-go/listers/core/v1"
	clientgoextensionsv1beta1 "k8s.io/client-go/listers/extensions/v1beta1"
	clientgopolicyv1 "k8s.io/client-go/listers/policy/v1"
	clientgopolicyv1beta1 "k8s.io/client-go/listers/policy/v1beta1"
	clientgocache "k8s.io/client-go/tools/cache"

	appslisters "github.com/typedinformer/typedinformer/kube/listers/apps/v1"
	appsv1beta1listers "github.com/typedinformer/typedinformer/kube/listers/apps/v1beta1"
	appsv1beta2listers "github.com/typedinformer/typedinformer/kube/listers/apps/v1beta2"
	batchlisters "github.com/typedinformer/typedinformer/kube/listers/batch/v1"
	corelisters "github.com/typedinformer/typedinformer/kube/listers/core/v1"
	extensionslisters "github.com/typedinformer/typedinformer/kube/listers/extensions/v1beta1"
	policylisters "github.com/typedinformer/typedinformer/kube/listers/policy/v1"
	policyv1beta1listers "github.com/typedinformer/typedinformer/kube/listers/policy/v1beta1"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// selectors are the selectors every workload of the expansion tests is
// given, by name: matching labels, matching expressions, empty, nil and one
// that does not parse, in two namespaces.
var selectors = []struct {
	ns, name string
	sel      *metav1.LabelSelector
}{
	{"shop", "web", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	{"shop", "front", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"front"}}}}},
	{"shop", "empty", &metav1.LabelSelector{}},
	{"shop", "nil", nil},
	{"shop", "bad", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}},
	{"lab", "web", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
}

// subjects are the objects looked up: labelled to match some selectors, to
// match none, without labels, and in the other namespace.
var subjects = []metav1.ObjectMeta{
	{Namespace: "shop", Name: "web-1", Labels: map[string]string{"app": "web", "tier": "front"}},
	{Namespace: "shop", Name: "back-1", Labels: map[string]string{"tier": "back"}},
	{Namespace: "shop", Name: "bare"},
	{Namespace: "lab", Name: "web-2", Labels: map[string]string{"app": "web"}},
	{Namespace: "attic", Name: "web-3", Labels: map[string]string{"app": "web"}},
}

// outcome is what a lookup gives, comparable across implementations: the
// names found (sorted; both listers list from maps) and whether it failed.
type outcome struct {
	names  []string
	failed bool
}

func outcomeOf[T any](items []T, err error, name func(T) string) outcome {
	o := outcome{failed: err != nil}
	for _, it := range items {
		o.names = append(o.names, name(it))
	}
	slices.Sort(o.names)
	return o
}

// lookupCase is one lister expansion: the workloads (one per selector),
// and the same lookup through client-go's lister and ours.
type lookupCase[T cache.Object] struct {
	build  func(ns, name string, sel *metav1.LabelSelector) T
	theirs func(clientgocache.Indexer, metav1.ObjectMeta) outcome
	ours   func(cache.Indexer[T], metav1.ObjectMeta) outcome
}

func (c lookupCase[T]) run(t *testing.T) {
	theirs := clientgocache.NewIndexer(clientgocache.MetaNamespaceKeyFunc, clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc})
	ours := cache.NewIndexer[T](nil)
	for _, s := range selectors {
		obj := c.build(s.ns, s.name, s.sel)
		if err := theirs.Add(obj); err != nil {
			t.Fatal(err)
		}
		if err := ours.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	matched := 0
	for _, subject := range subjects {
		want, got := c.theirs(theirs, subject), c.ours(ours, subject)
		if !slices.Equal(got.names, want.names) || got.failed != want.failed {
			t.Errorf("%s/%s: ours found %v (failed %t), client-go's %v (failed %t)", subject.Namespace, subject.Name, got.names, got.failed, want.names, want.failed)
		}
		matched += len(want.names)
	}
	if matched == 0 {
		t.Fatal("no lookup found anything: the fixtures test nothing")
	}
}

func podOf(m metav1.ObjectMeta) *corev1.Pod { return &corev1.Pod{ObjectMeta: m} }

func nameOf[T interface{ GetName() string }](o T) string { return o.GetName() }

// TestListerExpansions runs every lookup client-go's listers add beyond
// List and Get (GetPodReplicaSets, GetHistoryDaemonSets, GetPodJobs, ...)
// through client-go's lister and ours over the same objects, and requires
// the same objects and the same failures.
func TestListerExpansions(t *testing.T) {
	meta := func(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }
	for _, tc := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"apps/v1 GetPodDaemonSets", lookupCase[*appsv1.DaemonSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1.DaemonSet {
				return &appsv1.DaemonSet{ObjectMeta: meta(ns, n), Spec: appsv1.DaemonSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1.NewDaemonSetLister(i).GetPodDaemonSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1.DaemonSet], m metav1.ObjectMeta) outcome {
				r, err := appslisters.NewDaemonSetLister(i).GetPodDaemonSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"apps/v1 GetHistoryDaemonSets", lookupCase[*appsv1.DaemonSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1.DaemonSet {
				return &appsv1.DaemonSet{ObjectMeta: meta(ns, n), Spec: appsv1.DaemonSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1.NewDaemonSetLister(i).GetHistoryDaemonSets(&appsv1.ControllerRevision{ObjectMeta: m})
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1.DaemonSet], m metav1.ObjectMeta) outcome {
				r, err := appslisters.NewDaemonSetLister(i).GetHistoryDaemonSets(&appsv1.ControllerRevision{ObjectMeta: m})
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"apps/v1 GetPodReplicaSets", lookupCase[*appsv1.ReplicaSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1.ReplicaSet {
				return &appsv1.ReplicaSet{ObjectMeta: meta(ns, n), Spec: appsv1.ReplicaSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1.NewReplicaSetLister(i).GetPodReplicaSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1.ReplicaSet], m metav1.ObjectMeta) outcome {
				r, err := appslisters.NewReplicaSetLister(i).GetPodReplicaSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"apps/v1 GetPodStatefulSets", lookupCase[*appsv1.StatefulSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1.StatefulSet {
				return &appsv1.StatefulSet{ObjectMeta: meta(ns, n), Spec: appsv1.StatefulSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1.NewStatefulSetLister(i).GetPodStatefulSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1.StatefulSet], m metav1.ObjectMeta) outcome {
				r, err := appslisters.NewStatefulSetLister(i).GetPodStatefulSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"apps/v1beta1 GetPodStatefulSets", lookupCase[*appsv1beta1.StatefulSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1beta1.StatefulSet {
				return &appsv1beta1.StatefulSet{ObjectMeta: meta(ns, n), Spec: appsv1beta1.StatefulSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1beta1.NewStatefulSetLister(i).GetPodStatefulSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1beta1.StatefulSet], m metav1.ObjectMeta) outcome {
				r, err := appsv1beta1listers.NewStatefulSetLister(i).GetPodStatefulSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"apps/v1beta2 GetPodDaemonSets", lookupCase[*appsv1beta2.DaemonSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1beta2.DaemonSet {
				return &appsv1beta2.DaemonSet{ObjectMeta: meta(ns, n), Spec: appsv1beta2.DaemonSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1beta2.NewDaemonSetLister(i).GetPodDaemonSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1beta2.DaemonSet], m metav1.ObjectMeta) outcome {
				r, err := appsv1beta2listers.NewDaemonSetLister(i).GetPodDaemonSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"apps/v1beta2 GetHistoryDaemonSets", lookupCase[*appsv1beta2.DaemonSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1beta2.DaemonSet {
				return &appsv1beta2.DaemonSet{ObjectMeta: meta(ns, n), Spec: appsv1beta2.DaemonSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1beta2.NewDaemonSetLister(i).GetHistoryDaemonSets(&appsv1beta2.ControllerRevision{ObjectMeta: m})
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1beta2.DaemonSet], m metav1.ObjectMeta) outcome {
				r, err := appsv1beta2listers.NewDaemonSetLister(i).GetHistoryDaemonSets(&appsv1beta2.ControllerRevision{ObjectMeta: m})
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"apps/v1beta2 GetPodReplicaSets", lookupCase[*appsv1beta2.ReplicaSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1beta2.ReplicaSet {
				return &appsv1beta2.ReplicaSet{ObjectMeta: meta(ns, n), Spec: appsv1beta2.ReplicaSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1beta2.NewReplicaSetLister(i).GetPodReplicaSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1beta2.ReplicaSet], m metav1.ObjectMeta) outcome {
				r, err := appsv1beta2listers.NewReplicaSetLister(i).GetPodReplicaSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"apps/v1beta2 GetPodStatefulSets", lookupCase[*appsv1beta2.StatefulSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *appsv1beta2.StatefulSet {
				return &appsv1beta2.StatefulSet{ObjectMeta: meta(ns, n), Spec: appsv1beta2.StatefulSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoappsv1beta2.NewStatefulSetLister(i).GetPodStatefulSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*appsv1beta2.StatefulSet], m metav1.ObjectMeta) outcome {
				r, err := appsv1beta2listers.NewStatefulSetLister(i).GetPodStatefulSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"extensions/v1beta1 GetPodDaemonSets", lookupCase[*extensionsv1beta1.DaemonSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *extensionsv1beta1.DaemonSet {
				return &extensionsv1beta1.DaemonSet{ObjectMeta: meta(ns, n), Spec: extensionsv1beta1.DaemonSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoextensionsv1beta1.NewDaemonSetLister(i).GetPodDaemonSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*extensionsv1beta1.DaemonSet], m metav1.ObjectMeta) outcome {
				r, err := extensionslisters.NewDaemonSetLister(i).GetPodDaemonSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"extensions/v1beta1 GetHistoryDaemonSets", lookupCase[*extensionsv1beta1.DaemonSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *extensionsv1beta1.DaemonSet {
				return &extensionsv1beta1.DaemonSet{ObjectMeta: meta(ns, n), Spec: extensionsv1beta1.DaemonSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoextensionsv1beta1.NewDaemonSetLister(i).GetHistoryDaemonSets(&appsv1beta1.ControllerRevision{ObjectMeta: m})
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*extensionsv1beta1.DaemonSet], m metav1.ObjectMeta) outcome {
				r, err := extensionslisters.NewDaemonSetLister(i).GetHistoryDaemonSets(&appsv1beta1.ControllerRevision{ObjectMeta: m})
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"extensions/v1beta1 GetPodReplicaSets", lookupCase[*extensionsv1beta1.ReplicaSet]{
			build: func(ns, n string, s *metav1.LabelSelector) *extensionsv1beta1.ReplicaSet {
				return &extensionsv1beta1.ReplicaSet{ObjectMeta: meta(ns, n), Spec: extensionsv1beta1.ReplicaSetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgoextensionsv1beta1.NewReplicaSetLister(i).GetPodReplicaSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*extensionsv1beta1.ReplicaSet], m metav1.ObjectMeta) outcome {
				r, err := extensionslisters.NewReplicaSetLister(i).GetPodReplicaSets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"batch/v1 GetPodJobs", lookupCase[*batchv1.Job]{
			build: func(ns, n string, s *metav1.LabelSelector) *batchv1.Job {
				return &batchv1.Job{ObjectMeta: meta(ns, n), Spec: batchv1.JobSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgobatchv1.NewJobLister(i).GetPodJobs(podOf(m))
				return outcomeOf(r, err, func(j batchv1.Job) string { return j.Name })
			},
			ours: func(i cache.Indexer[*batchv1.Job], m metav1.ObjectMeta) outcome {
				r, err := batchlisters.NewJobLister(i).GetPodJobs(podOf(m))
				return outcomeOf(r, err, func(j batchv1.Job) string { return j.Name })
			},
		}.run},
		{"core/v1 GetPodControllers", lookupCase[*corev1.ReplicationController]{
			build: func(ns, n string, s *metav1.LabelSelector) *corev1.ReplicationController {
				// A replication controller's selector is a map: a
				// nil or empty one selects nothing, "bad" has none.
				var sel map[string]string
				if s != nil && s.MatchLabels != nil {
					sel = s.MatchLabels
				} else if s != nil {
					sel = map[string]string{}
				}
				return &corev1.ReplicationController{ObjectMeta: meta(ns, n), Spec: corev1.ReplicationControllerSpec{Selector: sel}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgocorev1.NewReplicationControllerLister(i).GetPodControllers(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*corev1.ReplicationController], m metav1.ObjectMeta) outcome {
				r, err := corelisters.NewReplicationControllerLister(i).GetPodControllers(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"policy/v1 GetPodPodDisruptionBudgets", lookupCase[*policyv1.PodDisruptionBudget]{
			build: func(ns, n string, s *metav1.LabelSelector) *policyv1.PodDisruptionBudget {
				return &policyv1.PodDisruptionBudget{ObjectMeta: meta(ns, n), Spec: policyv1.PodDisruptionBudgetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgopolicyv1.NewPodDisruptionBudgetLister(i).GetPodPodDisruptionBudgets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*policyv1.PodDisruptionBudget], m metav1.ObjectMeta) outcome {
				r, err := policylisters.NewPodDisruptionBudgetLister(i).GetPodPodDisruptionBudgets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
		{"policy/v1beta1 GetPodPodDisruptionBudgets", lookupCase[*policyv1beta1.PodDisruptionBudget]{
			build: func(ns, n string, s *metav1.LabelSelector) *policyv1beta1.PodDisruptionBudget {
				return &policyv1beta1.PodDisruptionBudget{ObjectMeta: meta(ns, n), Spec: policyv1beta1.PodDisruptionBudgetSpec{Selector: s}}
			},
			theirs: func(i clientgocache.Indexer, m metav1.ObjectMeta) outcome {
				r, err := clientgopolicyv1beta1.NewPodDisruptionBudgetLister(i).GetPodPodDisruptionBudgets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
			ours: func(i cache.Indexer[*policyv1beta1.PodDisruptionBudget], m metav1.ObjectMeta) outcome {
				r, err := policyv1beta1listers.NewPodDisruptionBudgetLister(i).GetPodPodDisruptionBudgets(podOf(m))
				return outcomeOf(r, err, nameOf)
			},
		}.run},
	} {
		t.Run(tc.name, tc.run)
	}
}
