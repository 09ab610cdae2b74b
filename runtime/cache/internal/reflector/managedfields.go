package reflector

import (
	"bytes"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/internal/intern"
)

// managedFieldsShareEntries bounds one generation of the managedFields
// byte cache; hot entries survive generation turnovers.
const managedFieldsShareEntries = 1 << 14

// managedFieldsShareMaxLen is the largest FieldsV1 document shared.
const managedFieldsShareMaxLen = 64 << 10

// fieldsCache remembers FieldsV1 documents seen in one informer's objects,
// so that equal documents of different objects (the same manager owning
// the same fields of Pods of one template: typically most of an object's
// managedFields bytes) are held once. Keys alias the remembered bytes,
// which are never modified (cached objects are read-only). Each reflector
// owns one (see reflector.prepare), used only by its goroutine, so it has
// no lock; it is dropped with the reflector when the informer's Run ends.
type fieldsCache struct {
	docs intern.Generations[[]byte]
	// trees are unstructured objects' documents.
	trees fieldsTrees
}

// share returns remembered bytes equal to raw, or remembers raw.
func (c *fieldsCache) share(raw []byte) []byte {
	if len(raw) == 0 || len(raw) > managedFieldsShareMaxLen {
		return raw
	}
	// The lookups do not keep the key, so it may alias raw.
	key := unsafe.String(unsafe.SliceData(raw), len(raw))
	if b, ok := c.docs.Current(key); ok {
		return b
	}
	b, ok := c.docs.Old(key)
	if !ok {
		b = raw
	}
	c.docs.Put(unsafe.String(unsafe.SliceData(b), len(b)), b, managedFieldsShareEntries)
	return b
}

// shareManagedFields points obj's managedFields documents at equal ones
// c already holds for other objects. Only the FieldsV1 documents change,
// to equal contents; the entries and the slice are obj's own.
//
// An unstructured object (runtime.Unstructured) holds its documents as
// maps inside its content (GetManagedFields would convert them into new
// entries, not the object's): its entries' fieldsV1 maps are shared
// instead (see fieldsTrees).
func (c *fieldsCache) shareManagedFields(obj metav1.Object) {
	if u, ok := obj.(runtime.Unstructured); ok {
		c.shareUnstructured(u.UnstructuredContent())
		return
	}
	for _, e := range obj.GetManagedFields() {
		if e.FieldsV1 != nil && len(e.FieldsV1.Raw) > 0 {
			e.FieldsV1.Raw = c.share(e.FieldsV1.Raw)
		}
	}
}

// ownManagedFields gives each of obj's managedFields documents bytes of
// its own: a decoder may have handed equal documents of one response over
// as one (runtime/wire does), and with sharing disabled no object's
// document may be another's. Unstructured objects' documents are maps,
// which decoders never share.
func ownManagedFields(obj metav1.Object) {
	if _, ok := obj.(runtime.Unstructured); ok {
		return
	}
	for _, e := range obj.GetManagedFields() {
		if e.FieldsV1 != nil && len(e.FieldsV1.Raw) > 0 {
			e.FieldsV1.Raw = bytes.Clone(e.FieldsV1.Raw)
		}
	}
}

// shareUnstructured shares the fieldsV1 documents of the entries of
// metadata.managedFields in content; anything not shaped as JSON gives
// them is left as it is.
func (c *fieldsCache) shareUnstructured(content map[string]any) {
	md, ok := content["metadata"].(map[string]any)
	if !ok {
		return
	}
	entries, ok := md["managedFields"].([]any)
	if !ok {
		return
	}
	for _, e := range entries {
		entry, ok := e.(map[string]any)
		if !ok {
			continue
		}
		doc, ok := entry["fieldsV1"].(map[string]any)
		if !ok || len(doc) == 0 {
			continue
		}
		// Written only when another object's document replaces it.
		if shared := c.trees.share(doc); !sameMap(shared, doc) {
			entry["fieldsV1"] = shared
		}
	}
}
