// Package fakecluster makes client-go style fake clientsets behave a little
// more like an apiserver, so that informers and controllers see what they
// would on a real cluster:
//
//   - every write gets a new resourceVersion (informers treat an update with
//     an unchanged resourceVersion as a resync and do not deliver it);
//   - a change to an object's spec bumps its generation;
//   - an update that carries a resourceVersion other than the stored one
//     fails with a Conflict, as optimistic concurrency does on a server
//     (an update without one is unconditional);
//   - for types with a Status field, an update of the "status" subresource
//     changes only the status, and a plain update leaves the status alone,
//     as for a resource with the status subresource enabled.
//
// Without the last two, a controller that writes status from a stale cached
// copy silently reverts a spec change made meanwhile, which no real cluster
// allows.
package fakecluster

import (
	"fmt"
	"reflect"
	"strconv"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

// Fake is what generated fake clientsets embed.
type Fake interface {
	// PrependReactor runs reaction before the reactors already installed
	// for verb on resource ("*" matches any).
	PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
	// Tracker returns the object store behind the clientset.
	Tracker() clienttesting.ObjectTracker
}

// counter is shared by every clientset, like one etcd behind all resources.
var counter atomic.Int64

// Simulate installs the resourceVersion and generation reactors on fakes.
// Call it before the clientsets are used.
func Simulate(fakes ...Fake) {
	for _, f := range fakes {
		tracker := f.Tracker()
		f.PrependReactor("create", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
			obj := a.(clienttesting.CreateAction).GetObject()
			if m, err := meta.Accessor(obj); err == nil {
				m.SetResourceVersion(next())
				if m.GetGeneration() == 0 {
					m.SetGeneration(1)
				}
			}
			return false, nil, nil // let the tracker store it
		})
		f.PrependReactor("update", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
			ua := a.(clienttesting.UpdateAction)
			return update(tracker, ua)
		})
	}
}

// update stores an update the way an apiserver would (see the package
// doc). It leaves actions it does not understand to the tracker.
func update(tracker clienttesting.ObjectTracker, ua clienttesting.UpdateAction) (bool, runtime.Object, error) {
	obj := ua.GetObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, nil, nil
	}
	gvr := ua.GetResource()
	old, err := tracker.Get(gvr, ua.GetNamespace(), m.GetName())
	if err != nil {
		return false, nil, nil // the tracker reports NotFound
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return false, nil, nil
	}
	if rv := m.GetResourceVersion(); rv != "" && rv != oldMeta.GetResourceVersion() {
		return true, nil, apierrors.NewConflict(gvr.GroupResource(), m.GetName(),
			fmt.Errorf("the object has been modified: resourceVersion %s, stored %s", rv, oldMeta.GetResourceVersion()))
	}
	stored := obj.DeepCopyObject()
	sub := ua.GetSubresource()
	switch sub {
	case "status":
		// Only the status changes: start from the stored object.
		if status, ok := field(obj, "Status"); ok {
			stored = old.DeepCopyObject()
			setField(stored, "Status", status)
		}
	case "":
		if status, ok := field(old, "Status"); ok {
			setField(stored, "Status", status)
		}
	}
	sm, _ := meta.Accessor(stored)
	sm.SetResourceVersion(next())
	switch {
	case sub != "":
		sm.SetGeneration(oldMeta.GetGeneration())
	case !equality.Semantic.DeepEqual(spec(old), spec(stored)):
		sm.SetGeneration(oldMeta.GetGeneration() + 1)
	default:
		sm.SetGeneration(oldMeta.GetGeneration())
	}
	if err := tracker.Update(gvr, stored, ua.GetNamespace()); err != nil {
		return true, nil, err
	}
	return true, stored.DeepCopyObject(), nil
}

func next() string { return strconv.FormatInt(counter.Add(1), 10) }

// spec returns obj's Spec field, or nil for types without one.
func spec(obj runtime.Object) any {
	v, _ := field(obj, "Spec")
	return v
}

// field returns the value of obj's top-level field name.
func field(obj runtime.Object, name string) (any, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, false
	}
	f := v.FieldByName(name)
	if !f.IsValid() {
		return nil, false
	}
	return f.Interface(), true
}

// setField sets obj's top-level field name to a deep copy of value, which
// field read from an object of the same type.
func setField(obj runtime.Object, name string, value any) {
	dst := reflect.ValueOf(obj).Elem().FieldByName(name)
	src := reflect.ValueOf(value)
	if c := src.MethodByName("DeepCopy"); c.IsValid() {
		src = c.Call(nil)[0]
		if src.Kind() == reflect.Pointer {
			src = src.Elem()
		}
	}
	dst.Set(src)
}
