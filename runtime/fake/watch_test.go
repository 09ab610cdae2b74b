package fake

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

func TestWatchResourceVersionSemantics(t *testing.T) {
	tests := []struct {
		name    string
		opts    metav1.ListOptions
		compact bool
		want    []string
		closed  bool // the watch closes after want
	}{
		{
			name: "from an RV replays the changes after it",
			opts: metav1.ListOptions{ResourceVersion: "3"},
			want: []string{"MODIFIED a/p1@4", "DELETED a/p2@5", "ADDED b/p3@6"},
		},
		{
			name: "from the current RV sends nothing old",
			opts: metav1.ListOptions{ResourceVersion: "6"},
			want: nil,
		},
		{
			name: "empty RV starts with the current state",
			opts: metav1.ListOptions{},
			want: []string{"ADDED a/p1@4", "ADDED b/p3@6"},
		},
		{
			name: "RV 0 starts with the current state",
			opts: metav1.ListOptions{ResourceVersion: "0"},
			want: []string{"ADDED a/p1@4", "ADDED b/p3@6"},
		},
		{
			name:    "from a compacted RV gets a 410 ERROR event and closes",
			opts:    metav1.ListOptions{ResourceVersion: "3"},
			compact: true,
			want:    []string{"ERROR Expired 410"},
			closed:  true,
		},
		{
			name:    "from the compaction point replays nothing and stays open",
			opts:    metav1.ListOptions{ResourceVersion: "6"},
			compact: true,
		},
		{
			name: "watch-list streams the state then the end bookmark",
			opts: metav1.ListOptions{SendInitialEvents: ptr(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true},
			want: []string{"ADDED a/p1@4", "ADDED b/p3@6", "BOOKMARK @6+end"},
		},
		{
			name: "watch-list not older than an RV",
			opts: metav1.ListOptions{ResourceVersion: "3", SendInitialEvents: ptr(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true},
			want: []string{"ADDED a/p1@4", "ADDED b/p3@6", "BOOKMARK @6+end"},
		},
		{
			name: "sendInitialEvents=false from empty RV sends only new changes",
			opts: metav1.ListOptions{SendInitialEvents: ptr(false), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := historyServer(t)
			if tt.compact {
				s.Compact()
			}
			w := startWatch(t, s, "", tt.opts)
			expectEvents(t, w, tt.want...)
			if tt.closed {
				expectClosed(t, w)
				return
			}
			// Live changes follow what was replayed.
			testutil.MustCreate(t, s, newPod("c", "live"))
			expectEvents(t, w, "ADDED c/live@7")
		})
	}
}

func TestWatchExpiredStatusIsAnAPIError(t *testing.T) {
	s := historyServer(t)
	s.Compact()
	w := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "2"})
	ev := next(t, w)
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok {
		t.Fatalf("got %s, want an ERROR with a *metav1.Status", evString(ev))
	}
	if err := apierrors.FromObject(st); !apierrors.IsResourceExpired(err) || st.Code != 410 {
		t.Fatalf("status %+v is not 410 Expired", st)
	}
	if s.Watchers() != 0 {
		t.Fatal("an expired watch counts as open")
	}
}

func TestWatchRejectedRequests(t *testing.T) {
	tests := []struct {
		name  string
		opts  metav1.ListOptions
		srv   []ServerOption
		check func(error) bool
	}{
		{"future RV", metav1.ListOptions{ResourceVersion: "99"}, nil, isTooLarge},
		{"malformed RV", metav1.ListOptions{ResourceVersion: "abc"}, nil, apierrors.IsBadRequest},
		{"match without sendInitialEvents", metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, nil, apierrors.IsInvalid},
		{"sendInitialEvents without NotOlderThan", metav1.ListOptions{SendInitialEvents: ptr(true)}, nil, apierrors.IsInvalid},
		{"watch-list disabled", metav1.ListOptions{SendInitialEvents: ptr(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true}, []ServerOption{WithoutWatchList()}, apierrors.IsInvalid},
		{"bad selector", metav1.ListOptions{FieldSelector: "status.phase=Running"}, nil, apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := historyServer(t, tt.srv...)
			w, err := s.ListerWatcher("").Watch(context.Background(), tt.opts)
			if err == nil {
				w.Stop()
				t.Fatal("watch accepted")
			}
			if !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestWatchBookmarksOnlyWhenAllowed(t *testing.T) {
	s := historyServer(t)
	with := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "6", AllowWatchBookmarks: true})
	without := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "6"})
	s.SendBookmarks()
	testutil.MustCreate(t, s, newPod("a", "x"))
	s.SendBookmarks()
	expectEvents(t, with, "BOOKMARK @6", "ADDED a/x@7", "BOOKMARK @7")
	expectEvents(t, without, "ADDED a/x@7")
}

