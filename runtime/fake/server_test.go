package fake

import (
	"context"
	"errors"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

func TestServerCreateSetsGlobalIncreasingRVAndRejectsDuplicates(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	if got := s.ResourceVersion(); got != "1" {
		t.Fatalf("new server RV = %s, want 1", got)
	}
	in := newPod("a", "p1")
	in.ResourceVersion = "999" // ignored on create
	a := testutil.MustCreate(t, s, in)
	b := testutil.MustCreate(t, s, newPod("b", "p1"))
	c := testutil.MustCreate(t, s, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", GenerateName: "gen-"}})
	if a.ResourceVersion != "2" || b.ResourceVersion != "3" || c.ResourceVersion != "4" {
		t.Fatalf("RVs = %s %s %s, want 2 3 4", a.ResourceVersion, b.ResourceVersion, c.ResourceVersion)
	}
	if c.Name == "" || c.Name == "gen-" {
		t.Fatalf("generated name %q", c.Name)
	}
	if a.UID == "" {
		t.Fatal("no UID set")
	}
	if in.ResourceVersion != "999" {
		t.Fatal("Create modified its argument")
	}
	_, err := s.Create(newPod("a", "p1"))
	if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("duplicate create: %v, want AlreadyExists", err)
	}
	if _, err := s.Create(newPod("a", "")); !apierrors.IsInvalid(err) {
		t.Fatalf("create without a name: %v, want Invalid", err)
	}
	if s.ResourceVersion() != "4" {
		t.Fatalf("failed creates moved the RV to %s", s.ResourceVersion())
	}
}

func TestServerUpdateNeedsTheObjectAndTheCurrentRV(t *testing.T) {
	s := NewServer[*corev1.Pod](WithResource(schema.GroupResource{Resource: "pods"}))
	p := testutil.MustCreate(t, s, newPod("a", "p1"))
	tests := []struct {
		name  string
		obj   *corev1.Pod
		check func(error) bool
	}{
		{"missing", newPod("a", "nope"), apierrors.IsNotFound},
		{"stale RV", func() *corev1.Pod { q := p.DeepCopy(); q.ResourceVersion = "1"; return q }(), apierrors.IsConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Update(tt.obj); !tt.check(err) {
				t.Fatalf("Update: %v", err)
			}
		})
	}
	q := p.DeepCopy()
	q.Labels = map[string]string{"x": "y"}
	u := testutil.MustUpdate(t, s, q)
	if u.ResourceVersion != "3" || u.UID != p.UID {
		t.Fatalf("updated RV %s UID %s, want 3 and %s", u.ResourceVersion, u.UID, p.UID)
	}
	// An empty RV updates unconditionally and still bumps the RV.
	q.ResourceVersion = ""
	if u := testutil.MustUpdate(t, s, q); u.ResourceVersion != "4" {
		t.Fatalf("unconditional update RV %s, want 4", u.ResourceVersion)
	}
	_, err := s.Update(newPod("a", "nope"))
	var st apierrors.APIStatus
	if !errors.As(err, &st) || st.Status().Details.Kind != "pods" {
		t.Fatalf("NotFound does not name the resource: %v", err)
	}
}

func TestServerDeleteNotFoundAndNewRV(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	testutil.MustCreate(t, s, newPod("a", "p1"))
	if err := s.Delete("a", "nope"); !apierrors.IsNotFound(err) {
		t.Fatalf("delete missing: %v", err)
	}
	if err := s.Delete("a", "p1"); err != nil {
		t.Fatal(err)
	}
	if s.ResourceVersion() != "3" {
		t.Fatalf("RV after delete = %s, want 3", s.ResourceVersion())
	}
	if _, err := s.Get("a", "p1"); !apierrors.IsNotFound(err) {
		t.Fatalf("get deleted: %v", err)
	}
}

