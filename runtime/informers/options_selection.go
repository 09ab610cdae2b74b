package informers

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// Selection returns the factory's Selection: what TweakListOptions applies
// to every list and watch of the factory's informers. Changing it (or
// calling SetTweakListOptions or SetSelectors) makes each of them relist
// with the new value while it runs, as described on
// cache.SelectableInformer.
func (f *Factory) Selection() *cache.Selection { return f.sel }

// Selections returns every Selection the factory's informers apply and
// follow, in the order TweakListOptions applies them: for a view, those of
// the factory it was taken of, then its own (Selection()); for another
// factory, its Selection alone.
func (f *Factory) Selections() []*cache.Selection { return slices.Clone(f.sels) }

// WithSelection makes the factory share sels with another (e.g. a
// metadata-only factory built from a typed one, given the typed factory's
// Selections()): its informers apply each, in order, and relist when one
// changes, whichever factory changed it. The last is the factory's own
// Selection, which its SetSelectors and SetTweakListOptions change. It
// takes the place of WithTweakListOptions, which is then ignored. Nil
// Selections are ignored.
func WithSelection(sels ...*cache.Selection) Option {
	return func(f *Factory) {
		for _, sel := range sels {
			if sel != nil {
				f.shared = append(f.shared, sel)
			}
		}
	}
}

// SetTweakListOptions replaces the factory's TweakListOptionsFunc (nil:
// none) for every informer it made or will make; the running ones relist
// with it. A tweak that sets a selector that does not parse, or a factory
// that was shut down, is an error and changes nothing.
func (f *Factory) SetTweakListOptions(tweak TweakListOptionsFunc) error {
	if err := f.selectionChangeAllowed("SetTweakListOptions"); err != nil {
		return err
	}
	if err := f.sel.SetTweakListOptions(cache.TweakListOptionsFunc(tweak)); err != nil {
		return fmt.Errorf("informers: Factory.SetTweakListOptions: %w", err)
	}
	return nil
}

// SetSelectors sets label and field selectors ANDed with whatever the
// factory's TweakListOptionsFunc sets, for every informer the factory made
// or will make; the running ones relist with them. A selector that does not
// parse, or a factory that was shut down, is an error naming it and changes
// nothing.
func (f *Factory) SetSelectors(labelSelector, fieldSelector string) error {
	if err := f.selectionChangeAllowed("SetSelectors"); err != nil {
		return err
	}
	if err := f.sel.SetSelectors(labelSelector, fieldSelector); err != nil {
		return fmt.Errorf("informers: Factory.SetSelectors: %w", err)
	}
	return nil
}

func (f *Factory) selectionChangeAllowed(what string) error {
	r := f.holder()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shuttingDown || f.closed {
		return fmt.Errorf("informers: Factory.%s: %w", what, ErrShutdown)
	}
	return nil
}

// installSelection makes inf, the informer of typ for namespace ns, follow
// the factory's Selections (a view's: its parent's and its own), which its
// ListerWatcher applies through TweakListOptions. An informer that cannot
// follow them keeps the selection it had when built. The caller holds the
// mu of f's holder.
func (f *Factory) installSelection(typ reflect.Type, ns string, inf any) error {
	si, ok := inf.(cache.SelectableInformer)
	if !ok {
		return nil
	}
	for _, sel := range f.sels {
		if err := si.FollowSelection(sel); err != nil {
			return fmt.Errorf("informers: making the informer of %v for namespace %q follow the factory's selection (the NewInformerFunc must return a fresh informer): %w", typ, ns, err)
		}
	}
	return nil
}