func TestWatchSelectorsTurnChangesIntoAddsAndDeletes(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	w := startWatch(t, s, "a", metav1.ListOptions{ResourceVersion: "1", LabelSelector: "app=web"})
	p := testutil.MustCreate(t, s, newPod("a", "p", "app", "db")) // 2: not selected
	testutil.MustCreate(t, s, newPod("b", "q", "app", "web"))     // 3: other namespace
	p.Labels["app"] = "web"
	p = testutil.MustUpdate(t, s, p) // 4: starts matching
	p = testutil.MustUpdate(t, s, p) // 5: still matching
	p.Labels["app"] = "db"
	testutil.MustUpdate(t, s, p) // 6: stops matching
	if err := s.Delete("a", "p"); err != nil {
		t.Fatal(err) // 7: not selected any more
	}
	testutil.MustCreate(t, s, newPod("a", "r", "app", "web")) // 8
	expectEvents(t, w, "ADDED a/p@4", "MODIFIED a/p@5", "DELETED a/p@6", "ADDED a/r@8")
}

func TestWatchTimeoutSecondsClosesTheWatch(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	s := NewServer[*corev1.Pod](WithClock(clk))
	w := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "1", TimeoutSeconds: ptr[int64](30)})
	testutil.MustCreate(t, s, newPod("a", "p"))
	clk.Step(29 * time.Second)
	expectEvents(t, w, "ADDED a/p@2")
	if s.Watchers() != 1 {
		t.Fatal("closed before its timeout")
	}
	clk.Step(time.Second)
	expectClosed(t, w)
}

func TestWatchStopAndContextEndTheWatch(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	w := startWatch(t, s, "", metav1.ListOptions{})
	testutil.MustCreate(t, s, newPod("a", "queued"))
	w.Stop()
	w.Stop() // idempotent
	// Queued events may or may not arrive; the channel closes.
	for range w.ResultChan() {
	}
	ctx, cancel := context.WithCancel(context.Background())
	w2, err := s.ListerWatcher("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for range w2.ResultChan() {
	}
	testutil.Eventually(t, "no open watches", func() bool { return s.Watchers() == 0 })
	if _, err := s.ListerWatcher("").Watch(ctx, metav1.ListOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("watch with a cancelled ctx: %v", err)
	}
}

func TestWatchDropWatchesDeliversQueuedEventsThenCloses(t *testing.T) {
	s := historyServer(t)
	w := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "4"})
	s.DropWatches()
	testutil.MustCreate(t, s, newPod("a", "late")) // not delivered: the watch is closed
	expectEvents(t, w, "DELETED a/p2@5", "ADDED b/p3@6")
	expectClosed(t, w)
}

func TestWatchExpireWatchesSendsGoneThenCloses(t *testing.T) {
	s := historyServer(t)
	w := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "6"})
	s.ExpireWatches()
	expectEvents(t, w, "ERROR Expired 410")
	expectClosed(t, w)
	// History is kept: a re-watch from 6 works until Compact.
	w2 := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "5"})
	expectEvents(t, w2, "ADDED b/p3@6")
}

func TestWatchFailNextWatchAndFailWatches(t *testing.T) {
	s := NewServer[*corev1.Pod]()
	refused := errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	s.FailWatches(apierrors.NewTooManyRequests("slow down", 1))
	s.FailNextWatch(refused)
	lw := s.ListerWatcher("")
	if _, err := lw.Watch(context.Background(), metav1.ListOptions{}); !errors.Is(err, refused) {
		t.Fatalf("first watch: %v, want the one-shot fault", err)
	}
	for i := 0; i < 2; i++ {
		if _, err := lw.Watch(context.Background(), metav1.ListOptions{}); !apierrors.IsTooManyRequests(err) {
			t.Fatalf("watch %d: %v, want the persistent fault", i, err)
		}
	}
	s.ClearFaults()
	startWatch(t, s, "", metav1.ListOptions{})
	if _, watches := s.Calls(); watches != 4 {
		t.Fatalf("%d watch calls, want 4", watches)
	}
}

func TestWatchInjectWrongTypeIsTheNextEvent(t *testing.T) {
	s := historyServer(t)
	w := startWatch(t, s, "", metav1.ListOptions{ResourceVersion: "6"})
	s.InjectWrongType(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "7"}})
	testutil.MustCreate(t, s, newPod("a", "after"))
	expectEvents(t, w, "MODIFIED *v1.Node", "ADDED a/after@7")
}

// Every goroutine a watch starts ends once the watch is stopped, its
// context ends, or the server closes it.
func TestWatchNoGoroutineLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	s := historyServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	var ws []watch.Interface
	for i := 0; i < 30; i++ {
		w, err := s.ListerWatcher("").Watch(ctx, metav1.ListOptions{ResourceVersion: "2"})
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	for _, w := range ws[:10] {
		w.Stop()
	}
	s.DropWatches()
	cancel()
	for _, w := range ws {
		for range w.ResultChan() {
		}
	}
	testutil.Eventually(t, "watch goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}
