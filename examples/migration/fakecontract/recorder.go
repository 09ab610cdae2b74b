// Package fakecontract checks that a controller's unit test built on a fake
// clientset sees the same handler calls after a port from client-go's
// informers to typedinformer's: the same Recorder runs against both
// informers over one fake clientset, which sets no resourceVersion, so every
// update is one whose old and new resourceVersions are equal. Which
// handlers get those is client-go's per-listener rule (see
// runtime/cache.SharedIndexInformer, "Unchanged updates").
package fakecontract

import (
	"fmt"
	"sync"

	clientgocache "k8s.io/client-go/tools/cache"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
)

// The kinds of call a Call records.
const (
	Add    = "add"
	Update = "update"
	Delete = "delete"
)

// Call is one handler call as a Recorder saw it.
type Call struct {
	// Kind is Add, Update or Delete.
	Kind string
	// Key is the Foo's namespace/name.
	Key string
	// Initial is OnAdd's isInInitialList.
	Initial bool
	// Unknown is a delete's finalStateUnknown (client-go: a
	// DeletedFinalStateUnknown tombstone).
	Unknown bool
	// Old and New render the Foo's resourceVersion, spec data and status
	// phase: New for every call, Old only for an update.
	Old, New string
}

// Unchanged reports whether c is an update that carries the same state
// twice, as a resync does (every change the tests make changes the spec or
// the status).
func (c Call) Unchanged() bool { return c.Kind == Update && c.Old == c.New }

// String renders c for test failures.
func (c Call) String() string {
	switch c.Kind {
	case Add:
		return fmt.Sprintf("add %s %s initial=%t", c.Key, c.New, c.Initial)
	case Update:
		return fmt.Sprintf("update %s %s -> %s", c.Key, c.Old, c.New)
	}
	return fmt.Sprintf("delete %s %s unknown=%t", c.Key, c.New, c.Unknown)
}

func state(f *samplesv1alpha1.Foo) string {
	return fmt.Sprintf("rv=%q data=%v phase=%q", f.ResourceVersion, f.Spec.Data, f.Status.Phase)
}

func key(f *samplesv1alpha1.Foo) string { return f.Namespace + "/" + f.Name }

// Recorder is a typedinformer handler of Foos (runtime/cache's
// ResourceEventHandler) that logs its calls; ClientGo adapts it to
// client-go's handler interface. It is safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	calls []Call
}

func (r *Recorder) record(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// OnAdd records an add.
func (r *Recorder) OnAdd(obj *samplesv1alpha1.Foo, isInInitialList bool) {
	r.record(Call{Kind: Add, Key: key(obj), Initial: isInInitialList, New: state(obj)})
}

// OnUpdate records an update.
func (r *Recorder) OnUpdate(oldObj, newObj *samplesv1alpha1.Foo) {
	r.record(Call{Kind: Update, Key: key(newObj), Old: state(oldObj), New: state(newObj)})
}

// OnDelete records a delete.
func (r *Recorder) OnDelete(obj *samplesv1alpha1.Foo, finalStateUnknown bool) {
	r.record(Call{Kind: Delete, Key: key(obj), Unknown: finalStateUnknown, New: state(obj)})
}

// Calls returns a copy of the calls so far, in order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// ClientGo returns r as a client-go ResourceEventHandler: the same
// recording, with client-go's untyped objects and tombstones unwrapped.
func (r *Recorder) ClientGo() clientgocache.ResourceEventHandler {
	return clientGoHandler{r}
}

type clientGoHandler struct{ r *Recorder }

func (h clientGoHandler) OnAdd(obj any, isInInitialList bool) {
	h.r.OnAdd(obj.(*samplesv1alpha1.Foo), isInInitialList)
}

func (h clientGoHandler) OnUpdate(oldObj, newObj any) {
	h.r.OnUpdate(oldObj.(*samplesv1alpha1.Foo), newObj.(*samplesv1alpha1.Foo))
}

func (h clientGoHandler) OnDelete(obj any) {
	if tomb, ok := obj.(clientgocache.DeletedFinalStateUnknown); ok {
		h.r.OnDelete(tomb.Obj.(*samplesv1alpha1.Foo), true)
		return
	}
	h.r.OnDelete(obj.(*samplesv1alpha1.Foo), false)
}
