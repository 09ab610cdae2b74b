package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clientgoinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	samplesinformers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	kubeinformers "github.com/typedinformer/typedinformer/kube/informers"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// slowWatch delays every read of a watch response's body by d: each watch
// event reaches the informer at least d after the write that caused it, as
// on a loaded apiserver or a slow network.
func slowWatch(d time.Duration) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil && req.URL.Query().Get("watch") == "true" {
				resp.Body = &slowBody{ReadCloser: resp.Body, d: d}
			}
			return resp, err
		})
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type slowBody struct {
	io.ReadCloser
	d time.Duration
}

func (b *slowBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		time.Sleep(b.d)
	}
	return n, err
}

// trackedClients returns a WriteTracker, clients whose writes it records,
// and clients whose watches are slowed by 150 ms per read, for informers.
func trackedClients(t *testing.T) (*cache.WriteTracker, clients, clients) {
	writes := cache.NewWriteTracker(cache.WriteTrackerOptions{Timeout: 30 * time.Second})
	writerCfg := rest.CopyConfig(cluster.AdminConfig())
	writerCfg.Wrap(writes.WrapTransport)
	slowCfg := rest.CopyConfig(cluster.AdminConfig())
	slowCfg.Wrap(slowWatch(150 * time.Millisecond))
	return writes, newClients(t, writerCfg), newClients(t, slowCfg)
}

// TestReadYourOwnWrites writes and immediately reads back, in a tight loop,
// with every watch slowed: a Foo's status updated from the lister's copy,
// ConfigMaps created, updated and deleted. client-go's listers (over the
// same slowed watches, in the same run) return stale objects; the
// generated listers of factories with a WriteTracker never do, and no
// status update conflicts.
func TestReadYourOwnWrites(t *testing.T) {
	ensureExampleCRDs(t)
	_, nss := adminIn(t, 1)
	ns := nss[0]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	writes, writer, slow := trackedClients(t)

	ours := samplesinformers.NewSharedInformerFactoryWithOptions(slow.samples, 0, samplesinformers.WithNamespace(ns), informers.WithWriteTracker(writes))
	oursKube := kubeinformers.NewSharedInformerFactoryWithOptions(slow.kube, 0, kubeinformers.WithNamespace(ns), informers.WithWriteTracker(writes))
	theirs := clientgoinformers.NewSharedInformerFactoryWithOptions(slow.kube, 0, clientgoinformers.WithNamespace(ns))
	foos := ours.Samples().V1alpha1().Foos().Lister()
	cms := oursKube.Core().V1().ConfigMaps().Lister()
	theirCMs := theirs.Core().V1().ConfigMaps().Lister()
	ours.Start(ctx)
	oursKube.Start(ctx)
	theirs.Start(ctx.Done())
	defer func() { cancel(); ours.Shutdown(); oursKube.Shutdown(); theirs.Shutdown() }()

	if _, err := writer.samples.SamplesV1alpha1().Foos(ns).Create(ctx, newFoo(ns, "foo", "", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), ours.Samples().V1alpha1().Foos().Informer().HasSynced,
		oursKube.Core().V1().ConfigMaps().Informer().HasSynced, theirs.Core().V1().ConfigMaps().Informer().HasSynced) {
		t.Fatal("informers did not sync")
	}

	const rounds = 15
	var theirStale int
	atLeast := func(got, want string) bool {
		g, err1 := strconv.ParseInt(got, 10, 64)
		w, err2 := strconv.ParseInt(want, 10, 64)
		return err1 == nil && err2 == nil && g >= w
	}
	for i := range rounds {
		// Status from the lister's copy: a stale copy is a conflict.
		foo, err := foos.Foos(ns).Get("foo")
		if err != nil {
			t.Fatalf("round %d: Get foo: %v", i, err)
		}
		foo = foo.DeepCopy()
		foo.Status = samplesv1alpha1.FooStatus{Phase: "Ready", Message: fmt.Sprintf("round %d", i), ObservedGeneration: foo.Generation}
		updated, err := writer.samples.SamplesV1alpha1().Foos(ns).UpdateStatus(ctx, foo, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("round %d: status update from the lister's copy: %v", i, err)
		}
		if got, err := foos.Foos(ns).Get("foo"); err != nil || !atLeast(got.ResourceVersion, updated.ResourceVersion) || got.Status.Message != foo.Status.Message {
			t.Fatalf("round %d: after a status update at %s the lister returned %v (err %v)", i, updated.ResourceVersion, got, err)
		}

		name := fmt.Sprintf("cm-%d", i)
		created, err := writer.kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := cms.ConfigMaps(ns).Get(name); err != nil || got.UID != created.UID {
			t.Fatalf("round %d: after a create the lister returned %v, %v", i, got, err)
		}
		if _, err := theirCMs.ConfigMaps(ns).Get(name); apierrors.IsNotFound(err) {
			theirStale++
		}

		created.Data["v"] = "2"
		upd, err := writer.kube.CoreV1().ConfigMaps(ns).Update(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := cms.ConfigMaps(ns).Get(name); err != nil || got.Data["v"] != "2" {
			t.Fatalf("round %d: after an update at %s the lister returned %v, %v", i, upd.ResourceVersion, got, err)
		}
		if got, err := theirCMs.ConfigMaps(ns).Get(name); err != nil || got.Data["v"] != "2" {
			theirStale++
		}

		start := time.Now()
		if err := writer.kube.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("round %d: delete after %v: %v", i, time.Since(start), err)
		}
		if got, err := cms.ConfigMaps(ns).Get(name); !apierrors.IsNotFound(err) {
			t.Fatalf("round %d: after a delete the lister returned %v, %v", i, got, err)
		}
		list, err := cms.ConfigMaps(ns).List(labels.Everything())
		if err != nil || len(list) != 0 {
			t.Fatalf("round %d: after a delete the lister listed %d ConfigMaps (err %v), want none", i, len(list), err)
		}
		if _, err := theirCMs.ConfigMaps(ns).Get(name); err == nil {
			theirStale++
		}
	}
	t.Logf("client-go's lister returned %d stale reads in %d rounds of 3 ConfigMap writes; ours none", theirStale, rounds)
	if theirStale == 0 {
		t.Error("client-go's lister read every write back: the slowed watch did not delay anything, so this test shows nothing")
	}
}

