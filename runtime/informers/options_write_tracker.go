package informers

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// WithWriteTracker attaches t to every informer the factory builds, so
// that their listers read the program's own writes recorded in t (see
// cache.WriteTracker): give the same tracker to the clients that write
// (cache.WriteTracker.WrapTransport on their rest.Config) and to the
// factory. Each informer's selection (the factory's namespace and its
// tweak's label and field selectors) decides which writes it waits for.
// Nil, the default, means none: listers never wait. Informers the
// NewInformerFunc builds without cache.WriteTrackerSetter are left
// without it.
func WithWriteTracker(t *cache.WriteTracker) Option {
	return func(f *Factory) { f.writes = t }
}

// installWriteTracker attaches the factory's WriteTracker to inf, the
// informer of typ for namespace ns. The caller holds f.mu.
func (f *Factory) installWriteTracker(typ reflect.Type, ns string, inf any) error {
	if f.writes == nil {
		return nil
	}
	ws, ok := inf.(cache.WriteTrackerSetter)
	if !ok {
		return nil
	}
	scope := cache.WriteScope{Namespace: ns}
	if f.tweak != nil {
		var opts metav1.ListOptions
		f.tweak(&opts)
		scope.LabelSelector, scope.FieldSelector = opts.LabelSelector, opts.FieldSelector
	}
	if err := ws.SetWriteTracker(f.writes, scope); err != nil {
		return fmt.Errorf("informers: attaching the factory's WriteTracker to %v: %w", typ, err)
	}
	return nil
}
