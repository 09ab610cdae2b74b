package informers

import (
	"fmt"
	"reflect"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// WithShardScope makes every informer of the factory (namespaced and
// cluster-scoped) cache only the objects in scope's ranges, which may
// change while the factory runs: each list and watch sends the ranges as
// ListOptions.ShardSelector, objects outside them are dropped on the client
// as well (and only there when the server does not shard), and a change of
// the ranges makes each informer list again without restarting. See
// cache.SharedIndexInformerOptions.ShardScope for the contract, and
// cache.ScopeExitHandler for how handlers learn of objects that left the
// ranges. A nil scope means the whole resource (the default).
//
// Every NewInformerFunc of the factory must then return an informer that
// implements cache.ShardedInformer (this module's informers do); for one
// that does not, InformerFor returns an informer reporting the problem
// rather than one that silently caches everything.
func WithShardScope(scope *sharding.Scope) Option {
	return func(f *Factory) { f.shardScope = scope }
}

// ShardScope returns the scope set with WithShardScope, or nil.
func (f *Factory) ShardScope() *sharding.Scope { return f.shardScope }

// installShardScope gives inf, the informer of typ for namespace ns, the
// factory's shard scope. The caller holds f.mu.
func (f *Factory) installShardScope(typ reflect.Type, ns string, inf any) error {
	if f.shardScope == nil {
		return nil
	}
	si, ok := inf.(cache.ShardedInformer)
	if !ok {
		return fmt.Errorf("informers: InformerFor[%v]: the factory is sharded (WithShardScope) but the informer of namespace %q (%T) does not implement cache.ShardedInformer", typ, ns, inf)
	}
	if err := si.SetShardScope(f.shardScope); err != nil {
		return fmt.Errorf("informers: installing the factory's shard scope on %v (the NewInformerFunc must return a fresh informer): %w", typ, err)
	}
	return nil
}
