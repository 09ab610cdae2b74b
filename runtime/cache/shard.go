package cache

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// ShardStatus describes what a sharded informer asked for and what the
// server did with it, as of the informer's latest list.
type ShardStatus struct {
	// Field is the hashed field; Ranges the ranges of the latest list
	// (empty: the scope owns nothing and the informer lists nothing);
	// Generation the Scope generation they came from.
	Field      sharding.Field
	Ranges     []sharding.Range
	Generation uint64
	// Listed is true once a list of Generation's ranges has been queued for
	// the store (the handlers see it in order after that).
	Listed bool
	// Selector is the ShardSelector sent with the latest list and watch;
	// "" when none could be sent (see ClientSide) or the scope is empty.
	Selector string
	// ServerSide is true when the server echoed Selector in the latest
	// list's ListMeta.ShardInfo, i.e. it sent only the requested ranges.
	ServerSide bool
	// ClientSide says why the informer filters on the client, when the
	// server did not shard the latest list ("" when it did, or the scope
	// is empty). The informer drops out-of-range objects in any case.
	ClientSide string
	// Received and Dropped count the objects of the latest list and those
	// of them outside Ranges, which the informer dropped. Dropped 0 of a
	// non-empty list without ServerSide usually means the server filtered
	// but did not say so (v1.37 apiservers filter custom resources without
	// filling ShardInfo).
	Received, Dropped int
}

// ShardedInformer is implemented by informers that can cache a shard of
// their resource: this package's informers and the factory's
// multi-namespace informers. SetShardScope must be called before Run.
type ShardedInformer interface {
	// SetShardScope limits the informer to the ranges of scope (nil: the
	// whole resource). It fails once the informer runs.
	SetShardScope(scope *sharding.Scope) error
	// ShardStatus reports the informer's latest sharded list; ok is false
	// for an informer without a scope or that has not listed yet.
	ShardStatus() (status ShardStatus, ok bool)
}

// ServerSideShardingSupported reports whether the k8s.io/apimachinery this
// program is built with has metav1.ListOptions.ShardSelector and
// metav1.ListMeta.ShardInfo (v0.36 and later). Without them a sharded
// informer cannot send its selector and always filters on the client.
func ServerSideShardingSupported() bool { return reflector.ServerSideShardingSupported() }

// ShardSelectorOf returns opts.ShardSelector, or "" when the field does not
// exist in the apimachinery this program is built with. It is meant for
// ListerWatchers and tests that must read the field without naming it.
func ShardSelectorOf(opts metav1.ListOptions) string { return reflector.ShardSelectorOf(opts) }

// SetShardInfo sets lm.ShardInfo to {Selector: sel} and reports whether the
// field exists. It is meant for fake servers and tests that must write the
// field without naming it.
func SetShardInfo(lm *metav1.ListMeta, sel string) bool { return reflector.SetShardInfo(lm, sel) }
