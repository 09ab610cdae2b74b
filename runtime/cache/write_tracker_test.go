package cache_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

var podsGR = schema.GroupResource{Resource: "pods"}

// trackedPods runs a Pod informer over srv, selecting what scope selects,
// with tracker t attached (when set), and returns a lister over it.
func trackedPods(tb testing.TB, srv *fake.Server[*corev1.Pod], t *cache.WriteTracker, scope cache.WriteScope) (cache.SharedIndexInformer[*corev1.Pod], *listers.ResourceLister[*corev1.Pod]) {
	tb.Helper()
	lw := srv.ListerWatcher(scope.Namespace)
	selected := &cache.ListWatch{
		ListFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = scope.LabelSelector
			return lw.List(ctx, o)
		},
		WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = scope.LabelSelector
			return lw.Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](selected, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name:      "pods",
		Resource:  corev1.SchemeGroupVersion.WithResource("pods"),
		Reflector: fastReflector(),
	})
	if t != nil {
		if err := inf.(cache.WriteTrackerSetter).SetWriteTracker(t, scope); err != nil {
			tb.Fatal(err)
		}
	}
	run(tb, inf)
	waitSynced(tb, inf)
	waitWatchers(tb, srv, 1)
	return inf, listers.New(inf.GetIndexer(), podsGR)
}

// result is a read's outcome, from a goroutine.
type result struct {
	pod  *corev1.Pod
	pods []*corev1.Pod
	err  error
}

// async runs read and returns its outcome's channel.
func async(read func() result) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- read() }()
	return ch
}

// notYet fails when ch delivers within a short while: the read must wait
// for the held watch event.
func notYet(t *testing.T, what string, ch <-chan result) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("%s returned before the store applied the write: %+v", what, r)
	case <-time.After(100 * time.Millisecond):
	}
}

func got(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(waitLimit):
		t.Fatal("the read did not return after the watch events were released")
		return result{}
	}
}

// TestWriteTrackerReadsOwnWrites: with watch events held back, a lister
// without a tracker returns the state before the program's write (the
// symptom), and the lister of an informer with the tracker waits and
// returns the write, for an update, a create and a delete, through Get and
// List.
func TestWriteTrackerReadsOwnWrites(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	old := create(t, srv, newPod("a", "web"))
	create(t, srv, newPod("a", "gone"))
	tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{})
	_, plain := trackedPods(t, srv, nil, cache.WriteScope{})
	_, tracked := trackedPods(t, srv, tracker, cache.WriteScope{})

	srv.HoldWatchEvents()
	upd := newPod("a", "web", "v", "2")
	upd.ResourceVersion = old.ResourceVersion
	written := update(t, srv, upd)
	tracker.Wrote(podsGR, written)
	created := create(t, srv, newPod("a", "new"))
	tracker.Wrote(podsGR, created)
	gone, _ := plain.Namespace("a").Get("gone")
	del(t, srv, "a", "gone")
	tracker.Deleted(podsGR, "a", "gone", gone.UID)

	// The symptom, without a tracker: the old version, no created object,
	// the deleted one still there.
	if p, err := plain.Namespace("a").Get("web"); err != nil || p.ResourceVersion != old.ResourceVersion {
		t.Fatalf("without a tracker: Get = %v, %v; want the stale version %s (the watch is held)", p, err, old.ResourceVersion)
	}
	if _, err := plain.Namespace("a").Get("new"); !apierrors.IsNotFound(err) {
		t.Fatalf("without a tracker: Get(new) err = %v, want NotFound while the watch is held", err)
	}

	getWeb := async(func() result { p, err := tracked.Namespace("a").Get("web"); return result{pod: p, err: err} })
	getNew := async(func() result { p, err := tracked.Namespace("a").Get("new"); return result{pod: p, err: err} })
	getGone := async(func() result { p, err := tracked.Namespace("a").Get("gone"); return result{pod: p, err: err} })
	list := async(func() result { ps, err := tracked.List(labels.Everything()); return result{pods: ps, err: err} })
	notYet(t, "Get of the updated object", getWeb)
	notYet(t, "Get of the created object", getNew)
	notYet(t, "Get of the deleted object", getGone)
	notYet(t, "List", list)
	srv.ReleaseWatchEvents()

	if r := got(t, getWeb); r.err != nil || r.pod.ResourceVersion != written.ResourceVersion {
		t.Errorf("Get(web) = %v, %v; want resourceVersion %s", r.pod, r.err, written.ResourceVersion)
	}
	if r := got(t, getNew); r.err != nil || r.pod.UID != created.UID {
		t.Errorf("Get(new) = %v, %v; want the created object", r.pod, r.err)
	}
	if r := got(t, getGone); !apierrors.IsNotFound(r.err) {
		t.Errorf("Get(gone) = %v, %v; want NotFound", r.pod, r.err)
	}
	r := got(t, list)
	if r.err != nil || storeString(r.pods) != storeString([]*corev1.Pod{written, created}) {
		t.Errorf("List = %s, %v; want %s", storeString(r.pods), r.err, storeString([]*corev1.Pod{written, created}))
	}
}

