package clientgo

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// TrackFakeWrites records in t every successful write made through the fake
// clientset f (client-go's fake.Clientset and generated fakes embed a
// clienttesting.Fake): the object a create, update, patch or apply returns
// with t.Wrote, a delete with t.Deleted, as cache.WriteTracker's
// WrapTransport does for a real clientset. Informers built over f with the
// same tracker attached then read the program's own writes, as they would
// against a server. Call it once, after installing reactors with
// PrependReactor or AddReactor: it takes over the reaction chain installed
// so far and records what the chain answers; reactors prepended later run
// before it and their answers are not recorded.
func TrackFakeWrites(f *clienttesting.Fake, t *cache.WriteTracker) {
	f.Lock()
	defer f.Unlock()
	f.ReactionChain = []clienttesting.Reactor{&trackingReactor{chain: f.ReactionChain, t: t}}
}

// trackingReactor runs the reaction chain it took over, as the fake does,
// and records the answer of a write.
type trackingReactor struct {
	chain []clienttesting.Reactor
	t     *cache.WriteTracker
}

func (r *trackingReactor) Handles(clienttesting.Action) bool { return true }

func (r *trackingReactor) React(action clienttesting.Action) (bool, runtime.Object, error) {
	for _, rr := range r.chain {
		if !rr.Handles(action) {
			continue
		}
		handled, obj, err := rr.React(action)
		if !handled {
			continue
		}
		if err == nil {
			r.record(action, obj)
		}
		return handled, obj, err
	}
	return false, nil, nil
}

// record tells the tracker what a successful write answered.
func (r *trackingReactor) record(action clienttesting.Action, obj runtime.Object) {
	gr := action.GetResource().GroupResource()
	switch a := action.(type) {
	case clienttesting.DeleteAction:
		m, err := meta.Accessor(obj)
		if err == nil && obj != nil && m.GetDeletionTimestamp() != nil {
			r.t.Wrote(gr, m)
			return
		}
		r.t.Deleted(gr, a.GetNamespace(), a.GetName(), "")
	default:
		switch action.GetVerb() {
		case "create", "update", "patch":
		default:
			return
		}
		if obj == nil {
			return
		}
		if m, err := meta.Accessor(obj); err == nil {
			r.t.Wrote(gr, m)
		}
	}
}
