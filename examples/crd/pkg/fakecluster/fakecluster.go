// Package fakecluster makes client-go style fake clientsets behave a little
// more like an apiserver, so that informers and controllers see what they
// would on a real cluster: every write gets a new resourceVersion (informers
// treat an update with an unchanged resourceVersion as a resync and do not
// deliver it), and a change to an object's spec bumps its generation.
package fakecluster

import (
	"reflect"
	"strconv"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

// Fake is what generated fake clientsets embed.
type Fake interface {
	PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
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
			obj := ua.GetObject()
			m, err := meta.Accessor(obj)
			if err != nil {
				return false, nil, nil
			}
			m.SetResourceVersion(next())
			old, err := tracker.Get(ua.GetResource(), ua.GetNamespace(), m.GetName())
			if err != nil {
				return false, nil, nil
			}
			oldMeta, _ := meta.Accessor(old)
			switch {
			case ua.GetSubresource() != "":
				m.SetGeneration(oldMeta.GetGeneration())
			case !equality.Semantic.DeepEqual(spec(old), spec(obj)):
				m.SetGeneration(oldMeta.GetGeneration() + 1)
			default:
				m.SetGeneration(oldMeta.GetGeneration())
			}
			return false, nil, nil
		})
	}
}

func next() string { return strconv.FormatInt(counter.Add(1), 10) }

// spec returns obj's Spec field, or nil for types without one.
func spec(obj runtime.Object) any {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	if f := v.FieldByName("Spec"); f.IsValid() {
		return f.Interface()
	}
	return nil
}
