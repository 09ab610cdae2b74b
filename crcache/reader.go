package crcache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// allNamespacesKey prefixes the values an IndexField index files every
// namespaced object under a second time, for lists across namespaces
// (controller-runtime's convention, so that indexes added through its
// informers and ours agree).
const allNamespacesKey = "__all_namespaces"

// fieldIndexName is the name of IndexField's index of field.
func fieldIndexName(field string) string { return "field:" + field }

// namespacedKey is the value an IndexField index files v under for ns.
func namespacedKey(ns, v string) string {
	if ns == "" {
		ns = allNamespacesKey
	}
	return ns + "/" + v
}

// errContinue is what a List with a continue token gets.
var errContinue = errors.New("continue list option is not supported by the cache")

// reader reads one informer's store.
type reader struct {
	indexer         toolscache.Indexer
	gvk             schema.GroupVersionKind
	scope           meta.RESTScopeName
	disableDeepCopy bool
	// copier copies the informer's objects into what reads return; nil, or
	// an object of another type (a transform may change it), is copied
	// with DeepCopyObject and then assigned.
	copier *copier
}

// noCopy reports whether a read returns the cached objects themselves.
func (r *reader) noCopy(unsafeNoCopy *bool) bool {
	return r.disableDeepCopy || (unsafeNoCopy != nil && *unsafeNoCopy)
}

func (r *reader) copyOut(obj runtime.Object, unsafeNoCopy *bool) (runtime.Object, bool) {
	if r.noCopy(unsafeNoCopy) {
		return obj, false
	}
	return obj.DeepCopyObject(), true
}

// Get copies the cached object key into out.
func (r *reader) Get(_ context.Context, key client.ObjectKey, out client.Object, opts ...client.GetOption) error {
	o := client.GetOptions{}
	o.ApplyOptions(opts)
	if r.scope == meta.RESTScopeNameRoot {
		key.Namespace = ""
	}
	storeKey := key.Name
	if key.Namespace != "" {
		storeKey = key.Namespace + "/" + key.Name
	}
	item, ok, err := r.indexer.GetByKey(storeKey)
	if err != nil {
		return err
	}
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Group: r.gvk.Group, Resource: r.gvk.Kind}, key.Name)
	}
	obj, isObj := item.(runtime.Object)
	if !isObj {
		return fmt.Errorf("cache contained %T, which is not an Object", item)
	}
	outVal := reflect.ValueOf(out)
	if !r.noCopy(o.UnsafeDisableDeepCopy) && r.copier.copies(obj) && outVal.Type() == r.copier.typ && !outVal.IsNil() {
		// One copy, straight into out.
		r.copier.copyInto(outVal, reflect.ValueOf(obj))
		out.GetObjectKind().SetGroupVersionKind(r.gvk)
		return nil
	}
	obj, copied := r.copyOut(obj, o.UnsafeDisableDeepCopy)
	objVal := reflect.ValueOf(obj)
	if !objVal.Type().AssignableTo(outVal.Type()) {
		return fmt.Errorf("cache had type %s, but %s was asked for", objVal.Type(), outVal.Type())
	}
	reflect.Indirect(outVal).Set(reflect.Indirect(objVal))
	if copied {
		out.GetObjectKind().SetGroupVersionKind(r.gvk)
	}
	return nil
}

