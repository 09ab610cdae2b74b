package informers

import (
	"reflect"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TweakListOptionsFunc edits the ListOptions of every list and watch an
// informer makes, e.g. to set a label or field selector. It must only
// narrow what is listed and must be safe to call concurrently.
type TweakListOptionsFunc func(*metav1.ListOptions)

// Option configures a Factory at construction.
type Option func(*Factory)

// WithNamespace limits the factory's namespaced informers to one namespace.
// metav1.NamespaceAll ("", the default) watches every namespace.
// Cluster-scoped informers are not affected.
func WithNamespace(namespace string) Option {
	return func(f *Factory) { f.namespaces, f.namespaceSet = []string{namespace}, false }
}

// WithNamespaces limits the factory's namespaced informers to a set of
// namespaces: each informer runs one list/watch per namespace and presents
// them as one informer with one merged cache. Duplicates are ignored; an
// empty list, or one that contains metav1.NamespaceAll, means every
// namespace. Cluster-scoped informers are not affected. Factory.SetNamespaces
// changes the set later (only for a factory built with specific namespaces
// here, even just one).
func WithNamespaces(namespaces ...string) Option {
	return func(f *Factory) {
		if len(namespaces) == 0 || slices.Contains(namespaces, metav1.NamespaceAll) {
			f.namespaces, f.namespaceSet = []string{metav1.NamespaceAll}, false
			return
		}
		ns := slices.Clone(namespaces)
		slices.Sort(ns)
		f.namespaces = slices.Compact(ns)
		f.namespaceSet = true
	}
}

// WithTweakListOptions sets a function applied to the ListOptions of every
// informer the factory creates.
func WithTweakListOptions(tweak TweakListOptionsFunc) Option {
	return func(f *Factory) { f.tweak = tweak }
}

// WithCustomResyncConfig overrides the default resync period per Go type.
// Keys are example objects of the type, e.g. &v1.ConfigMap{}: only their
// type matters.
func WithCustomResyncConfig(config map[metav1.Object]time.Duration) Option {
	return func(f *Factory) {
		for obj, d := range config {
			f.customResync[reflect.TypeOf(obj)] = d
		}
	}
}

// WithTransform sets a function that every informer of the factory applies
// to each object before storing it (e.g. to drop managedFields). It must
// return an object of the same Go type, may modify its argument in place,
// and must be idempotent. Per-type transforms can instead be set with
// SharedIndexInformer.SetTransform before the factory starts.
func WithTransform(transform func(runtime.Object) (runtime.Object, error)) Option {
	return func(f *Factory) { f.transform = transform }
}
