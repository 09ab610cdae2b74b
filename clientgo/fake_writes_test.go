package clientgo_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// TestTrackFakeWrites: the writes a fake clientset answers are recorded, so
// a lister over an informer whose watch has not delivered them yet waits
// for them (here until the test delivers the events), for a create, an
// update and a delete; writes the chain refuses are not recorded.
func TestTrackFakeWrites(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := kubefake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "old", UID: "u-old", ResourceVersion: "1"}})
	// The watch is the test's: it delivers only what the test sends.
	events := watch.NewFake()
	client.PrependWatchReactor("pods", func(clienttesting.Action) (bool, watch.Interface, error) { return true, events, nil })
	rv := 10
	client.PrependReactor("*", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		// Give every write a resourceVersion, as a server does.
		if c, ok := a.(clienttesting.CreateAction); ok {
			rv++
			c.GetObject().(*corev1.Pod).ResourceVersion = strconv.Itoa(rv)
		}
		return false, nil, nil
	})
	writes := cache.NewWriteTracker(cache.WriteTrackerOptions{Timeout: 5 * time.Second})
	clientgo.TrackFakeWrites(&client.Fake, writes)

	pods := client.CoreV1().Pods("a")
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](&cache.ListWatch{
		ListFunc:  func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return pods.List(ctx, o) },
		WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return pods.Watch(ctx, o) },
	}, cache.SharedIndexInformerOptions[*corev1.Pod]{Resource: corev1.SchemeGroupVersion.WithResource("pods"), Reflector: cache.ReflectorOptions{DisableWatchList: true}})
	if err := inf.(cache.WriteTrackerSetter).SetWriteTracker(writes, cache.WriteScope{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("not synced")
	}
	lister := listers.New(inf.GetIndexer(), schema.GroupResource{Resource: "pods"})

	created, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "new", UID: "u-new"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "old", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "new"}}, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}

	type result struct {
		pod *corev1.Pod
		err error
	}
	getNew, getOld := make(chan result, 1), make(chan result, 1)
	go func() { p, err := lister.Namespace("a").Get("new"); getNew <- result{p, err} }()
	go func() { p, err := lister.Namespace("a").Get("old"); getOld <- result{p, err} }()
	select {
	case r := <-getNew:
		t.Fatalf("Get(new) returned %v, %v before the informer saw the create", r.pod, r.err)
	case r := <-getOld:
		t.Fatalf("Get(old) returned %v, %v before the informer saw the delete", r.pod, r.err)
	case <-time.After(100 * time.Millisecond):
	}
	events.Add(created)
	events.Delete(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "old", UID: "u-old", ResourceVersion: "12"}})
	if r := <-getNew; r.err != nil || r.pod.UID != "u-new" {
		t.Errorf("Get(new) = %v, %v; want the created Pod", r.pod, r.err)
	}
	if r := <-getOld; !apierrors.IsNotFound(r.err) {
		t.Errorf("Get(old) = %v, %v; want NotFound", r.pod, r.err)
	}
}
