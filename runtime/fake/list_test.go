package fake

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// historyServer builds a server whose history is: RV2 create a/p1, RV3
// create a/p2, RV4 update a/p1, RV5 delete a/p2, RV6 create b/p3.
func historyServer(t *testing.T, opts ...ServerOption) *Server[*corev1.Pod] {
	t.Helper()
	s := NewServer[*corev1.Pod](opts...)
	p1 := testutil.MustCreate(t, s, newPod("a", "p1"))
	testutil.MustCreate(t, s, newPod("a", "p2"))
	testutil.MustUpdate(t, s, p1)
	if err := s.Delete("a", "p2"); err != nil {
		t.Fatal(err)
	}
	testutil.MustCreate(t, s, newPod("b", "p3"))
	return s
}

func TestListResourceVersionSemantics(t *testing.T) {
	tests := []struct {
		name    string
		compact bool
		opts    metav1.ListOptions
		want    string // items, or "" when an error is expected
		wantRV  string
		wantErr func(error) bool
	}{
		{name: "empty RV is the current state", opts: metav1.ListOptions{}, want: "a/p1@4 b/p3@6", wantRV: "6"},
		{name: "RV 0 is any (current), unpaginated", opts: metav1.ListOptions{ResourceVersion: "0", Limit: 1}, want: "a/p1@4 b/p3@6", wantRV: "6"},
		{name: "exact RV is the past state", opts: metav1.ListOptions{ResourceVersion: "3", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, want: "a/p1@2 a/p2@3", wantRV: "3"},
		{name: "RV with a limit and no match is exact", opts: metav1.ListOptions{ResourceVersion: "4", Limit: 10}, want: "a/p1@4 a/p2@3", wantRV: "4"},
		{name: "not older than is the current state", opts: metav1.ListOptions{ResourceVersion: "3", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, want: "a/p1@4 b/p3@6", wantRV: "6"},
		{name: "RV without limit or match is not older than", opts: metav1.ListOptions{ResourceVersion: "2"}, want: "a/p1@4 b/p3@6", wantRV: "6"},
		{name: "exact RV before the first change", opts: metav1.ListOptions{ResourceVersion: "1", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, want: "", wantRV: "1"},
		{name: "future RV is too large", opts: metav1.ListOptions{ResourceVersion: "7"}, wantErr: isTooLarge},
		{name: "future exact RV is too large", opts: metav1.ListOptions{ResourceVersion: "70", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: isTooLarge},
		{name: "compacted exact RV is expired", compact: true, opts: metav1.ListOptions{ResourceVersion: "3", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: isExpired},
		{name: "compacted RV with limit is expired", compact: true, opts: metav1.ListOptions{ResourceVersion: "5", Limit: 1}, wantErr: isExpired},
		{name: "compacted RV not older than still lists", compact: true, opts: metav1.ListOptions{ResourceVersion: "3"}, want: "a/p1@4 b/p3@6", wantRV: "6"},
		{name: "match without RV is a bad request", opts: metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: apierrors.IsBadRequest},
		{name: "exact with RV 0 is a bad request", opts: metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: apierrors.IsBadRequest},
		{name: "malformed RV is a bad request", opts: metav1.ListOptions{ResourceVersion: "x1"}, wantErr: apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := historyServer(t)
			if tt.compact {
				s.Compact()
			}
			l, err := listPods(t, s, "", tt.opts)
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(l.Items); got != tt.want || l.ResourceVersion != tt.wantRV {
				t.Fatalf("list = %q at %s, want %q at %s", got, l.ResourceVersion, tt.want, tt.wantRV)
			}
		})
	}
}

func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) && errors.Is(err, ErrExpired)
}

func isTooLarge(err error) bool {
	return apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

func TestListPaginatesOneSnapshotWithContinueTokens(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	for _, n := range []string{"p1", "p2", "p3", "p4", "p5"} {
		testutil.MustCreate(t, s, newPod("a", n))
	}
	first, err := listPods(t, s, "", metav1.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if names(first.Items) != "a/p1@2 a/p2@3" || first.Continue == "" || first.ResourceVersion != "6" {
		t.Fatalf("first page %s cont=%q rv=%s", names(first.Items), first.Continue, first.ResourceVersion)
	}
	if first.RemainingItemCount == nil || *first.RemainingItemCount != 3 {
		t.Fatalf("remainingItemCount = %v, want 3", first.RemainingItemCount)
	}
	// Changes after the first page do not show in later pages.
	if err := s.Delete("a", "p3"); err != nil {
		t.Fatal(err)
	}
	testutil.MustCreate(t, s, newPod("a", "p6"))
	var all []*corev1.Pod
	all = append(all, first.Items...)
	cont := first.Continue
	for cont != "" {
		page, err := listPods(t, s, "", metav1.ListOptions{Limit: 2, Continue: cont})
		if err != nil {
			t.Fatal(err)
		}
		if page.ResourceVersion != "6" {
			t.Fatalf("page RV %s, want the snapshot's 6", page.ResourceVersion)
		}
		all = append(all, page.Items...)
		cont = page.Continue
	}
	if got := names(all); got != "a/p1@2 a/p2@3 a/p3@4 a/p4@5 a/p5@6" {
		t.Fatalf("paginated list = %s", got)
	}
}

func TestListContinueTokenExpiresOnCompact(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	for _, n := range []string{"p1", "p2", "p3"} {
		testutil.MustCreate(t, s, newPod("a", n))
	}
	first, err := listPods(t, s, "", metav1.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Still valid while nothing is compacted, even after a change.
	testutil.MustCreate(t, s, newPod("a", "p4"))
	if _, err := listPods(t, s, "", metav1.ListOptions{Limit: 1, Continue: first.Continue}); err != nil {
		t.Fatalf("continue before compaction: %v", err)
	}
	s.Compact()
	_, err = listPods(t, s, "", metav1.ListOptions{Limit: 1, Continue: first.Continue})
	if !isExpired(err) {
		t.Fatalf("continue after compaction: %v, want 410 Expired matching ErrExpired", err)
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) || st.Status().Code != 410 {
		t.Fatalf("not a 410 status: %v", err)
	}
	if _, err := listPods(t, s, "", metav1.ListOptions{Continue: "garbage"}); !apierrors.IsBadRequest(err) {
		t.Fatalf("garbage continue: %v", err)
	}
	if _, err := listPods(t, s, "", metav1.ListOptions{Continue: first.Continue, ResourceVersion: "3"}); !apierrors.IsBadRequest(err) {
		t.Fatalf("continue with RV: %v", err)
	}
}

func TestListSelectorsAndNamespaceFilter(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	testutil.MustCreate(t, s, newPod("a", "p1", "app", "web"))
	testutil.MustCreate(t, s, newPod("a", "p2", "app", "db"))
	testutil.MustCreate(t, s, newPod("b", "p3", "app", "web"))
	testutil.MustCreate(t, s, newPod("b", "p4"))
	tests := []struct {
		name    string
		ns      string
		opts    metav1.ListOptions
		want    string
		wantErr bool
	}{
		{name: "namespace", ns: "b", want: "b/p3@4 b/p4@5"},
		{name: "label", opts: metav1.ListOptions{LabelSelector: "app=web"}, want: "a/p1@2 b/p3@4"},
		{name: "label in namespace", ns: "a", opts: metav1.ListOptions{LabelSelector: "app"}, want: "a/p1@2 a/p2@3"},
		{name: "label not in", opts: metav1.ListOptions{LabelSelector: "app notin (web)"}, want: "a/p2@3 b/p4@5"},
		{name: "field name", opts: metav1.ListOptions{FieldSelector: "metadata.name=p2"}, want: "a/p2@3"},
		{name: "field namespace", opts: metav1.ListOptions{FieldSelector: "metadata.namespace!=a"}, want: "b/p3@4 b/p4@5"},
		{name: "paginated label", opts: metav1.ListOptions{LabelSelector: "app=web", Limit: 1}, want: "a/p1@2"},
		{name: "unsupported field", opts: metav1.ListOptions{FieldSelector: "spec.nodeName=x"}, wantErr: true},
		{name: "bad label", opts: metav1.ListOptions{LabelSelector: "a in ("}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := listPods(t, s, tt.ns, tt.opts)
			if tt.wantErr {
				if !apierrors.IsBadRequest(err) {
					t.Fatalf("err = %v, want BadRequest", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(l.Items); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestListHistoryLimitForcesCompaction(t *testing.T) {
	s := historyServer(t, WithHistory(2)) // remembers RV5 and RV6 only
	if _, err := listPods(t, s, "", metav1.ListOptions{ResourceVersion: "4", ResourceVersionMatch: metav1.ResourceVersionMatchExact}); err != nil {
		t.Fatalf("exact list at the compaction point: %v", err)
	}
	if _, err := listPods(t, s, "", metav1.ListOptions{ResourceVersion: "3", ResourceVersionMatch: metav1.ResourceVersionMatchExact}); !isExpired(err) {
		t.Fatalf("exact list before the compaction point: %v", err)
	}
}

func TestListDelayHonoursContext(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	s := NewServer[*corev1.Pod](WithClock(clk))
	testutil.MustCreate(t, s, newPod("a", "p1"))
	s.SetListDelay(time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.ListerWatcher("").List(ctx, metav1.ListOptions{})
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled slow list: %v", err)
	}
	type result struct {
		l   *List[*corev1.Pod]
		err error
	}
	res := make(chan result, 1)
	go func() {
		obj, err := s.ListerWatcher("").List(context.Background(), metav1.ListOptions{})
		l, _ := obj.(*List[*corev1.Pod])
		res <- result{l, err}
	}()
	// The list waits on the fake clock; it reflects the state after the wait.
	testutil.Eventually(t, "the list to wait on the clock", clk.HasWaiters)
	testutil.MustCreate(t, s, newPod("a", "p2"))
	clk.Step(time.Minute)
	r := <-res
	if r.err != nil || names(r.l.Items) != "a/p1@2 a/p2@3" {
		t.Fatalf("slow list = %v, %v", r.l, r.err)
	}
	s.ClearFaults()
	if _, err := listPods(t, s, "", metav1.ListOptions{}); err != nil {
		t.Fatalf("list after ClearFaults: %v", err)
	}
}

func TestListFaultsApplyOnceOrUntilCleared(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	forbidden := apierrors.NewForbidden(s.Resource(), "", errors.New("rbac says no"))
	missing := apierrors.NewNotFound(s.Resource(), "")
	s.FailLists(forbidden)
	s.FailNextList(missing)
	steps := []func(error) bool{apierrors.IsNotFound, apierrors.IsForbidden, apierrors.IsForbidden}
	for i, check := range steps {
		if _, err := listPods(t, s, "", metav1.ListOptions{}); !check(err) {
			t.Fatalf("list %d: %v", i, err)
		}
	}
	s.ClearFaults()
	if _, err := listPods(t, s, "", metav1.ListOptions{}); err != nil {
		t.Fatalf("after ClearFaults: %v", err)
	}
}
