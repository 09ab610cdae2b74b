package controller

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// drain returns every queued request, sorted by key.
func drain(q *workqueue.Typed[Request]) []string {
	var out []string
	for q.Len() > 0 {
		r, _ := q.Get()
		q.Done(r)
		out = append(out, r.String())
	}
	slices.Sort(out)
	return out
}

func pod(name string, owners ...metav1.OwnerReference) *corev1.Pod {
	return testutil.Pod("ns", name, testutil.Owners(owners...))
}

func ownerRef(apiVersion, kind, name string, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, Controller: &controller}
}

func TestHandlers(t *testing.T) {
	rsGK := schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	owned := pod("p",
		ownerRef("apps/v1", "ReplicaSet", "rs-ctrl", true),
		ownerRef("apps/v1", "ReplicaSet", "rs-other", false),
		ownerRef("example.com/v1", "ReplicaSet", "wrong-group", true),
		ownerRef("v1", "ConfigMap", "wrong-kind", false),
	)
	moved := pod("p", ownerRef("apps/v1", "ReplicaSet", "rs-new", true))
	tests := []struct {
		name    string
		handler EventHandler[*corev1.Pod]
		fire    func(h EventHandler[*corev1.Pod], q Queue)
		want    []string
	}{
		{
			name:    "object: create",
			handler: EnqueueRequestForObject[*corev1.Pod](),
			fire: func(h EventHandler[*corev1.Pod], q Queue) {
				h.Create(context.Background(), CreateEvent[*corev1.Pod]{Object: pod("a")}, q)
			},
			want: []string{"ns/a"},
		},
		{
			name:    "object: update and delete",
			handler: EnqueueRequestForObject[*corev1.Pod](),
			fire: func(h EventHandler[*corev1.Pod], q Queue) {
				h.Update(context.Background(), UpdateEvent[*corev1.Pod]{ObjectOld: pod("a"), ObjectNew: pod("a")}, q)
				h.Delete(context.Background(), DeleteEvent[*corev1.Pod]{Object: pod("b"), DeleteStateUnknown: true}, q)
			},
			want: []string{"ns/a", "ns/b"},
		},
		{
			name: "map func: old and new",
			handler: EnqueueRequestsFromMapFunc(func(_ context.Context, p *corev1.Pod) []Request {
				return []Request{{Namespace: "cfg", Name: p.Labels["config"]}}
			}),
			fire: func(h EventHandler[*corev1.Pod], q Queue) {
				old, cur := pod("a"), pod("a")
				old.Labels = map[string]string{"config": "one"}
				cur.Labels = map[string]string{"config": "two"}
				h.Update(context.Background(), UpdateEvent[*corev1.Pod]{ObjectOld: old, ObjectNew: cur}, q)
			},
			want: []string{"cfg/one", "cfg/two"},
		},
		{
			name:    "owner: controller only",
			handler: EnqueueRequestForOwner[*corev1.Pod](rsGK, true),
			fire: func(h EventHandler[*corev1.Pod], q Queue) {
				h.Create(context.Background(), CreateEvent[*corev1.Pod]{Object: owned}, q)
			},
			want: []string{"ns/rs-ctrl"},
		},
		{
			name:    "owner: every matching owner",
			handler: EnqueueRequestForOwner[*corev1.Pod](rsGK, false),
			fire: func(h EventHandler[*corev1.Pod], q Queue) {
				h.Delete(context.Background(), DeleteEvent[*corev1.Pod]{Object: owned}, q)
			},
			want: []string{"ns/rs-ctrl", "ns/rs-other"},
		},
		{
			name:    "owner: update reaches old and new owner",
			handler: EnqueueRequestForOwner[*corev1.Pod](rsGK, true),
			fire: func(h EventHandler[*corev1.Pod], q Queue) {
				h.Update(context.Background(), UpdateEvent[*corev1.Pod]{ObjectOld: owned, ObjectNew: moved}, q)
			},
			want: []string{"ns/rs-ctrl", "ns/rs-new"},
		},
		{
			name: "funcs: nil ignores",
			handler: Funcs[*corev1.Pod]{CreateFunc: func(_ context.Context, e CreateEvent[*corev1.Pod], q Queue) {
				q.Add(Request{Name: "created"})
			}},
			fire: func(h EventHandler[*corev1.Pod], q Queue) {
				h.Create(context.Background(), CreateEvent[*corev1.Pod]{Object: pod("a")}, q)
				h.Update(context.Background(), UpdateEvent[*corev1.Pod]{ObjectOld: pod("a"), ObjectNew: pod("a")}, q)
				h.Delete(context.Background(), DeleteEvent[*corev1.Pod]{Object: pod("a")}, q)
			},
			want: []string{"created"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[Request]{})
			defer q.ShutDown()
			tt.fire(tt.handler, q)
			if got := drain(q); !slices.Equal(got, tt.want) {
				t.Fatalf("enqueued %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPredicates(t *testing.T) {
	dep := func(gen int64, rv string, labels, annotations map[string]string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Generation: gen, ResourceVersion: rv, Labels: labels, Annotations: annotations}}
	}
	base := dep(1, "10", map[string]string{"a": "1"}, map[string]string{"n": "1"})
	tests := []struct {
		name string
		p    Predicate[*appsv1.Deployment]
		new  *appsv1.Deployment
		want bool
	}{
		{"generation same", GenerationChangedPredicate[*appsv1.Deployment](), dep(1, "11", base.Labels, base.Annotations), false},
		{"generation changed", GenerationChangedPredicate[*appsv1.Deployment](), dep(2, "11", base.Labels, base.Annotations), true},
		{"rv same (resync)", ResourceVersionChangedPredicate[*appsv1.Deployment](), dep(1, "10", base.Labels, base.Annotations), false},
		{"rv changed", ResourceVersionChangedPredicate[*appsv1.Deployment](), dep(1, "11", base.Labels, base.Annotations), true},
		{"labels same", LabelChangedPredicate[*appsv1.Deployment](), dep(2, "11", map[string]string{"a": "1"}, nil), false},
		{"labels changed", LabelChangedPredicate[*appsv1.Deployment](), dep(1, "11", map[string]string{"a": "2"}, nil), true},
		{"annotations changed", AnnotationChangedPredicate[*appsv1.Deployment](), dep(1, "11", base.Labels, nil), true},
		{"or: either", Or(GenerationChangedPredicate[*appsv1.Deployment](), LabelChangedPredicate[*appsv1.Deployment]()), dep(1, "11", map[string]string{"a": "2"}, nil), true},
		{"or: neither", Or(GenerationChangedPredicate[*appsv1.Deployment](), LabelChangedPredicate[*appsv1.Deployment]()), dep(1, "11", base.Labels, nil), false},
		{"not", Not(GenerationChangedPredicate[*appsv1.Deployment]()), dep(1, "11", base.Labels, nil), true},
		{"filter on new", NewPredicateFuncs(func(d *appsv1.Deployment) bool { return d.Generation > 1 }), dep(2, "11", nil, nil), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Update(UpdateEvent[*appsv1.Deployment]{ObjectOld: base, ObjectNew: tt.new}); got != tt.want {
				t.Fatalf("Update = %v, want %v", got, tt.want)
			}
		})
	}
	// Update-only predicates let creates and deletes through.
	for _, p := range []Predicate[*appsv1.Deployment]{GenerationChangedPredicate[*appsv1.Deployment](), ResourceVersionChangedPredicate[*appsv1.Deployment](), LabelChangedPredicate[*appsv1.Deployment]()} {
		if !p.Create(CreateEvent[*appsv1.Deployment]{Object: base}) || !p.Delete(DeleteEvent[*appsv1.Deployment]{Object: base}) {
			t.Fatal("an update predicate dropped a create or delete")
		}
	}
}

func TestWatchPredicatesAndInitialPriority(t *testing.T) {
	c, _ := New("x", newRecorder(), Options{})
	a := &adapter[*corev1.Pod]{ctx: context.Background(), c: c, handler: EnqueueRequestForObject[*corev1.Pod](),
		predicates: []Predicate[*corev1.Pod]{NewPredicateFuncs(func(p *corev1.Pod) bool { return p.Name != "skip" })}}
	a.OnAdd(pod("listed"), true)
	a.OnAdd(pod("skip"), false)
	a.OnAdd(pod("live"), false)
	a.OnUpdate(pod("skip"), pod("skip"))
	a.OnDelete(pod("skip"), false)
	q := c.Queue()
	var got []string
	var pris []int
	for q.Len() > 0 {
		r, p, _ := q.GetWithPriority()
		q.Done(r)
		got, pris = append(got, r.Name), append(pris, p)
	}
	if !slices.Equal(got, []string{"live", "listed"}) || !slices.Equal(pris, []int{0, workqueue.PriorityLow}) {
		t.Fatalf("got %v at %v", got, pris)
	}

	off := false
	c2, _ := New("y", newRecorder(), Options{PrioritizeLiveEvents: &off})
	a2 := &adapter[*corev1.Pod]{ctx: context.Background(), c: c2, handler: EnqueueRequestForObject[*corev1.Pod]()}
	a2.OnAdd(pod("listed"), true)
	if _, p, _ := c2.Queue().GetWithPriority(); p != 0 {
		t.Fatalf("with PrioritizeLiveEvents off, initial-list priority = %d", p)
	}
}
