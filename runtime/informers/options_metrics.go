package informers

import (
	"fmt"
	"reflect"

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
// identity for metrics: the generated informers pass
// name.WithResource(their resource) to their informers as
// SharedIndexInformerOptions.Identifier. Nil, the default, means no
// identity. The name is the caller's: Release it when the factory is done.
func WithInformerName(name *cache.InformerName) Option {
	return func(f *Factory) { f.informerName = name }
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
// factory's metrics provider. The caller holds f.mu.
func (f *Factory) installMetrics(typ reflect.Type, ns string, inf any) error {
	if f.metrics == nil {
		return nil
	}
	ms, ok := inf.(cache.MetricsSetter)
	if !ok {
		return nil
	}
	p := f.metrics
	if len(f.namespaces) > 1 {
		p = nsMetricsProvider{p: p, ns: ns}
	}
	if err := ms.SetMetricsProvider(p); err != nil {
		return fmt.Errorf("informers: installing the factory's metrics on %v (the NewInformerFunc must return a fresh informer): %w", typ, err)
	}
	return nil
}
