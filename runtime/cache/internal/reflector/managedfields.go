package reflector

import (
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
// c already holds for other objects. Only the FieldsV1 byte slices change,
// to equal contents; the entries and the slice are obj's own.
//
// An unstructured object (runtime.Unstructured) is left alone and c
// remembers nothing of it: its documents are maps inside its content, and
// GetManagedFields returns entries converted from them, whose bytes are
// not the object's, so sharing them would change nothing of obj and only
// keep the converted copies alive in c.
func (c *fieldsCache) shareManagedFields(obj metav1.Object) {
	if _, ok := obj.(runtime.Unstructured); ok {
		return
	}
	for _, e := range obj.GetManagedFields() {
		if e.FieldsV1 != nil && len(e.FieldsV1.Raw) > 0 {
			e.FieldsV1.Raw = c.share(e.FieldsV1.Raw)
		}
	}
}
