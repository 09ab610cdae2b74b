package clientgo_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// lastErrorer is what this package's informers add to client-go's
// interface: why they have not synced.
type lastErrorer interface {
	LastError() error
}

type notRegistered struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (n *notRegistered) DeepCopyObject() runtime.Object { c := *n; return &c }

// TestBadInputNeverSyncs: each informer must stay unsynced and say why,
// through LastError and through the watch error handler or Run's log.
func TestBadInputNeverSyncs(t *testing.T) {
	cmList := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "5"},
		Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "cm"}}}}
	wrongGVK := &unstructured.UnstructuredList{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "5"}}}
	wrongGVK.Items = []unstructured.Unstructured{{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": "a", "name": "cm"}}}}
	deployment := &unstructured.Unstructured{}
	deployment.SetAPIVersion("apps/v1")
	deployment.SetKind("Deployment")
	tests := []struct {
		name    string
		example runtime.Object
		list    runtime.Object
		opts    []clientgo.Option
		// handlerErr: errors reach the watch error handler (the informer
		// runs); else Run only logs and AddEventHandler fails.
		handlerErr bool
		want       string
	}{
		{name: "nil example object", example: nil, list: cmList, want: "nil example object"},
		{name: "list of another type", example: &corev1.Pod{}, list: cmList, handlerErr: true,
			want: "object a/cm is *v1.ConfigMap, want *v1.Pod"},
		{name: "unstructured list of another kind", example: deployment, list: wrongGVK, handlerErr: true,
			want: "want apps/v1, Kind=Deployment"},
		{name: "type not registered in the scheme", example: &notRegistered{}, list: cmList,
			opts: []clientgo.Option{clientgo.WithScheme(scheme.Scheme)}, want: "no kind is registered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lw := &scriptedLW{lists: []runtime.Object{tc.list}, watches: make(chan *watch.RaceFreeFakeWatcher, 100)}
			inf := clientgo.NewInformerFunc(tc.opts...)(lw, tc.example, 0, nil)
			var mu sync.Mutex
			var handlerErrs []error
			if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *toolscache.Reflector, err error) {
				mu.Lock()
				handlerErrs = append(handlerErrs, err)
				mu.Unlock()
				if r == nil || r.Name() == "" {
					t.Errorf("watch error handler got reflector %v without a name", r)
				}
			}); err != nil {
				t.Fatal(err)
			}
			_, addErr := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan struct{})
			go func() { defer close(done); inf.RunWithContext(ctx) }()
			waitFor(t, "the error", func() bool {
				err := inf.(lastErrorer).LastError()
				return err != nil && strings.Contains(err.Error(), tc.want)
			})
			if tc.handlerErr {
				waitFor(t, "the watch error handler", func() bool {
					mu.Lock()
					defer mu.Unlock()
					return len(handlerErrs) > 0 && strings.Contains(handlerErrs[0].Error(), tc.want)
				})
				if !errors.Is(handlerErrs[0], cache.ErrWrongType) {
					t.Errorf("error %v does not wrap cache.ErrWrongType", handlerErrs[0])
				}
			} else if addErr == nil || !strings.Contains(addErr.Error(), tc.want) {
				t.Errorf("AddEventHandler: got %v, want an error containing %q", addErr, tc.want)
			}
			if inf.HasSynced() {
				t.Error("informer synced")
			}
			select {
			case <-inf.HasSyncedChecker().Done():
				t.Error("HasSyncedChecker done")
			default:
			}
			cancel()
			<-done
			if !inf.IsStopped() {
				t.Error("IsStopped false after Run returned")
			}
		})
	}
}

// TestWrongTypeWatchEventDropped: a watch event of another type is dropped
// and reported; the events around it are delivered.
func TestWrongTypeWatchEventDropped(t *testing.T) {
	lw := &scriptedLW{lists: []runtime.Object{podList("1")}, watches: make(chan *watch.RaceFreeFakeWatcher, 4)}
	inf := clientgo.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
	got := &transcript{}
	if _, err := inf.AddEventHandler(recorder(got)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	w := <-lw.watches
	w.Add(pod("a", "p1", "2", "1"))
	w.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "cm", ResourceVersion: "3"}})
	w.Add(pod("a", "p2", "4", "1"))
	got.waitLen(t, 2)
	want := []string{`add a/p1 rv="2" label="1" initial=false`, `add a/p2 rv="4" label="1" initial=false`}
	if lines := got.snapshot(); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", lines, want)
	}
	if err := inf.(lastErrorer).LastError(); err == nil || !strings.Contains(err.Error(), "object a/cm is *v1.ConfigMap, want *v1.Pod") {
		t.Errorf("LastError: got %v, want the dropped ConfigMap named", err)
	}
}