// TestReadYourOwnWritesAcrossSelectionChanges: the program creates and
// updates ConfigMaps outside its informer's label selection, then changes
// the selection to take them in; with every watch (and so the watch-list
// relist) slowed, a read right after the change returns the write, and
// one after a change that leaves them out returns NotFound without
// waiting for anything.
func TestReadYourOwnWritesAcrossSelectionChanges(t *testing.T) {
	_, nss := adminIn(t, 1)
	ns := nss[0]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	writes, writer, slow := trackedClients(t)

	f := kubeinformers.NewSharedInformerFactoryWithOptions(slow.kube, 0, kubeinformers.WithNamespace(ns), informers.WithWriteTracker(writes))
	if err := f.Base().SetSelectors("tier=a", ""); err != nil {
		t.Fatal(err)
	}
	cms := f.Core().V1().ConfigMaps().Lister()
	f.Start(ctx)
	defer func() { cancel(); f.Shutdown() }()
	if !toolscache.WaitForCacheSync(ctx.Done(), f.Core().V1().ConfigMaps().Informer().HasSynced) {
		t.Fatal("the informer did not sync")
	}

	tiers := []string{"a", "b"}
	for i := range 6 {
		in, out := tiers[i%2], tiers[(i+1)%2]
		name := fmt.Sprintf("cm-%d", i)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"tier": out}}, Data: map[string]string{"v": "1"}}
		created, err := writer.kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Data["v"] = "2"
		updated, err := writer.kube.CoreV1().ConfigMaps(ns).Update(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Outside the selection: not waited for.
		start := time.Now()
		if got, err := cms.ConfigMaps(ns).Get(name); !apierrors.IsNotFound(err) || time.Since(start) > 100*time.Millisecond {
			t.Fatalf("round %d: Get of a ConfigMap outside tier=%s returned %v, %v after %v; want NotFound at once", i, in, got, err, time.Since(start))
		}
		if err := f.Base().SetSelectors("tier="+out, ""); err != nil {
			t.Fatal(err)
		}
		if got, err := cms.ConfigMaps(ns).Get(name); err != nil || got.ResourceVersion != updated.ResourceVersion {
			t.Fatalf("round %d: right after the selection changed to tier=%s, Get returned %v, %v; want the write at resourceVersion %s", i, out, got, err, updated.ResourceVersion)
		}
		list, err := cms.ConfigMaps(ns).List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range list {
			if cm.Labels["tier"] != out {
				t.Fatalf("round %d: after the change to tier=%s the lister lists %s of tier %q", i, out, cm.Name, cm.Labels["tier"])
			}
		}
		if len(list) != i/2+1 {
			t.Fatalf("round %d: after the change to tier=%s the lister lists %d ConfigMaps, want %d", i, out, len(list), i/2+1)
		}
	}
}
