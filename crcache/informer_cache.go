package crcache

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// informerCache is the cache of one namespace (or all) and one
// configuration: a reader and informers over one informers.
type informerCache struct {
	scheme        *runtime.Scheme
	informers     *informers
	failOnMissing bool
}

var _ crcache.Cache = (*informerCache)(nil)

func blockUntilSynced(opts []crcache.InformerGetOption) bool {
	o := crcache.InformerGetOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	return o.BlockUntilSynced == nil || *o.BlockUntilSynced
}

func (c *informerCache) Get(ctx context.Context, key client.ObjectKey, out client.Object, opts ...client.GetOption) error {
	gvk, err := apiutil.GVKForObject(out, c.scheme)
	if err != nil {
		return err
	}
	started, e, err := c.informers.get(ctx, gvk, out, c.failOnMissing, true)
	if err != nil {
		return err
	}
	if !started {
		return &crcache.ErrCacheNotStarted{}
	}
	return e.reader.Get(ctx, key, out, opts...)
}

func (c *informerCache) List(ctx context.Context, out client.ObjectList, opts ...client.ListOption) error {
	gvk, obj, err := c.itemOf(out)
	if err != nil {
		return err
	}
	started, e, err := c.informers.get(ctx, gvk, obj, c.failOnMissing, true)
	if err != nil {
		return err
	}
	if !started {
		return &crcache.ErrCacheNotStarted{}
	}
	return e.reader.List(ctx, out, opts...)
}

// itemOf is the kind of list's items and an object of their type.
func (c *informerCache) itemOf(list client.ObjectList) (schema.GroupVersionKind, runtime.Object, error) {
	gvk, err := apiutil.GVKForObject(list, c.scheme)
	if err != nil {
		return schema.GroupVersionKind{}, nil, err
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	switch list.(type) {
	case runtime.Unstructured:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return gvk, u, nil
	case *metav1.PartialObjectMetadataList:
		p := &metav1.PartialObjectMetadata{}
		p.SetGroupVersionKind(gvk)
		return gvk, p, nil
	}
	obj, err := c.scheme.New(gvk)
	if err != nil {
		return schema.GroupVersionKind{}, nil, err
	}
	return gvk, obj, nil
}

func (c *informerCache) GetInformer(ctx context.Context, obj client.Object, opts ...crcache.InformerGetOption) (crcache.Informer, error) {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return nil, err
	}
	_, e, err := c.informers.get(ctx, gvk, obj, false, blockUntilSynced(opts))
	if err != nil {
		return nil, err
	}
	return e.informer, nil
}

func (c *informerCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...crcache.InformerGetOption) (crcache.Informer, error) {
	obj, err := c.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	_, e, err := c.informers.get(ctx, gvk, obj, false, blockUntilSynced(opts))
	if err != nil {
		return nil, err
	}
	return e.informer, nil
}

func (c *informerCache) RemoveInformer(_ context.Context, obj client.Object) error {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return err
	}
	c.informers.remove(gvk, obj)
	return nil
}

func (c *informerCache) Start(ctx context.Context) error { return c.informers.Start(ctx) }

func (c *informerCache) WaitForCacheSync(ctx context.Context) bool {
	return c.informers.WaitForCacheSync(ctx)
}

// NeedLeaderElection says the cache runs on every replica.
func (c *informerCache) NeedLeaderElection() bool { return false }

func (c *informerCache) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	inf, err := c.GetInformer(ctx, obj, crcache.BlockUntilSynced(false))
	if err != nil {
		return err
	}
	return indexField(inf, field, extract)
}

// indexField adds field's index to inf: each value extract returns is filed
// under namespace/value and, for a namespaced object, also under
// __all_namespaces/value.
func indexField(inf crcache.Informer, field string, extract client.IndexerFunc) error {
	return inf.AddIndexers(toolscache.Indexers{fieldIndexName(field): func(raw any) ([]string, error) {
		obj, ok := raw.(client.Object)
		if !ok {
			return nil, fmt.Errorf("object of type %T is not an Object", raw)
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		ns := m.GetNamespace()
		raws := extract(obj)
		vals := make([]string, 0, 2*len(raws))
		for _, v := range raws {
			vals = append(vals, namespacedKey(ns, v))
		}
		if ns != "" {
			for _, v := range raws {
				vals = append(vals, namespacedKey("", v))
			}
		}
		return vals, nil
	}})
}