// TestWriteTrackerDoesNotWaitWithoutPendingWrites: reads of other objects,
// reads of objects in other informers' selections, and reads after the
// write was applied return at once even while the watch is held.
func TestWriteTrackerDoesNotWaitWithoutPendingWrites(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	create(t, srv, newPod("a", "web"))
	db := create(t, srv, newPod("b", "db", "app", "db"))
	tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{Timeout: 20 * time.Millisecond})
	_, inA := trackedPods(t, srv, tracker, cache.WriteScope{Namespace: "a"})
	_, webOnly := trackedPods(t, srv, tracker, cache.WriteScope{LabelSelector: "app=web"})

	srv.HoldWatchEvents()
	defer srv.ReleaseWatchEvents()
	p := newPod("b", "db", "app", "db", "x", "1")
	p.ResourceVersion = db.ResourceVersion
	tracker.Wrote(podsGR, update(t, srv, p))

	// Namespace a's informer never sees namespace b; the app=web informer
	// never held db, which is not app=web.
	if _, err := inA.List(labels.Everything()); err != nil {
		t.Errorf("List of namespace a after a write in b: %v; want no wait", err)
	}
	if _, err := webOnly.List(labels.Everything()); err != nil {
		t.Errorf("List of app=web after a write of an app=db Pod: %v; want no wait", err)
	}
	if _, err := inA.Namespace("a").Get("web"); err != nil {
		t.Errorf("Get of another object: %v; want no wait", err)
	}
}

// TestWriteTrackerTimeout: a read that waits longer than the tracker's
// timeout, or past its context, fails with ErrWriteNotObserved naming the
// object and both resourceVersions, and the cache keeps its content.
func TestWriteTrackerTimeout(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	old := create(t, srv, newPod("a", "web"))
	tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{Timeout: 50 * time.Millisecond})
	inf, tracked := trackedPods(t, srv, tracker, cache.WriteScope{})
	srv.HoldWatchEvents()
	defer srv.ReleaseWatchEvents()
	upd := newPod("a", "web", "v", "2")
	upd.ResourceVersion = old.ResourceVersion
	written := update(t, srv, upd)
	tracker.Wrote(podsGR, written)

	_, err := tracked.Namespace("a").Get("web")
	if !errors.Is(err, cache.ErrWriteNotObserved) {
		t.Fatalf("Get err = %v, want ErrWriteNotObserved", err)
	}
	for _, want := range []string{"pods a/web", `resourceVersion "` + old.ResourceVersion + `"`, "resourceVersion " + written.ResourceVersion} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to name %q", err, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := inf.GetIndexer().(cache.WriteWaiter).WaitForWrites(ctx); !errors.Is(err, cache.ErrWriteNotObserved) || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("WaitForWrites(canceled) = %v, want ErrWriteNotObserved saying the context was canceled", err)
	}
	if p, ok, _ := inf.GetIndexer().GetByKey("a/web"); !ok || p.ResourceVersion != old.ResourceVersion {
		t.Errorf("the store holds %v, want the version before the write, untouched", p)
	}
}

