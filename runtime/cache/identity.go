package cache

import (
	"errors"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// InformerName identifies a set of informers (typically one factory's) in
// metrics, with client-go's shape: create it once at startup with
// NewInformerName, hand it to a factory (informers.WithInformerName) or to
// informers directly through WithResource, and Release it at shutdown.
//
// Unlike client-go, names are not registered process-wide: two
// InformerNames may carry the same name. Uniqueness is enforced where it
// matters, by whoever turns identities into series: one InformerName
// reserves each GroupVersionResource once (see WithResource), and a metrics
// provider may refuse an identity it already exports (the Prometheus
// adapter in metrics/prometheus does, per registry). So tests and programs
// that build several factories need no global reset.
//
// An InformerName is safe for concurrent use. A nil *InformerName is valid
// and means "no name": WithResource then returns an identity that is never
// reserved, so no metrics are published for it.
type InformerName struct {
	name string

	// mu guards released and gvrs.
	mu       sync.Mutex
	released bool
	gvrs     map[schema.GroupVersionResource]*atomic.Bool
}

// NewInformerName returns an InformerName called name. The only error is an
// empty name.
func NewInformerName(name string) (*InformerName, error) {
	if name == "" {
		return nil, errors.New("informer name cannot be empty")
	}
	return &InformerName{name: name, gvrs: map[schema.GroupVersionResource]*atomic.Bool{}}, nil
}

// WithResource returns the identity of the informer of gvr under this name.
// The first call for a gvr returns a reserved identity (Reserved() is true
// until Release); later calls for the same gvr return an identity that is
// not reserved, so one resource never publishes two series under one name,
// and log that once per call. After Release nothing is reserved.
func (n *InformerName) WithResource(gvr schema.GroupVersionResource) InformerNameAndResource {
	if n == nil {
		return InformerNameAndResource{gvr: gvr}
	}
	id := InformerNameAndResource{name: n.name, gvr: gvr, reserved: new(atomic.Bool)}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.released {
		return id
	}
	if _, dup := n.gvrs[gvr]; dup {
		klog.Background().Error(nil, "Informer registered twice under one name; the second publishes no metrics",
			"informerName", n.name, "group", gvr.Group, "version", gvr.Version, "resource", gvr.Resource)
		return id
	}
	id.reserved.Store(true)
	n.gvrs[gvr] = id.reserved
	return id
}

// Release ends every reservation made through WithResource: the identities
// it returned report Reserved() false from now on, and later WithResource
// calls reserve nothing. Calling it again does nothing.
func (n *InformerName) Release() {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, r := range n.gvrs {
		r.Store(false)
	}
	clear(n.gvrs)
	n.released = true
}

// Name returns the name ("" for a nil InformerName).
func (n *InformerName) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// InformerNameAndResource is one informer's identity in metrics: an
// InformerName's name and the resource it serves. The zero value has no
// name and is never reserved. Copies share the reservation.
type InformerNameAndResource struct {
	name     string
	gvr      schema.GroupVersionResource
	reserved *atomic.Bool
}

// Reserved reports whether metrics may be published for this identity: it
// was the first registration of its resource under its InformerName, and
// the name has not been released. It does not lock.
func (id InformerNameAndResource) Reserved() bool {
	return id.reserved != nil && id.reserved.Load()
}

// Name returns the InformerName's name.
func (id InformerNameAndResource) Name() string { return id.name }

// GroupVersionResource returns the resource the informer serves.
func (id InformerNameAndResource) GroupVersionResource() schema.GroupVersionResource { return id.gvr }
