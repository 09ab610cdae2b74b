package scenario

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// WriteTrackerResult is the cost of read-your-own-writes on lister reads:
// Get and List with a WriteTracker attached and nothing pending, against
// the same informer without one, and, for writes through the tracker, how
// long the read after the write took against the watch latency.
type WriteTrackerResult struct {
	N int `json:"n"`
	// Nanoseconds per lister read: Get cycles through every object, List
	// returns all of them.
	GetOffNs  float64 `json:"getOffNs"`
	GetOnNs   float64 `json:"getOnNs"`
	ListOffNs float64 `json:"listOffNs"`
	ListOnNs  float64 `json:"listOnNs"`
	// Per write, in seconds from the write's return: until the lister's Get
	// returned it (ReadSeconds), and until the informer's handler received
	// its event (WatchSeconds).
	ReadSeconds  []float64 `json:"readSeconds"`
	WatchSeconds []float64 `json:"watchSeconds"`
}

// WriteTracker runs two Pod informers over one in-memory API server holding
// n Pods, one with a WriteTracker attached, and measures lister Get and List
// on each for at least minDur, then writes times: each write is an update
// recorded in the tracker and read back at once through the tracked lister.
func WriteTracker(n int, minDur time.Duration, writes int) (WriteTrackerResult, error) {
	res := WriteTrackerResult{N: n}
	srv := fake.NewServer[*corev1.Pod](fake.WithoutWatchList())
	list := fixture.PodList(n, "1")
	for i := range list.Items {
		p := &list.Items[i]
		p.ResourceVersion = ""
		if _, err := srv.Create(p); err != nil {
			return res, fmt.Errorf("create %s: %w", p.Name, err)
		}
	}
	tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	gr := schema.GroupResource{Resource: "pods"}
	newInformer := func(track bool) (cache.SharedIndexInformer[*corev1.Pod], *listers.ResourceLister[*corev1.Pod], error) {
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{
			Resource: corev1.SchemeGroupVersion.WithResource("pods"),
		})
		if track {
			if err := inf.(cache.WriteTrackerSetter).SetWriteTracker(tracker, cache.WriteScope{}); err != nil {
				return nil, nil, err
			}
		}
		wg.Go(func() { inf.Run(ctx) })
		return inf, listers.New(inf.GetIndexer(), gr), nil
	}
	_, off, err := newInformer(false)
	if err != nil {
		return res, err
	}
	on, onLister, err := newInformer(true)
	if err != nil {
		return res, err
	}
	// The tracked informer's handler notes when each awaited version
	// arrives.
	var mu sync.Mutex
	var awaited string
	arrived := make(chan time.Time, 1)
	if _, err := on.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		UpdateFunc: func(_, p *corev1.Pod) {
			mu.Lock()
			defer mu.Unlock()
			if p.ResourceVersion == awaited {
				arrived <- time.Now()
			}
		},
	}); err != nil {
		return res, err
	}
	syncCtx, syncCancel := context.WithTimeout(ctx, 2*time.Minute)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), on.HasSynced) {
		return res, fmt.Errorf("informers did not sync")
	}
	for _, l := range []*listers.ResourceLister[*corev1.Pod]{off, onLister} {
		for {
			if ps, _ := l.List(labels.Everything()); len(ps) == n {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}

	names := make([]string, n)
	namespaces := make([]string, n)
	for i := range list.Items {
		names[i], namespaces[i] = list.Items[i].Name, list.Items[i].Namespace
	}
	timeGets := func(l *listers.ResourceLister[*corev1.Pod]) (float64, error) {
		ops, start := 0, time.Now()
		for time.Since(start) < minDur {
			for i := 0; i < 1000; i++ {
				k := (ops + i) % n
				if _, err := l.Namespace(namespaces[k]).Get(names[k]); err != nil {
					return 0, err
				}
			}
			ops += 1000
		}
		return float64(time.Since(start).Nanoseconds()) / float64(ops), nil
	}
	timeLists := func(l *listers.ResourceLister[*corev1.Pod]) (float64, error) {
		ops, start := 0, time.Now()
		for time.Since(start) < minDur {
			if _, err := l.List(labels.Everything()); err != nil {
				return 0, err
			}
			ops++
		}
		return float64(time.Since(start).Nanoseconds()) / float64(ops), nil
	}
	// Alternate the sides so that neither always runs first.
	for round := 0; round < 2; round++ {
		for _, m := range []struct {
			into *float64
			time func(*listers.ResourceLister[*corev1.Pod]) (float64, error)
			l    *listers.ResourceLister[*corev1.Pod]
		}{{&res.GetOffNs, timeGets, off}, {&res.GetOnNs, timeGets, onLister}, {&res.ListOffNs, timeLists, off}, {&res.ListOnNs, timeLists, onLister}} {
			v, err := m.time(m.l)
			if err != nil {
				return res, err
			}
			if round == 1 {
				*m.into = v
			}
		}
	}

	for i := 0; i < writes; i++ {
		k := i % n
		cur, err := srv.Get(namespaces[k], names[k])
		if err != nil {
			return res, err
		}
		cur = cur.DeepCopy()
		if cur.Labels == nil {
			cur.Labels = map[string]string{}
		}
		cur.Labels["write"] = strconv.Itoa(i)
		start := time.Now()
		upd, err := srv.Update(cur)
		if err != nil {
			return res, err
		}
		mu.Lock()
		awaited = upd.ResourceVersion
		mu.Unlock()
		tracker.Wrote(gr, upd)
		got, err := onLister.Namespace(namespaces[k]).Get(names[k])
		read := time.Since(start)
		if err != nil {
			return res, err
		}
		if got.ResourceVersion != upd.ResourceVersion {
			return res, fmt.Errorf("write %d: read resourceVersion %s after writing %s", i, got.ResourceVersion, upd.ResourceVersion)
		}
		select {
		case at := <-arrived:
			res.WatchSeconds = append(res.WatchSeconds, at.Sub(start).Seconds())
		case <-time.After(time.Minute):
			return res, fmt.Errorf("write %d: the event never reached the handler", i)
		}
		res.ReadSeconds = append(res.ReadSeconds, read.Seconds())
	}
	return res, nil
}