// TestWriteTrackerStoppedInformerDoesNotWait: a stopped informer's store
// never advances; its reads do not wait for writes.
func TestWriteTrackerStoppedInformerDoesNotWait(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	old := create(t, srv, newPod("a", "web"))
	tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{})
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Resource: corev1.SchemeGroupVersion.WithResource("pods"), Reflector: fastReflector()})
	if err := inf.(cache.WriteTrackerSetter).SetWriteTracker(tracker, cache.WriteScope{}); err != nil {
		t.Fatal(err)
	}
	stop := run(t, inf)
	waitSynced(t, inf)
	stop()
	upd := newPod("a", "web", "v", "2")
	upd.ResourceVersion = old.ResourceVersion
	tracker.Wrote(podsGR, update(t, srv, upd))
	done := async(func() result {
		p, err := listers.New(inf.GetIndexer(), podsGR).Namespace("a").Get("web")
		return result{pod: p, err: err}
	})
	if r := got(t, done); r.err != nil {
		t.Errorf("Get on a stopped informer: %v", r.err)
	}
}

// TestSetWriteTrackerBadInput: an informer without a Resource and a scope
// whose selector does not parse are errors naming them.
func TestSetWriteTrackerBadInput(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{})
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{})
	if err := inf.(cache.WriteTrackerSetter).SetWriteTracker(tracker, cache.WriteScope{}); err == nil || !strings.Contains(err.Error(), "no Resource") {
		t.Errorf("no Resource: err = %v", err)
	}
	inf = podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Resource: corev1.SchemeGroupVersion.WithResource("pods")})
	if err := inf.(cache.WriteTrackerSetter).SetWriteTracker(tracker, cache.WriteScope{LabelSelector: "a in (("}); err == nil || !strings.Contains(err.Error(), `label selector "a in (("`) {
		t.Errorf("bad selector: err = %v", err)
	}
}

// TestLastStoreSyncResourceVersion follows the store's version through a
// list, a watch event and a bookmark.
func TestLastStoreSyncResourceVersion(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	create(t, srv, newPod("a", "web"))
	create(t, srv, newPod("a", "db"))
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	run(t, inf)
	waitSynced(t, inf)
	waitWatchers(t, srv, 1)
	st := inf.GetStore()
	eventually(t, "the list's resourceVersion", func() bool { return st.LastStoreSyncResourceVersion() == srv.ResourceVersion() })
	p := create(t, srv, newPod("a", "new"))
	eventually(t, "the event's resourceVersion", func() bool { return st.LastStoreSyncResourceVersion() == p.ResourceVersion })
	srv.SendBookmarks()
	eventually(t, "the bookmark's resourceVersion", func() bool { return st.LastStoreSyncResourceVersion() == srv.ResourceVersion() })

	standalone := cache.NewStore[*corev1.Pod]()
	x := newPod("a", "x")
	x.ResourceVersion = "17"
	if err := standalone.Add(x); err != nil {
		t.Fatal(err)
	}
	if got := standalone.LastStoreSyncResourceVersion(); got != "17" {
		t.Errorf("after Add: %q, want 17", got)
	}
	if err := standalone.Replace(nil, "20"); err != nil {
		t.Fatal(err)
	}
	if got := standalone.LastStoreSyncResourceVersion(); got != "20" {
		t.Errorf("after Replace: %q, want 20", got)
	}
}

