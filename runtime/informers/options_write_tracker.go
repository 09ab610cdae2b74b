package informers

import (
	"fmt"
	"reflect"

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
// without it. The selection that decides is the current one: after
// SetSelectors or SetTweakListOptions (of the factory or of a view), a
// write of an object the informer no longer selects is not waited for,
// and one of an object it now selects is.
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
	// The selectors come from the Selections the informer follows
	// (installSelection), read at each write, so that a change of the
	// factory's or a view's selection changes which writes it waits for.
	scope := cache.WriteScope{Namespace: ns}
	if err := ws.SetWriteTracker(f.writes, scope); err != nil {
		return fmt.Errorf("informers: attaching the factory's WriteTracker to %v: %w", typ, err)
	}
	return nil
}
