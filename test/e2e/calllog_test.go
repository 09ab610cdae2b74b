package e2e

import (
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// callLog records the lists and watches of one informer and the errors
// they ended with. A nil *callLog records nothing.
type callLog struct {
	mu      sync.Mutex
	lists   []listCall
	watches int
	errs    []error // list/watch call errors and watch Error events
}

type listCall struct {
	opts  metav1.ListOptions
	cont  string // the continue token the server returned
	items int
	err   error
}

func (c *callLog) recordList(opts metav1.ListOptions, obj runtime.Object, err error) {
	if c == nil {
		return
	}
	call := listCall{opts: opts, err: err}
	if err == nil {
		if lm, e := meta.ListAccessor(obj); e == nil {
			call.cont = lm.GetContinue()
		}
		call.items = meta.LenList(obj)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lists = append(c.lists, call)
	if err != nil {
		c.errs = append(c.errs, err)
	}
}

func (c *callLog) recordWatch(opts metav1.ListOptions, w watch.Interface, err error) (watch.Interface, error) {
	if c == nil {
		return w, err
	}
	c.mu.Lock()
	c.watches++
	if err != nil {
		c.errs = append(c.errs, err)
	}
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if ev.Type == watch.Error {
			c.mu.Lock()
			c.errs = append(c.errs, apierrors.FromObject(ev.Object))
			c.mu.Unlock()
		}
		return ev, true
	}), nil
}

// listCalls returns a copy of the recorded lists.
func (c *callLog) listCalls() []listCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]listCall(nil), c.lists...)
}

// sawExpired reports whether a list or watch failed with 410 (Expired or
// Gone): the server no longer had the requested resourceVersion.
func (c *callLog) sawExpired() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, err := range c.errs {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return true
		}
	}
	return false
}

// errors returns the recorded errors.
func (c *callLog) errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}
