package prometheus

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	tu "github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// TestWriteWaitDurationOnTheRegistry: a read that waited for the program's
// write is one observation of the histogram; reads with nothing pending
// are none.
func TestWriteWaitDurationOnTheRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.NewServer[*corev1.Pod]()
	mustCreate(t, srv, "a")
	tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{WaitDuration: m.WriteWaitDuration()})
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Resource: corev1.SchemeGroupVersion.WithResource("pods"),
		Reflector: cache.ReflectorOptions{DisableWatchList: true},
	})
	if err := inf.(cache.WriteTrackerSetter).SetWriteTracker(tracker, cache.WriteScope{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("not synced")
	}
	tu.Eventually(t, "the watch open", func() bool { return srv.Watchers() == 1 })
	lister := listers.New(inf.GetIndexer(), schema.GroupResource{Resource: "pods"})
	count := func() uint64 {
		mf := series(t, reg, "typedinformer_write_tracker_wait_duration_seconds", nil)
		if mf == nil {
			return 0
		}
		return mf.GetHistogram().GetSampleCount()
	}
	if _, err := lister.Namespace("ns").Get("a"); err != nil || count() != 0 {
		t.Fatalf("a read with nothing pending: err %v, %d observations; want none", err, count())
	}
	srv.HoldWatchEvents()
	p := pod("a")
	cur, _ := srv.Get("ns", "a")
	p.ResourceVersion, p.Labels = cur.ResourceVersion, map[string]string{"v": "2"}
	upd, err := srv.Update(p)
	if err != nil {
		t.Fatal(err)
	}
	tracker.Wrote(schema.GroupResource{Resource: "pods"}, upd)
	go func() { time.Sleep(20 * time.Millisecond); srv.ReleaseWatchEvents() }()
	if got, err := lister.Namespace("ns").Get("a"); err != nil || got.ResourceVersion != upd.ResourceVersion {
		t.Fatalf("Get = %v, %v; want the write", got, err)
	}
	if n := count(); n != 1 {
		t.Errorf("%d observations after one read that waited, want 1", n)
	}
}