// List fills out with the cached objects opts select. Nothing is written to
// out when it fails.
func (r *reader) List(_ context.Context, out client.ObjectList, opts ...client.ListOption) error {
	o := client.ListOptions{}
	o.ApplyOptions(opts)
	if o.Continue != "" {
		return errContinue
	}
	var items []any
	var err error
	switch {
	case o.FieldSelector != nil:
		if !exactMatch(o.FieldSelector) {
			return errors.New("non-exact field matches are not supported by the cache")
		}
		items, err = r.byIndexes(o.FieldSelector.Requirements(), o.Namespace)
	case o.Namespace != "":
		items, err = r.indexer.ByIndex(toolscache.NamespaceIndex, o.Namespace)
	default:
		items = r.indexer.List()
	}
	if err != nil {
		return err
	}
	// The selection first, without copies, so that what is returned is
	// copied once, into its final place.
	objs := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		if o.Limit > 0 && int64(len(objs)) >= o.Limit {
			break
		}
		obj, ok := item.(runtime.Object)
		if !ok {
			return fmt.Errorf("cache contained %T, which is not an Object", item)
		}
		if o.LabelSelector != nil {
			m, err := meta.Accessor(obj)
			if err != nil {
				return err
			}
			if !o.LabelSelector.Matches(labels.Set(m.GetLabels())) {
				continue
			}
		}
		objs = append(objs, obj)
	}
	if err := r.setList(out, objs, o.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	out.SetContinue("continue-not-supported")
	return nil
}

// setList sets out's items to copies of objs (objs themselves when reads
// do not copy), as meta.SetList sets them, with the reader's GVK on each
// copy. When out's items are the cached type's values, each object is
// copied straight into its element of an Items slice allocated once.
func (r *reader) setList(out client.ObjectList, objs []runtime.Object, unsafeNoCopy *bool) error {
	if !r.noCopy(unsafeNoCopy) && r.copier != nil {
		itemsPtr, err := meta.GetItemsPtr(out)
		if err != nil {
			return err
		}
		items := reflect.ValueOf(itemsPtr).Elem()
		if items.Kind() == reflect.Slice && items.Type().Elem() == r.copier.typ.Elem() && allCopied(r.copier, objs) {
			s := reflect.MakeSlice(items.Type(), len(objs), len(objs))
			r.copier.copyAll(s, objs)
			for i := range objs {
				s.Index(i).Addr().Interface().(runtime.Object).GetObjectKind().SetGroupVersionKind(r.gvk)
			}
			items.Set(s)
			return nil
		}
	}
	copies := objs
	if !r.noCopy(unsafeNoCopy) {
		copies = make([]runtime.Object, len(objs))
		for i, obj := range objs {
			copies[i] = obj.DeepCopyObject()
			copies[i].GetObjectKind().SetGroupVersionKind(r.gvk)
		}
	}
	return meta.SetList(out, copies)
}

// allCopied reports whether c copies every object of objs.
func allCopied(c *copier, objs []runtime.Object) bool {
	for _, obj := range objs {
		if !c.copies(obj) {
			return false
		}
	}
	return true
}

// byIndexes returns the objects every requirement's IndexField index files
// under its value in namespace ("" all).
func (r *reader) byIndexes(reqs fields.Requirements, namespace string) ([]any, error) {
	indexers := r.indexer.GetIndexers()
	var objs []any
	for i, req := range reqs {
		name := fieldIndexName(req.Field)
		value := namespacedKey(namespace, req.Value)
		if i == 0 {
			if _, ok := indexers[name]; !ok {
				// client-go's indexer's text, which controller-runtime's cache returns.
				return nil, fmt.Errorf("Index with name %s does not exist", name) //nolint:staticcheck // client-go's text
			}
			var err error
			if objs, err = r.indexer.ByIndex(name, value); err != nil {
				return nil, err
			}
			if len(objs) == 0 {
				return nil, nil
			}
			continue
		}
		fn, ok := indexers[name]
		if !ok {
			return nil, fmt.Errorf("index with name %s does not exist", name)
		}
		kept := make([]any, 0, len(objs))
		for _, obj := range objs {
			vals, err := fn(obj)
			if err != nil {
				return nil, err
			}
			if slices.Contains(vals, value) {
				kept = append(kept, obj)
			}
		}
		if len(kept) == 0 {
			return nil, nil
		}
		objs = kept
	}
	return objs, nil
}

// exactMatch reports whether sel has requirements and all are equalities.
func exactMatch(sel fields.Selector) bool {
	reqs := sel.Requirements()
	if len(reqs) == 0 {
		return false
	}
	for _, r := range reqs {
		if r.Operator != selection.Equals && r.Operator != selection.DoubleEquals {
			return false
		}
	}
	return true
}