// roundTripper answers every request with a fixed response.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestWriteTrackerTransport: the answers of writes in JSON and protobuf are
// recorded (and handed on unchanged); reads, failed writes, collection
// deletes and POSTs to other subresources are not.
func TestWriteTrackerTransport(t *testing.T) {
	podJSON := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","namespace":"a","uid":"u1","resourceVersion":"42"}}`
	statusJSON := `{"kind":"Status","apiVersion":"v1","status":"Success"}`
	protoPod := func() []byte {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "a", UID: "u1", ResourceVersion: "42"}}
		raw, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "Pod"}, Raw: raw}
		b, err := u.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte("k8s\x00"), b...)
	}()
	cases := []struct {
		name, method, path, contentType string
		code                            int
		body                            []byte
		want                            string // the recorded call, "" for none
	}{
		{"create JSON", "POST", "/api/v1/namespaces/a/pods", "application/json", 201, []byte(podJSON), "wrote pods a/web 42"},
		{"update protobuf", "PUT", "/api/v1/namespaces/a/pods/web", "application/vnd.kubernetes.protobuf", 200, protoPod, "wrote pods a/web 42"},
		{"status patch of a group's resource", "PATCH", "/apis/samples.example.com/v1/namespaces/a/foos/web/status", "application/json; charset=utf-8", 200, []byte(podJSON), "wrote foos.samples.example.com a/web 42"},
		{"delete answered with a Status", "DELETE", "/api/v1/namespaces/a/pods/web", "application/json", 200, []byte(statusJSON), "deleted pods a/web "},
		{"delete answered with the object", "DELETE", "/api/v1/namespaces/a/pods/web", "application/json", 200, []byte(podJSON), "deleted pods a/web u1"},
		{"delete leaving the object terminating", "DELETE", "/api/v1/namespaces/a/pods/web", "application/json", 200,
			[]byte(`{"kind":"Pod","metadata":{"name":"web","namespace":"a","uid":"u1","resourceVersion":"43","deletionTimestamp":"2026-01-01T00:00:00Z"}}`), "wrote pods a/web 43"},
		{"get", "GET", "/api/v1/namespaces/a/pods/web", "application/json", 200, []byte(podJSON), ""},
		{"conflict", "PUT", "/api/v1/namespaces/a/pods/web", "application/json", 409, []byte(statusJSON), ""},
		{"collection delete", "DELETE", "/api/v1/namespaces/a/pods", "application/json", 200, []byte(statusJSON), ""},
		{"eviction", "POST", "/api/v1/namespaces/a/pods/web/eviction", "application/json", 201, []byte(statusJSON), ""},
		{"not an API path", "POST", "/healthz", "application/json", 200, []byte(podJSON), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &writeRecorder{}
			tracker := rec.tracker(t)
			rt := tracker.WrapTransport(roundTripper(func(*http.Request) (*http.Response, error) {
				h := http.Header{}
				h.Set("Content-Type", tc.contentType)
				return &http.Response{StatusCode: tc.code, Header: h, Body: io.NopCloser(bytes.NewReader(tc.body))}, nil
			}))
			req, _ := http.NewRequest(tc.method, "https://server"+tc.path, nil)
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if !bytes.Equal(body, tc.body) {
				t.Errorf("the body handed on differs from the server's")
			}
			if got := rec.String(); got != tc.want {
				t.Errorf("recorded %q, want %q", got, tc.want)
			}
		})
	}
}

// writeRecorder records what a tracker is told.
type writeRecorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *writeRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.calls, "; ")
}

// tracker returns a tracker whose writes of pods and foos r records.
func (r *writeRecorder) tracker(t *testing.T) *cache.WriteTracker {
	t.Helper()
	tr := cache.NewWriteTracker(cache.WriteTrackerOptions{})
	for _, gr := range []schema.GroupResource{podsGR, {Group: "samples.example.com", Resource: "foos"}} {
		cache.ObserveWrites(tr, gr, func(op, key, detail string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.calls = append(r.calls, op+" "+gr.String()+" "+key+" "+detail)
		})
	}
	return tr
}
