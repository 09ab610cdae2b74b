package informers_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// podSource is a minimal per-namespace pod server for factory tests: lists
// return what it holds, watches are fake watchers the test pushes into.
type podSource struct {
	mu       sync.Mutex
	rv       int
	pods     map[string]*corev1.Pod // by key
	watchers map[string][]*watch.FakeWatcher
	listErr  error
	lists    map[string]int // list calls per namespace
	opts     []metav1.ListOptions
}

func newPodSource(pods ...*corev1.Pod) *podSource {
	s := &podSource{pods: map[string]*corev1.Pod{}, watchers: map[string][]*watch.FakeWatcher{}, lists: map[string]int{}}
	for _, p := range pods {
		s.rv++
		p.ResourceVersion = strconv.Itoa(s.rv)
		s.pods[cache.NewObjectName(p.Namespace, p.Name).String()] = p
	}
	return s
}

func newPod(ns, name string) *corev1.Pod { return testutil.Pod(ns, name) }

func (s *podSource) lw(namespace string) cache.ListerWatcher {
	return &cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.lists[namespace]++
			s.opts = append(s.opts, opts)
			if s.listErr != nil {
				return nil, s.listErr
			}
			list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
			for _, p := range s.pods {
				if namespace == "" || p.Namespace == namespace {
					list.Items = append(list.Items, *p.DeepCopy())
				}
			}
			return list, nil
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opts.SendInitialEvents != nil {
				// Like a server without watch-list: informers list instead.
				return nil, apierrors.NewBadRequest("sendInitialEvents is not supported")
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			w := watch.NewFakeWithChanSize(100, false)
			s.watchers[namespace] = append(s.watchers[namespace], w)
			return w, nil
		},
	}
}

// add stores a pod and sends it to the watchers of its namespace and of
// all namespaces.
func (s *podSource) add(p *corev1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	p.ResourceVersion = strconv.Itoa(s.rv)
	s.pods[cache.NewObjectName(p.Namespace, p.Name).String()] = p
	for _, ns := range []string{"", p.Namespace} {
		for _, w := range s.watchers[ns] {
			w.Add(p.DeepCopy())
		}
	}
}

func (s *podSource) listCalls(ns string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists[ns]
}

func (s *podSource) setListErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listErr = err
}

func (s *podSource) newInformer(namespace string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
	return cache.NewSharedIndexInformerWithOptions(s.lw(namespace), cache.SharedIndexInformerOptions[*corev1.Pod]{
		ResyncPeriod: resync,
		Name:         fmt.Sprintf("pods(%s)", namespace),
	})
}

// factoryContext returns the context to start f with: it is cancelled,
// and then f shut down, when the test ends.
func factoryContext(t *testing.T, f *informers.Factory) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
	})
	return ctx
}

// waitFactory waits for f's started informers to sync, failing t on an
// error.
func waitFactory(t *testing.T, f *informers.Factory) {
	t.Helper()
	if _, err := f.WaitForCacheSync(syncCtx(t)); err != nil {
		t.Fatal(err)
	}
}

func syncCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
