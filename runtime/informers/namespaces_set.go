package informers

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// namespaceSetter is a multi-namespace informer whose set can change.
type namespaceSetter interface {
	setNamespaces(ctx context.Context, namespaces []string) error
}

// SetNamespaces changes the namespaces of a factory built with
// WithNamespaces, before or while it runs. Every namespaced informer of the
// factory (and any created later) then watches exactly namespaces:
//
//   - A namespace that joins gets its own list/watch, started at once when
//     the informer runs; no other namespace's list/watch restarts. Its
//     objects reach handlers as OnAdd(obj, false) (true before Start, as
//     for any initial object). HasSynced, of the informer and of every
//     handler registration, never turns false again once true: the new
//     namespace's objects arrive as they are listed.
//   - A namespace that leaves has its list/watch stopped (SetNamespaces
//     waits for it); its objects are removed from the cache and then every
//     handler is told of each object as having left the informer's scope,
//     like a shard that moved away: OnDelete(obj, true) by default, or
//     OnScopeExit for a cache.ScopeExitHandler, or nothing for a handler
//     wrapped in cache.IgnoreScopeExits. These calls run on the caller's
//     goroutine, one handler after another, each still never concurrent
//     with that handler's other calls: a blocked handler blocks
//     SetNamespaces. Notifications of that namespace not yet handed to a
//     handler when its list/watch stops are dropped; the handler then
//     learns of the exit with the object's last cached state.
//
// Cluster-scoped informers are not affected. namespaces must not be empty
// or contain metav1.NamespaceAll (switching to or from every namespace
// would report each object as leaving and re-entering; build another
// factory for that); duplicates are ignored. It returns an error for a
// factory not built with WithNamespaces, after Shutdown (wrapping
// ErrShutdown), and, naming the type and namespace, for a namespace whose
// informer could not be built (the others are still applied). ctx carries
// the logger for handler panics. On a view it changes the namespaces of the
// factory the view was taken of, and so of all its views.
func (f *Factory) SetNamespaces(ctx context.Context, namespaces ...string) error {
	if f.root != nil {
		return f.root.SetNamespaces(ctx, namespaces...)
	}
	if len(namespaces) == 0 || slices.Contains(namespaces, metav1.NamespaceAll) {
		return fmt.Errorf("informers: SetNamespaces(%q): want at least one namespace and not metav1.NamespaceAll", namespaces)
	}
	want := slices.Clone(namespaces)
	slices.Sort(want)
	want = slices.Compact(want)

	f.setNSMu.Lock()
	defer f.setNSMu.Unlock()
	f.mu.Lock()
	switch {
	case f.shuttingDown:
		f.mu.Unlock()
		return fmt.Errorf("informers: SetNamespaces: %w", ErrShutdown)
	case !f.namespaceSet:
		f.mu.Unlock()
		return errors.New("informers: SetNamespaces: the factory was not built with WithNamespaces of specific namespaces")
	}
	f.namespaces = want
	keys := f.sortedKeysLocked(nil)
	setters := make([]namespaceSetter, 0, len(keys))
	names := make([]reflect.Type, 0, len(keys))
	for _, k := range keys {
		if s, ok := f.informers[k].informer.(namespaceSetter); ok {
			setters = append(setters, s)
			names = append(names, k.typ)
		}
	}
	f.mu.Unlock()

	var errs []error
	for i, s := range setters {
		if err := s.setNamespaces(ctx, want); err != nil {
			errs = append(errs, fmt.Errorf("informers: SetNamespaces: %v: %w", names[i], err))
		}
	}
	return errors.Join(errs...)
}
