package main

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	sampleslisters "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/listers/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// maxSlowDelay bounds the per-call delay of /debug/slow: a reconcile made
// slower than the Lease duration minus the renew deadline could outlive
// the fence that let it start, which is a fault the fence does not claim
// to survive.
const maxSlowDelay = time.Second

// slowdown makes a replica's Foo event handler and its reconciles slow for
// a while, on request of a soak harness (POST /debug/slow?for=10s&delay=
// 200ms). Safe for concurrent use; a nil *slowdown is never slow.
type slowdown struct {
	until atomic.Int64 // Unix nanoseconds
	delay atomic.Int64 // nanoseconds
}

// wait sleeps for the delay while the slowdown lasts.
func (s *slowdown) wait() {
	if s == nil || time.Now().UnixNano() >= s.until.Load() {
		return
	}
	time.Sleep(time.Duration(s.delay.Load()))
}

// serveHTTP handles /debug/slow.
func (s *slowdown) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(w, "/debug/slow takes POST", http.StatusMethodNotAllowed)
		return
	}
	q := req.URL.Query()
	d, err := time.ParseDuration(q.Get("for"))
	if err != nil || d <= 0 {
		http.Error(w, fmt.Sprintf("/debug/slow: for=%q: want a positive duration", q.Get("for")), http.StatusBadRequest)
		return
	}
	delay := 200 * time.Millisecond
	if v := q.Get("delay"); v != "" {
		if delay, err = time.ParseDuration(v); err != nil || delay <= 0 || delay > maxSlowDelay {
			http.Error(w, fmt.Sprintf("/debug/slow: delay=%q: want a duration in (0, %v]", v, maxSlowDelay), http.StatusBadRequest)
			return
		}
	}
	s.delay.Store(int64(delay))
	s.until.Store(time.Now().Add(d).UnixNano())
	fmt.Fprintf(w, "slow for %v, %v per event and reconcile\n", d, delay)
}

// install registers a Foo event handler that is slow while the slowdown
// lasts (the informer must keep delivering to its other handlers), and
// makes r's reconciles start with the delay.
func (s *slowdown) install(inf cache.SharedIndexInformer[*samplesv1alpha1.Foo], r *controller.Reconciler) error {
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*samplesv1alpha1.Foo]{
		AddFunc:    func(*samplesv1alpha1.Foo) { s.wait() },
		UpdateFunc: func(_, _ *samplesv1alpha1.Foo) { s.wait() },
		DeleteFunc: func(*samplesv1alpha1.Foo) { s.wait() },
	})
	if err != nil {
		return err
	}
	r.Foos = slowFooLister{FooLister: r.Foos, s: s}
	return nil
}

type slowFooLister struct {
	sampleslisters.FooLister
	s *slowdown
}

func (l slowFooLister) Foos(namespace string) sampleslisters.FooNamespaceLister {
	return slowFooNamespaceLister{FooNamespaceLister: l.FooLister.Foos(namespace), s: l.s}
}

type slowFooNamespaceLister struct {
	sampleslisters.FooNamespaceLister
	s *slowdown
}

func (l slowFooNamespaceLister) Get(name string) (*samplesv1alpha1.Foo, error) {
	l.s.wait()
	return l.FooNamespaceLister.Get(name)
}
