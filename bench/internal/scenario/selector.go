package scenario

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// SelectorResult compares a running informer's selector change with
// tearing the informer down and building one with the new selector.
type SelectorResult struct {
	// N is the Pods the informer holds before and after (2N are served).
	N int `json:"n"`
	// ChangeSeconds and ChangeDecoded: SetSelectors until the store holds
	// the new selection and the handler was told every exit and add; the
	// objects the source served meanwhile (what a client decodes).
	ChangeSeconds float64 `json:"changeSeconds"`
	ChangeDecoded int64   `json:"changeDecoded"`
	// RebuildSeconds and RebuildDecoded: stopping the informer, building
	// and running a new one with the new selector until it synced and its
	// handler saw every object.
	RebuildSeconds float64 `json:"rebuildSeconds"`
	RebuildDecoded int64   `json:"rebuildDecoded"`
}

// selectingSource serves 2n Pods labelled tier=t0..t3 (i%4), filtering
// lists by the label selector as an API server does and counting the
// objects served; its watches stay idle.
type selectingSource struct {
	pods   []corev1.Pod
	served atomic.Int64
}

func (s *selectingSource) List(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	out := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for i := range s.pods {
		if sel.Matches(labels.Set(s.pods[i].Labels)) {
			out.Items = append(out.Items, s.pods[i])
		}
	}
	s.served.Add(int64(len(out.Items)))
	return out, nil
}

func (s *selectingSource) Watch(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFake()
	go func() { <-ctx.Done(); w.Stop() }()
	return w, nil
}

func (s *selectingSource) IsWatchListSemanticsUnSupported() bool { return true }

// countingHandler counts adds and deletes (scope exits count as deletes).
type countingHandler struct{ adds, deletes atomic.Int64 }

func (h *countingHandler) OnAdd(*corev1.Pod, bool)    { h.adds.Add(1) }
func (h *countingHandler) OnUpdate(_, _ *corev1.Pod)  {}
func (h *countingHandler) OnDelete(*corev1.Pod, bool) { h.deletes.Add(1) }
func (h *countingHandler) OnScopeExit(*corev1.Pod)    { h.deletes.Add(1) }
func (h *countingHandler) waitFor(adds, deletes int64) error {
	deadline := time.Now().Add(5 * time.Minute)
	for h.adds.Load() < adds || h.deletes.Load() < deletes {
		if time.Now().After(deadline) {
			return fmt.Errorf("selector: handler saw %d adds, %d deletes, want %d, %d", h.adds.Load(), h.deletes.Load(), adds, deletes)
		}
		time.Sleep(50 * time.Microsecond)
	}
	return nil
}

const (
	selectorBefore = "tier in (t0,t1)"
	selectorAfter  = "tier in (t1,t2)"
)

// Selector measures changing a running informer's label selector over n
// cached Pods, from tier in (t0,t1) to tier in (t1,t2): half of the cached
// Pods leave, as many enter, half stay. The rebuild side stops the informer
// and runs a new one with the new selector, which lists and adds all n.
func Selector(n int) (SelectorResult, error) {
	res := SelectorResult{N: n}
	src := &selectingSource{pods: fixture.PodList(2*n, "1").Items}
	for i := range src.pods {
		if src.pods[i].Labels == nil {
			src.pods[i].Labels = map[string]string{}
		}
		src.pods[i].Labels["tier"] = "t" + strconv.Itoa(i%4)
	}
	start := func(label string) (cache.SharedIndexInformer[*corev1.Pod], *countingHandler, func(), error) {
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](src, cache.SharedIndexInformerOptions[*corev1.Pod]{LabelSelector: label})
		h := &countingHandler{}
		if _, err := inf.AddEventHandler(h); err != nil {
			return nil, nil, nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); inf.Run(ctx) }()
		return inf, h, func() { cancel(); <-done }, nil
	}

	// Change.
	inf, h, stop, err := start(selectorBefore)
	if err != nil {
		return res, err
	}
	if err := h.waitFor(int64(n), 0); err != nil {
		stop()
		return res, err
	}
	before := src.served.Load()
	t0 := time.Now()
	if err := inf.(cache.SelectableInformer).SetSelectors(selectorAfter, ""); err != nil {
		stop()
		return res, err
	}
	err = h.waitFor(int64(n+n/2), int64(n/2))
	res.ChangeSeconds = time.Since(t0).Seconds()
	res.ChangeDecoded = src.served.Load() - before
	if err == nil && inf.GetStore().Len() != n {
		err = fmt.Errorf("selector: store holds %d after the change, want %d", inf.GetStore().Len(), n)
	}
	if err != nil {
		stop()
		return res, err
	}

	// Rebuild: tear down, then a new informer with the new selector.
	before = src.served.Load()
	t0 = time.Now()
	stop()
	_, h, stop, err = start(selectorAfter)
	if err != nil {
		return res, err
	}
	defer stop()
	err = h.waitFor(int64(n), 0)
	res.RebuildSeconds = time.Since(t0).Seconds()
	res.RebuildDecoded = src.served.Load() - before
	return res, err
}
