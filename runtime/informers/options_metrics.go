package informers

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// WithInformerMetrics gives every informer of the factory a metrics provider
// (see cache.InformerMetrics); nil, the default, means none. Informers the
// NewInformerFunc builds without cache.MetricsSetter are left without
// metrics. When the factory watches several namespaces, each namespace's
// informer reports under its name followed by "/" and the namespace.
func WithInformerMetrics(p cache.DetailedInformerMetricsProvider) Option {
	return func(f *Factory) { f.metrics = p }
}

// WithInformerName sets the factory's InformerName, client-go's informer
// identity for metrics: each informer the factory builds whose
// SharedIndexInformerOptions.Identifier is unset (generated code may set it
// itself) gets name.WithResource(its Resource) as its Identifier, once per
// resource (an informer built again after RemoveInformer takes over the
// same identity). Nil, the default, means no identity. The name is the
// caller's: Release it when the factory is done, which stops its metrics.
// A factory watching several namespaces gives its namespaced informers no
// identity: client-go's series have no namespace label.
func WithInformerName(name *cache.InformerName) Option {
	return func(f *Factory) { f.informerName = name }
}

// WithInformerMetricsProvider gives every informer of the factory
// client-go's informer metrics provider (see cache.InformerMetricsProvider):
// the informers publish queued items, processing latency and store resource
// version for their Identifier while it is reserved, so it takes effect
// with WithInformerName (or with generated code that sets Identifier). Nil,
// the default, means none, at no cost. It is independent of
// WithInformerMetrics, which takes the project's detailed provider. There is
// no process-wide provider: each factory has its own.
func WithInformerMetricsProvider(p cache.InformerMetricsProvider) Option {
	return func(f *Factory) { f.idMetrics = p }
}

// InformerName returns the InformerName given with WithInformerName, or nil.
func (f *Factory) InformerName() *cache.InformerName { return f.informerName }

// nsMetricsProvider names a namespace's informer after its namespace.
type nsMetricsProvider struct {
	p  cache.DetailedInformerMetricsProvider
	ns string
}

func (n nsMetricsProvider) NewInformerMetrics(name string) cache.InformerMetrics {
	return n.p.NewInformerMetrics(name + "/" + n.ns)
}

// installMetrics gives inf, the informer of typ for namespace ns, the
// factory's metrics providers, and its identity when it is the only informer
// of typ (sole). The caller holds f.mu.
func (f *Factory) installMetrics(typ reflect.Type, ns string, inf any, sole bool) error {
	if err := f.installIdentity(typ, inf, sole); err != nil {
		return err
	}
	if f.metrics == nil {
		return nil
	}
	ms, ok := inf.(cache.MetricsSetter)
	if !ok {
		return nil
	}
	p := f.metrics
	if len(f.holder().namespaces) > 1 {
		p = nsMetricsProvider{p: p, ns: ns}
	}
	if err := ms.SetMetricsProvider(p); err != nil {
		return fmt.Errorf("informers: installing the factory's metrics on %v (the NewInformerFunc must return a fresh informer): %w", typ, err)
	}
	return nil
}

// installIdentity gives inf the factory's InformerMetricsProvider and,
// through identityFor, its identity. The caller holds f.mu.
func (f *Factory) installIdentity(typ reflect.Type, inf any, sole bool) error {
	if f.idMetrics == nil && f.informerName == nil {
		return nil
	}
	ms, ok := inf.(cache.InformerMetricsSetter)
	if !ok {
		return nil
	}
	var identify func(schema.GroupVersionResource) cache.InformerNameAndResource
	if sole && f.informerName != nil {
		identify = f.identityFor
	}
	if err := ms.SetInformerMetricsProvider(f.idMetrics, identify); err != nil {
		return fmt.Errorf("informers: installing the factory's informer metrics provider on %v (the NewInformerFunc must return a fresh informer): %w", typ, err)
	}
	return nil
}

// identityFor returns the factory's identity of gvr, reserving it under the
// factory's InformerName the first time. The caller holds f.mu.
func (f *Factory) identityFor(gvr schema.GroupVersionResource) cache.InformerNameAndResource {
	if id, ok := f.identities[gvr]; ok {
		return id
	}
	id := f.informerName.WithResource(gvr)
	if f.identities == nil {
		f.identities = map[schema.GroupVersionResource]cache.InformerNameAndResource{}
	}
	f.identities[gvr] = id
	return id
}
