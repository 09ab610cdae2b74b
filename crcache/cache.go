package crcache

import (
	"fmt"
	"maps"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// defaultSyncPeriod is controller-runtime's default resync period.
const defaultSyncPeriod = 10 * time.Hour

var _ crcache.NewCacheFunc = New

// New is a controller-runtime cache.NewCacheFunc: a cache for cfg with
// opts, served by the typedinformer runtime through runtime/wire (see the
// package documentation). Options are defaulted as controller-runtime's
// cache.New defaults them: an HTTP client and a dynamic RESTMapper from
// cfg, client-go's scheme, per-namespace and per-object settings falling
// back to the defaults.
func New(cfg *rest.Config, opts crcache.Options) (crcache.Cache, error) {
	if cfg == nil {
		return nil, fmt.Errorf("crcache.New: the rest.Config is nil")
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	opts, err := defaultOptions(cfg, opts)
	if err != nil {
		return nil, err
	}
	newCache := func(c crcache.Config, namespace string) crcache.Cache {
		return &informerCache{
			scheme: opts.Scheme,
			informers: newInformers(informersConfig{
				restConfig:            cfg,
				httpClient:            opts.HTTPClient,
				scheme:                opts.Scheme,
				mapper:                opts.Mapper,
				resync:                deref(c.SyncPeriod, defaultSyncPeriod),
				namespace:             namespace,
				label:                 c.LabelSelector,
				field:                 c.FieldSelector,
				transform:             c.Transform,
				unsafeDisableDeepCopy: deref(c.UnsafeDisableDeepCopy, false),
				enableWatchBookmarks:  deref(c.EnableWatchBookmarks, true),
				watchErrorHandler:     opts.DefaultWatchErrorHandler,
				newInformer:           opts.NewInformer,
			}),
			failOnMissing: opts.ReaderFailOnMissingInformer,
		}
	}
	var def crcache.Cache
	if len(opts.DefaultNamespaces) > 0 {
		global := defaultsConfig(&opts)
		def = newMultiNamespaceCache(newCache, opts, opts.DefaultNamespaces, &global)
	} else {
		def = newCache(defaultsConfig(&opts), metav1.NamespaceAll)
	}
	if len(opts.ByObject) == 0 {
		return def, nil
	}
	d := &byGVKCache{scheme: opts.Scheme, caches: make(map[schema.GroupVersionKind]crcache.Cache, len(opts.ByObject)), def: def}
	for obj, by := range opts.ByObject {
		gvk, err := apiutil.GVKForObject(obj, opts.Scheme)
		if err != nil {
			return nil, fmt.Errorf("failed to get GVK for type %T: %w", obj, err)
		}
		if len(by.Namespaces) > 0 {
			d.caches[gvk] = newMultiNamespaceCache(newCache, opts, by.Namespaces, nil)
		} else {
			d.caches[gvk] = newCache(byObjectConfig(by), metav1.NamespaceAll)
		}
	}
	return d, nil
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// defaultsConfig is the Config of opts' Default* fields.
func defaultsConfig(opts *crcache.Options) crcache.Config {
	return crcache.Config{
		LabelSelector:         opts.DefaultLabelSelector,
		FieldSelector:         opts.DefaultFieldSelector,
		Transform:             opts.DefaultTransform,
		UnsafeDisableDeepCopy: opts.DefaultUnsafeDisableDeepCopy,
		EnableWatchBookmarks:  opts.DefaultEnableWatchBookmarks,
		SyncPeriod:            opts.SyncPeriod,
	}
}

// byObjectConfig is the Config of a ByObject's own fields.
func byObjectConfig(b crcache.ByObject) crcache.Config {
	return crcache.Config{
		LabelSelector:         b.Label,
		FieldSelector:         b.Field,
		Transform:             b.Transform,
		UnsafeDisableDeepCopy: b.UnsafeDisableDeepCopy,
		EnableWatchBookmarks:  b.EnableWatchBookmarks,
		SyncPeriod:            b.SyncPeriod,
	}
}

// fillConfig sets every unset field of c from from.
func fillConfig(c, from crcache.Config) crcache.Config {
	if c.LabelSelector == nil {
		c.LabelSelector = from.LabelSelector
	}
	if c.FieldSelector == nil {
		c.FieldSelector = from.FieldSelector
	}
	if c.Transform == nil {
		c.Transform = from.Transform
	}
	if c.UnsafeDisableDeepCopy == nil {
		c.UnsafeDisableDeepCopy = from.UnsafeDisableDeepCopy
	}
	if c.EnableWatchBookmarks == nil {
		c.EnableWatchBookmarks = from.EnableWatchBookmarks
	}
	if c.SyncPeriod == nil {
		c.SyncPeriod = from.SyncPeriod
	}
	return c
}

// defaultOptions fills opts as controller-runtime's cache does: the HTTP
// client, scheme and mapper; every per-object and per-namespace Config
// falls back to the object's settings, then the namespace's defaults, then
// the cache's defaults; a "" (all namespaces) entry excludes the other
// namespaces listed beside it, which have informers of their own.
func defaultOptions(cfg *rest.Config, opts crcache.Options) (crcache.Options, error) {
	var err error
	if opts.HTTPClient == nil {
		if opts.HTTPClient, err = rest.HTTPClientFor(cfg); err != nil {
			return opts, fmt.Errorf("could not create HTTP client from config: %w", err)
		}
	}
	if opts.Scheme == nil {
		opts.Scheme = scheme.Scheme
	}
	if opts.Mapper == nil {
		if opts.Mapper, err = apiutil.NewDynamicRESTMapper(cfg, opts.HTTPClient); err != nil {
			return opts, fmt.Errorf("could not create RESTMapper from config: %w", err)
		}
	}
	defaults := defaultsConfig(&opts)
	opts.ByObject = maps.Clone(opts.ByObject)
	opts.DefaultNamespaces = maps.Clone(opts.DefaultNamespaces)
	for obj, by := range opts.ByObject {
		namespaced, err := apiutil.IsObjectNamespaced(obj, opts.Scheme, opts.Mapper)
		if err != nil {
			return opts, fmt.Errorf("failed to determine if %T is namespaced: %w", obj, err)
		}
		if !namespaced && by.Namespaces != nil {
			return opts, fmt.Errorf("type %T is not namespaced, but its ByObject.Namespaces setting is not nil", obj)
		}
		if namespaced && by.Namespaces == nil {
			by.Namespaces = maps.Clone(opts.DefaultNamespaces)
		} else {
			by.Namespaces = maps.Clone(by.Namespaces)
		}
		for ns, c := range by.Namespaces {
			c = fillConfig(c, byObjectConfig(by))
			if nsDefaults, ok := opts.DefaultNamespaces[ns]; ok {
				c = fillConfig(c, nsDefaults)
			}
			c = fillConfig(c, defaults)
			if ns == metav1.NamespaceAll {
				c.FieldSelector = excludeNamespaces(slices.Collect(maps.Keys(by.Namespaces)), c.FieldSelector)
			}
			by.Namespaces[ns] = c
		}
		if !namespaced || len(by.Namespaces) == 0 {
			c := fillConfig(byObjectConfig(by), defaults)
			by.Label, by.Field, by.Transform = c.LabelSelector, c.FieldSelector, c.Transform
			by.UnsafeDisableDeepCopy, by.EnableWatchBookmarks, by.SyncPeriod = c.UnsafeDisableDeepCopy, c.EnableWatchBookmarks, c.SyncPeriod
		}
		opts.ByObject[obj] = by
	}
	for ns, c := range opts.DefaultNamespaces {
		c = fillConfig(c, defaults)
		if ns == metav1.NamespaceAll {
			c.FieldSelector = excludeNamespaces(slices.Collect(maps.Keys(opts.DefaultNamespaces)), c.FieldSelector)
		}
		opts.DefaultNamespaces[ns] = c
	}
	return opts, nil
}

// excludeNamespaces is sel and metadata.namespace!=ns for every named
// namespace (sorted, so the selector is stable).
func excludeNamespaces(namespaces []string, sel fields.Selector) fields.Selector {
	slices.Sort(namespaces)
	var sels []fields.Selector
	for _, ns := range namespaces {
		if ns != metav1.NamespaceAll {
			sels = append(sels, fields.OneTermNotEqualSelector("metadata.namespace", ns))
		}
	}
	if sel != nil {
		sels = append(sels, sel)
	}
	return fields.AndSelectors(sels...)
}
