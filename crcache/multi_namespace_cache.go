package crcache

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// clusterScope names the cluster-scoped informer of a multi-namespace
// informer.
const clusterScope = "_cluster-scope"

// multiNamespaceCache is one cache per namespace, and one for
// cluster-scoped objects (nil when a ByObject for a namespaced type).
type multiNamespaceCache struct {
	opts    crcache.Options
	byNS    map[string]crcache.Cache
	cluster crcache.Cache
}

func newMultiNamespaceCache(newCache func(crcache.Config, string) crcache.Cache, opts crcache.Options, namespaces map[string]crcache.Config, global *crcache.Config) crcache.Cache {
	c := &multiNamespaceCache{opts: opts, byNS: make(map[string]crcache.Cache, len(namespaces))}
	for ns, conf := range namespaces {
		c.byNS[ns] = newCache(conf, ns)
	}
	if global != nil {
		c.cluster = newCache(*global, metav1.NamespaceAll)
	}
	return c
}

func (c *multiNamespaceCache) namespaced(obj runtime.Object) (bool, error) {
	return apiutil.IsObjectNamespaced(obj, c.opts.Scheme, c.opts.Mapper)
}

// clusterCache is the cache of cluster-scoped objects, or an error when
// there is none.
func (c *multiNamespaceCache) clusterCache(what string) (crcache.Cache, error) {
	if c.cluster == nil {
		return nil, fmt.Errorf("%s is cluster-scoped and this cache has namespaces only", what)
	}
	return c.cluster, nil
}

func (c *multiNamespaceCache) informersOf(ctx context.Context, namespaced bool, what string, get func(crcache.Cache) (crcache.Informer, error)) (crcache.Informer, error) {
	if !namespaced {
		cc, err := c.clusterCache(what)
		if err != nil {
			return nil, err
		}
		inf, err := get(cc)
		if err != nil {
			return nil, err
		}
		return newMultiNamespaceInformer(map[string]crcache.Informer{clusterScope: inf}), nil
	}
	infs := make(map[string]crcache.Informer, len(c.byNS))
	for ns, nc := range c.byNS {
		inf, err := get(nc)
		if err != nil {
			return nil, err
		}
		infs[ns] = inf
	}
	return newMultiNamespaceInformer(infs), nil
}

func (c *multiNamespaceCache) GetInformer(ctx context.Context, obj client.Object, opts ...crcache.InformerGetOption) (crcache.Informer, error) {
	namespaced, err := c.namespaced(obj)
	if err != nil {
		return nil, err
	}
	return c.informersOf(ctx, namespaced, fmt.Sprintf("%T", obj), func(nc crcache.Cache) (crcache.Informer, error) { return nc.GetInformer(ctx, obj, opts...) })
}

func (c *multiNamespaceCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...crcache.InformerGetOption) (crcache.Informer, error) {
	namespaced, err := apiutil.IsGVKNamespaced(gvk, c.opts.Mapper)
	if err != nil {
		return nil, err
	}
	return c.informersOf(ctx, namespaced, gvk.String(), func(nc crcache.Cache) (crcache.Informer, error) { return nc.GetInformerForKind(ctx, gvk, opts...) })
}

