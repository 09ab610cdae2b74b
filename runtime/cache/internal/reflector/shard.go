package reflector

import (
	"context"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// errScopeChanged ends a list/watch cycle of a sharded reflector whose
// scope changed: it lists again at once with the new ranges, without
// backing off and without reporting an error.
var errScopeChanged = errors.New("the shard scope changed; listing the new ranges")

// ShardStatus is runtime/cache's ShardStatus, field for field (the cache
// converts one into the other), where its fields are documented.
type ShardStatus struct {
	Field             sharding.Field
	Ranges            []sharding.Range
	Generation        uint64
	Listed            bool
	Selector          string
	ServerSide        bool
	ClientSide        string
	Received, Dropped int
}

// shardCycle is the scope snapshot one list/watch cycle of a sharded
// reflector works with. Only the reflector's goroutine uses it.
type shardCycle struct {
	field    sharding.Field
	ranges   []sharding.Range
	gen      uint64
	changed  <-chan struct{}
	selector string // "" when none is sent
	whyNot   string // why no selector is sent, when ranges is not empty
}

// beginShardCycle takes the scope's snapshot for the next cycle.
func (r *Reflector[T]) beginShardCycle() {
	ranges, gen, changed := r.scope.Snapshot()
	c := &shardCycle{field: r.scope.Field(), ranges: ranges, gen: gen, changed: changed}
	if len(ranges) > 0 {
		switch sel, err := sharding.Selector(c.field, ranges); {
		case err != nil:
			c.whyNot = fmt.Sprintf("the shard selector cannot be sent: %v", err)
		case r.shardFields.selector == nil:
			c.whyNot = "the k8s.io/apimachinery this program is built with (before v0.36) has no ListOptions.ShardSelector"
		default:
			c.selector = sel
		}
	}
	r.shard = c
	r.mu.Lock()
	r.shardStatus = ShardStatus{Field: c.field, Ranges: ranges, Generation: gen, Selector: c.selector}
	r.mu.Unlock()
}

// withShard sets the cycle's selector on opts, when there is one.
func (r *Reflector[T]) withShard(opts metav1.ListOptions) metav1.ListOptions {
	if r.shard != nil && r.shard.selector != "" {
		r.shardFields.setSelector(&opts, r.shard.selector)
	}
	return opts
}

// inShard reports whether obj lies in the cycle's ranges (always true for
// an unsharded reflector).
func (r *Reflector[T]) inShard(obj T) bool {
	c := r.shard
	if c == nil {
		return true
	}
	return sharding.Contains(c.ranges, sharding.Hash(c.field.Value(obj.GetNamespace(), string(obj.GetUID()))))
}

// countShard counts a list page's received items and those dropped as
// outside the cycle's ranges into the status (page 0 starts a new count).
func (r *Reflector[T]) countShard(page, received, dropped int) {
	r.mu.Lock()
	if page == 0 {
		r.shardStatus.Received, r.shardStatus.Dropped = 0, 0
	}
	r.shardStatus.Received += received
	r.shardStatus.Dropped += dropped
	r.mu.Unlock()
}

// checkShardInfo records whether a list page's ShardInfo echoed the
// selector; a sharded list is server-side only if every page did.
func (r *Reflector[T]) checkShardInfo(page int, list any, lm metav1.ListInterface) {
	c := r.shard
	if c == nil {
		return
	}
	why := c.whyNot
	if why == "" {
		switch echoed, ok := r.shardFields.infoSelectorOf(list, lm); {
		case !ok:
			why = "the list did not echo the shard selector in ListMeta.ShardInfo (a server before v1.36, its ShardedListAndWatch feature gate off, or a custom resource, whose lists v1.37 filters without filling ShardInfo)"
		case echoed != c.selector:
			why = fmt.Sprintf("the server echoed another shard selector in ListMeta.ShardInfo: %q", echoed)
		}
	}
	r.mu.Lock()
	if page == 0 || why != "" {
		r.shardStatus.ClientSide = why
		r.shardStatus.ServerSide = why == ""
	}
	r.mu.Unlock()
}

// shardListed marks the cycle's list as queued and logs, once per
// informer, that it filters on the client when the server did not shard.
func (r *Reflector[T]) shardListed(ctx context.Context) {
	if r.shard == nil {
		return
	}
	r.mu.Lock()
	r.shardStatus.Listed = true
	why := r.shardStatus.ClientSide
	received, dropped := r.shardStatus.Received, r.shardStatus.Dropped
	r.mu.Unlock()
	if why != "" && !r.shardLogged {
		r.shardLogged = true
		klog.FromContext(ctx).Info("Sharded informer filters on the client", "informer", r.name, "reason", why, "field", r.shard.field, "ranges", len(r.shard.ranges), "listed", received, "outOfRange", dropped)
	}
}

// emptyShard is a cycle over no ranges: the informer owns nothing, so it
// lists nothing (an empty selector would select everything), empties its
// store (every object left the scope; the store then holds the cycle's
// selection, of which it owns nothing) and waits for the scope or the
// selection to change. It returns errScopeChanged or errSelectionChanged,
// or nil once ctx ended.
func (r *Reflector[T]) emptyShard(ctx context.Context) error {
	rv := r.LastSyncResourceVersion()
	r.clearError() // before the store can apply the list, as in list
	if err := r.sink.ReplaceInScope(nil, rv, r.inShard); err != nil {
		return fmt.Errorf("emptying %s for an empty shard scope: %w", r.name, err)
	}
	r.mu.Lock()
	r.shardStatus.Listed = true
	r.mu.Unlock()
	r.selectionStored()
	select {
	case <-ctx.Done():
		return nil
	case <-r.shard.changed:
		return errScopeChanged
	case <-r.selChanged():
		return errSelectionChanged
	}
}

// ShardStatus returns a copy of the status of the latest sharded list; ok
// is false when the reflector is unsharded or has not listed yet.
func (r *Reflector[T]) ShardStatus() (ShardStatus, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scope == nil || r.shardStatus.Field == "" {
		return ShardStatus{}, false
	}
	st := r.shardStatus
	st.Ranges = slices.Clone(st.Ranges)
	return st, true
}

// waitBackoff waits out the backoff after a failed list/watch. It returns
// false when ctx ended. A sharded reflector also stops waiting when its
// scope or selection changes: the new value is worth a list at once (the
// failure may have been about the old one).
func (r *Reflector[T]) waitBackoff(ctx context.Context, b *backoff) bool {
	if r.shard == nil && r.sel == nil {
		return b.wait(ctx.Done(), b.next())
	}
	var changed <-chan struct{} // r.shard and r.sel are the reflector goroutine's
	if r.shard != nil {
		changed = r.shard.changed
	}
	selChanged := r.selChanged()
	done := make(chan struct{})
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(done)
		select {
		case <-ctx.Done():
		case <-changed:
		case <-selChanged:
		case <-quit:
		}
	}()
	b.wait(done, b.next())
	return ctx.Err() == nil
}
