package crcache

import (
	"context"
	"errors"
	"strings"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// byGVKCache sends each kind with a ByObject entry to its own cache and
// every other kind to the default one.
type byGVKCache struct {
	scheme *runtime.Scheme
	caches map[schema.GroupVersionKind]crcache.Cache
	def    crcache.Cache
}

func (d *byGVKCache) forObject(o runtime.Object) (crcache.Cache, error) {
	gvk, err := apiutil.GVKForObject(o, d.scheme)
	if err != nil {
		return nil, err
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return d.forGVK(gvk), nil
}

func (d *byGVKCache) forGVK(gvk schema.GroupVersionKind) crcache.Cache {
	if c, ok := d.caches[gvk]; ok {
		return c
	}
	return d.def
}

func (d *byGVKCache) all() []crcache.Cache {
	all := make([]crcache.Cache, 0, len(d.caches)+1)
	for _, c := range d.caches {
		all = append(all, c)
	}
	return append(all, d.def)
}

func (d *byGVKCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c, err := d.forObject(obj)
	if err != nil {
		return err
	}
	return c.Get(ctx, key, obj, opts...)
}

func (d *byGVKCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c, err := d.forObject(list)
	if err != nil {
		return err
	}
	return c.List(ctx, list, opts...)
}

func (d *byGVKCache) GetInformer(ctx context.Context, obj client.Object, opts ...crcache.InformerGetOption) (crcache.Informer, error) {
	c, err := d.forObject(obj)
	if err != nil {
		return nil, err
	}
	return c.GetInformer(ctx, obj, opts...)
}

func (d *byGVKCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...crcache.InformerGetOption) (crcache.Informer, error) {
	return d.forGVK(gvk).GetInformerForKind(ctx, gvk, opts...)
}

func (d *byGVKCache) RemoveInformer(ctx context.Context, obj client.Object) error {
	c, err := d.forObject(obj)
	if err != nil {
		return err
	}
	return c.RemoveInformer(ctx, obj)
}

func (d *byGVKCache) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	c, err := d.forObject(obj)
	if err != nil {
		return err
	}
	return c.IndexField(ctx, obj, field, extract)
}

func (d *byGVKCache) Start(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range d.all() {
		g.Go(func() error { return c.Start(gctx) })
	}
	if err := g.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func (d *byGVKCache) WaitForCacheSync(ctx context.Context) bool {
	synced := true
	for _, c := range d.all() {
		if !c.WaitForCacheSync(ctx) {
			synced = false
		}
	}
	return synced
}