func TestServerObjectsAreSortedDeepCopies(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	for _, k := range [][2]string{{"b", "p"}, {"a", "q"}, {"a", "p"}} {
		testutil.MustCreate(t, s, newPod(k[0], k[1]))
	}
	objs := s.Objects()
	if got := names(objs); got != "a/p@4 a/q@3 b/p@2" {
		t.Fatalf("Objects = %s", got)
	}
	objs[0].Name = "mutated"
	g, _ := s.Get("a", "p")
	g.Labels = map[string]string{"mutated": "yes"}
	if got := names(s.Objects()); got != "a/p@4 a/q@3 b/p@2" {
		t.Fatalf("mutating copies changed the server: %s", got)
	}
	if g2, _ := s.Get("a", "p"); g2.Labels != nil {
		t.Fatal("Get returned the stored object")
	}
}

func TestServerDefaultResourceIsThePluralOfTheType(t *testing.T) {
	tests := []struct{ kind, want string }{
		{"Pod", "pods"}, {"Ingress", "ingresses"}, {"NetworkPolicy", "networkpolicies"}, {"Gateway", "gateways"},
	}
	for _, tt := range tests {
		if got := pluralOf(tt.kind); got != tt.want {
			t.Errorf("pluralOf(%s) = %s, want %s", tt.kind, got, tt.want)
		}
	}
	if got := NewServer[*corev1.Node]().Resource(); got.Resource != "nodes" {
		t.Fatalf("Resource() = %v", got)
	}
}

func TestServerCallsAndRequestsCountEveryCall(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	for i := 0; i < 5; i++ {
		testutil.MustCreate(t, s, newPod("a", string(rune('a'+i))))
	}
	// Three pages, one failed list, two watches (one failed).
	l, err := listPods(t, s, "", metav1.ListOptions{Limit: 2})
	for err == nil && l.Continue != "" {
		l, err = listPods(t, s, "", metav1.ListOptions{Limit: 2, Continue: l.Continue})
	}
	if err != nil {
		t.Fatal(err)
	}
	s.FailNextList(apierrors.NewForbidden(s.Resource(), "", errors.New("no")))
	if _, err := listPods(t, s, "a", metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("want Forbidden, got %v", err)
	}
	s.FailNextWatch(errors.New("connection refused"))
	if _, err := s.ListerWatcher("").Watch(context.Background(), metav1.ListOptions{}); err == nil {
		t.Fatal("want the injected watch error")
	}
	startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "3"})
	lists, watches := s.Calls()
	if lists != 4 || watches != 2 {
		t.Fatalf("Calls = %d lists, %d watches; want 4, 2", lists, watches)
	}
	reqs := s.Requests()
	if len(reqs) != 6 || reqs[3].Namespace != "a" || reqs[5].Verb != "watch" || reqs[5].Options.ResourceVersion != "3" {
		t.Fatalf("Requests = %+v", reqs)
	}
}

func TestServerWaitForWatchersCountsOpenWatches(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.WaitForWatchers(ctx, 2) }()
	w1 := startWatch(t, s, "", metav1.ListOptions{})
	startWatch(t, s, "", metav1.ListOptions{})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	w1.Stop()
	if s.Watchers() != 1 {
		t.Fatalf("Watchers after Stop = %d, want 1", s.Watchers())
	}
	go func() { done <- s.WaitForWatchers(ctx, 3) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForWatchers after cancel: %v", err)
	}
}

// Concurrent writers and watchers: every watch sees the same gap-free RV
// sequence (go test -race checks the locking).
func TestServerConcurrentWritesReachEveryWatchInOneOrder(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	const writers, perWriter = 4, 50
	w1 := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "1"})
	w2 := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "1"})
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Go(func() {
			for j := 0; j < perWriter; j++ {
				p := newPod("ns", string(rune('a'+i))+"-"+string(rune('a'+j%26))+string(rune('a'+j/26)))
				if _, err := s.Create(p); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, w := range []watch.Interface{w1, w2} {
		for want := 2; want < 2+writers*perWriter; want++ {
			ev := next(t, w)
			if got := ev.Object.(*corev1.Pod).ResourceVersion; got != formatRV(uint64(want)) {
				t.Fatalf("event RV %s, want %d", got, want)
			}
		}
	}
}