func (c *multiNamespaceCache) RemoveInformer(ctx context.Context, obj client.Object) error {
	namespaced, err := c.namespaced(obj)
	if err != nil {
		return err
	}
	if !namespaced {
		cc, err := c.clusterCache(fmt.Sprintf("%T", obj))
		if err != nil {
			return err
		}
		return cc.RemoveInformer(ctx, obj)
	}
	for _, nc := range c.byNS {
		if err := nc.RemoveInformer(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

func (c *multiNamespaceCache) Start(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	if c.cluster != nil {
		g.Go(func() error { return c.cluster.Start(gctx) })
	}
	for ns, nc := range c.byNS {
		g.Go(func() error {
			if err := nc.Start(gctx); err != nil {
				return fmt.Errorf("failed to start cache for namespace %s: %w", ns, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func (c *multiNamespaceCache) WaitForCacheSync(ctx context.Context) bool {
	synced := true
	for _, nc := range c.byNS {
		if !nc.WaitForCacheSync(ctx) {
			synced = false
		}
	}
	if c.cluster != nil && !c.cluster.WaitForCacheSync(ctx) {
		synced = false
	}
	return synced
}

func (c *multiNamespaceCache) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	namespaced, err := c.namespaced(obj)
	if err != nil {
		return err
	}
	if !namespaced {
		cc, err := c.clusterCache(fmt.Sprintf("%T", obj))
		if err != nil {
			return err
		}
		return cc.IndexField(ctx, obj, field, extract)
	}
	for _, nc := range c.byNS {
		if err := nc.IndexField(ctx, obj, field, extract); err != nil {
			return err
		}
	}
	return nil
}

func (c *multiNamespaceCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	namespaced, err := c.namespaced(obj)
	if err != nil {
		return err
	}
	if !namespaced {
		cc, err := c.clusterCache(fmt.Sprintf("%T", obj))
		if err != nil {
			return err
		}
		return cc.Get(ctx, key, obj, opts...)
	}
	nc, ok := c.byNS[key.Namespace]
	if !ok {
		if all, ok := c.byNS[metav1.NamespaceAll]; ok {
			return all.Get(ctx, key, obj, opts...)
		}
		return fmt.Errorf("unable to get: %v because of unknown namespace for the cache", key)
	}
	return nc.Get(ctx, key, obj, opts...)
}

// List lists one namespace's cache, or every cache in turn for all
// namespaces; out is written only once every cache answered.
func (c *multiNamespaceCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	o := client.ListOptions{}
	o.ApplyOptions(opts)
	if o.Continue != "" {
		return errContinue
	}
	namespaced, err := c.namespaced(list)
	if err != nil {
		return err
	}
	if !namespaced {
		cc, err := c.clusterCache(fmt.Sprintf("%T", list))
		if err != nil {
			return err
		}
		return cc.List(ctx, list, opts...)
	}
	if o.Namespace != metav1.NamespaceAll {
		nc, ok := c.byNS[o.Namespace]
		if !ok {
			if all, ok := c.byNS[metav1.NamespaceAll]; ok {
				return all.List(ctx, list, opts...)
			}
			return fmt.Errorf("unable to list: %v because of unknown namespace for the cache", o.Namespace)
		}
		return nc.List(ctx, list, opts...)
	}
	// Namespaces in a fixed order, so that a Limit cuts the same list
	// each time.
	names := make([]string, 0, len(c.byNS))
	for ns := range c.byNS {
		names = append(names, ns)
	}
	sort.Strings(names)
	var all []runtime.Object
	var rv string
	for _, ns := range names {
		part := list.DeepCopyObject().(client.ObjectList)
		if err := c.byNS[ns].List(ctx, part, &o); err != nil {
			return err
		}
		items, err := apimeta.ExtractList(part)
		if err != nil {
			return err
		}
		all = append(all, items...)
		rv = part.GetResourceVersion()
		if o.Limit > 0 {
			if o.Limit -= int64(len(items)); o.Limit == 0 {
				break
			}
		}
	}
	if err := apimeta.SetList(list, all); err != nil {
		return err
	}
	list.SetResourceVersion(rv)
	list.SetContinue("continue-not-supported")
	return nil
}

// multiNamespaceInformer is one informer per namespace as one: handlers and
// indexers go to every one, it has synced once every one has.
type multiNamespaceInformer struct {
	byNS map[string]crcache.Informer
	// synced is done once every informer's checker is; it is made once, so
	// every HasSyncedChecker call returns the same checker.
	synced *allDone
}

var _ crcache.Informer = (*multiNamespaceInformer)(nil)

func newMultiNamespaceInformer(byNS map[string]crcache.Informer) *multiNamespaceInformer {
	checkers := make(map[string]toolscache.DoneChecker, len(byNS))
	for ns, inf := range byNS {
		checkers[ns] = inf.HasSyncedChecker()
	}
	return &multiNamespaceInformer{byNS: byNS, synced: newAllDone(checkers)}
}

func (i *multiNamespaceInformer) add(fn func(crcache.Informer) (toolscache.ResourceEventHandlerRegistration, error)) (toolscache.ResourceEventHandlerRegistration, error) {
	regs := make(map[string]toolscache.ResourceEventHandlerRegistration, len(i.byNS))
	for ns, inf := range i.byNS {
		r, err := fn(inf)
		if err != nil {
			return nil, err
		}
		regs[ns] = r
	}
	checkers := make(map[string]toolscache.DoneChecker, len(regs))
	for ns, r := range regs {
		checkers[ns] = r.HasSyncedChecker()
	}
	return &multiRegistration{regs: regs, synced: newAllDone(checkers)}, nil
}

func (i *multiNamespaceInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.add(func(inf crcache.Informer) (toolscache.ResourceEventHandlerRegistration, error) {
		return inf.AddEventHandler(h)
	})
}

func (i *multiNamespaceInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, d time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.add(func(inf crcache.Informer) (toolscache.ResourceEventHandlerRegistration, error) {
		return inf.AddEventHandlerWithResyncPeriod(h, d)
	})
}

func (i *multiNamespaceInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, o toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.add(func(inf crcache.Informer) (toolscache.ResourceEventHandlerRegistration, error) {
		return inf.AddEventHandlerWithOptions(h, o)
	})
}

func (i *multiNamespaceInformer) RemoveEventHandler(h toolscache.ResourceEventHandlerRegistration) error {
	m, ok := h.(*multiRegistration)
	if !ok {
		return fmt.Errorf("registration is not a registration returned by multiNamespaceInformer")
	}
	for ns, inf := range i.byNS {
		if r, ok := m.regs[ns]; ok {
			if err := inf.RemoveEventHandler(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func (i *multiNamespaceInformer) AddIndexers(idx toolscache.Indexers) error {
	for _, inf := range i.byNS {
		if err := inf.AddIndexers(idx); err != nil {
			return err
		}
	}
	return nil
}

func (i *multiNamespaceInformer) HasSynced() bool {
	for _, inf := range i.byNS {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

func (i *multiNamespaceInformer) HasSyncedChecker() toolscache.DoneChecker { return i.synced }

func (i *multiNamespaceInformer) IsStopped() bool {
	for _, inf := range i.byNS {
		if !inf.IsStopped() {
			return false
		}
	}
	return true
}

// multiRegistration is one handler's registrations on every namespace's
// informer.
type multiRegistration struct {
	regs   map[string]toolscache.ResourceEventHandlerRegistration
	synced *allDone // made once, as multiNamespaceInformer's
}

func (r *multiRegistration) HasSynced() bool {
	for _, reg := range r.regs {
		if !reg.HasSynced() {
			return false
		}
	}
	return true
}

func (r *multiRegistration) HasSyncedChecker() toolscache.DoneChecker { return r.synced }

// allDone is done once every one of its checkers is.
type allDone struct {
	name string
	done chan struct{}
}

func newAllDone(checkers map[string]toolscache.DoneChecker) *allDone {
	names := make([]string, 0, len(checkers))
	for ns, c := range checkers {
		names = append(names, ns+": "+c.Name())
	}
	sort.Strings(names)
	d := &allDone{name: strings.Join(names, ", "), done: make(chan struct{})}
	go func() {
		for _, c := range checkers {
			<-c.Done()
		}
		close(d.done)
	}()
	return d
}

func (d *allDone) Name() string          { return d.name }
func (d *allDone) Done() <-chan struct{} { return d.done }
