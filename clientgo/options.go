package clientgo

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/lean"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// Option configures what this package's informers add to client-go's:
// the runtime's features that client-go's constructor has no parameter for.
type Option func(*options)

type options struct {
	lean                 lean.Options
	metrics              cache.DetailedInformerMetricsProvider
	shard                *sharding.Scope
	reflector            cache.ReflectorOptions
	name                 string
	scheme               *runtime.Scheme
	skipUnchangedUpdates bool
}

// WithLean makes the informer cache lean objects (see package lean for what
// each part saves, costs and breaks). The lean transform runs after the one
// set with SetTransform, such as controller-runtime's DefaultTransform.
func WithLean(o lean.Options) Option {
	return func(opts *options) { opts.lean = o }
}

// WithMetrics gives the informer the runtime's detailed metrics provider
// (lists, watches, errors, store size, per-handler backlog and latency);
// metrics/prometheus has one. client-go's narrower InformerMetricsProvider
// is taken from toolscache.SharedIndexInformerOptions.
func WithMetrics(p cache.DetailedInformerMetricsProvider) Option {
	return func(opts *options) { opts.metrics = p }
}

// WithShardScope makes the informer cache only the objects of scope's
// ranges; see cache.SharedIndexInformerOptions.ShardScope.
func WithShardScope(scope *sharding.Scope) Option {
	return func(opts *options) { opts.shard = scope }
}

// WithReflectorOptions tunes listing and watching (page size, watch
// timeouts, backoff, watch-list streaming, managedFields sharing, clock);
// see cache.ReflectorOptions for the defaults.
func WithReflectorOptions(r cache.ReflectorOptions) Option {
	return func(opts *options) { opts.reflector = r }
}

// WithName names the informer in logs, errors and metrics. Default:
// SharedIndexInformerOptions.ObjectDescription, else the example object's
// group, version and kind when it carries one, else its Go type.
func WithName(name string) Option {
	return func(opts *options) { opts.name = name }
}

// WithScheme makes the informer check that the example object's type is
// registered in scheme (the scheme its ListerWatcher decodes with). An
// informer for a type scheme does not know never syncs, and says so.
// Unstructured and metadata-only example objects are not checked.
func WithScheme(scheme *runtime.Scheme) Option {
	return func(opts *options) { opts.scheme = scheme }
}

// WithSkipUnchangedUpdates keeps updates whose resourceVersion did not change
// (relists that found an object unchanged, periodic resyncs) from handlers
// whose resync period is not due; see
// cache.SharedIndexInformerOptions.SkipUnchangedUpdates. It changes
// client-go's contract: client-go's fake clientsets set no resourceVersion,
// so controllers tested with them miss every update.
func WithSkipUnchangedUpdates() Option {
	return func(opts *options) { opts.skipUnchangedUpdates = true }
}
