package reflector

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"reflect"
	"unsafe"

	"github.com/typedinformer/typedinformer/runtime/internal/intern"
)

// managedFieldsTreeMaxNodes is the largest unstructured FieldsV1 document
// shared, in values (maps, their members, slices, their elements).
const managedFieldsTreeMaxNodes = 1 << 14

// fieldsTrees remembers the FieldsV1 documents of unstructured objects
// (trees of map[string]any, as decoded from JSON) seen in one informer's
// objects, so that equal documents of different objects are held once,
// as fieldsCache does for typed objects' bytes. Documents are found by a
// hash of their content and then compared in full: a document is only
// ever replaced by an equal one. Like every cached object's content, the
// shared documents must not be modified. Used by one goroutine.
type fieldsTrees struct {
	seed   maphash.Seed
	seeded bool
	// docs holds the documents of each hash (more than one only when
	// different documents collide), keyed by the hash's 8 bytes.
	docs intern.Generations[[]map[string]any]
}

// share returns a remembered document equal to doc, or remembers doc.
// A document with a value that is not one of JSON's (map[string]any,
// []any, string, int64, float64, bool, nil), or larger than
// managedFieldsTreeMaxNodes, is returned as it is.
func (c *fieldsTrees) share(doc map[string]any) map[string]any {
	if !c.seeded {
		c.seed, c.seeded = maphash.MakeSeed(), true
	}
	budget := managedFieldsTreeMaxNodes
	h, ok := c.hash(doc, &budget)
	if !ok {
		return doc
	}
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], h)
	// The lookups do not keep the key, so it may alias the array.
	lookup := unsafe.String(&key[0], len(key))
	cur, _ := c.docs.Current(lookup)
	for _, d := range cur {
		if sameTree(d, doc) {
			return d
		}
	}
	old, _ := c.docs.Old(lookup)
	for _, d := range old {
		if sameTree(d, doc) {
			doc = d // moved to the current generation
			break
		}
	}
	c.docs.Put(string(key[:]), append(cur[:len(cur):len(cur)], doc), managedFieldsShareEntries)
	return doc
}

// Len returns how many document hashes the current generation holds.
func (c *fieldsTrees) Len() int { return c.docs.CurrentLen() }

// Kinds of value, mixed into their hashes.
const (
	hashMap uint64 = iota + 1
	hashSlice
	hashString
	hashInt
	hashFloat
	hashTrue
	hashFalse
	hashNil
)

// hash hashes v, spending one unit of budget per value; ok is false for a
// value of another type or once the budget is spent. A map's members are
// combined in an order-independent way, a slice's elements in order.
func (c *fieldsTrees) hash(v any, budget *int) (uint64, bool) {
	*budget--
	if *budget < 0 {
		return 0, false
	}
	switch x := v.(type) {
	case map[string]any:
		var sum uint64
		for k, e := range x {
			eh, ok := c.hash(e, budget)
			if !ok {
				return 0, false
			}
			sum += mix(maphash.String(c.seed, k) ^ mix(eh))
		}
		return mix(hashMap ^ uint64(len(x))<<8 ^ sum), true
	case []any:
		h := mix(hashSlice ^ uint64(len(x))<<8)
		for _, e := range x {
			eh, ok := c.hash(e, budget)
			if !ok {
				return 0, false
			}
			h = mix(h ^ eh)
		}
		return h, true
	case string:
		return mix(hashString ^ maphash.String(c.seed, x)), true
	case int64:
		return mix(hashInt ^ mix(uint64(x))), true
	case float64:
		return mix(hashFloat ^ mix(math.Float64bits(x))), true
	case bool:
		if x {
			return hashTrue, true
		}
		return hashFalse, true
	case nil:
		return hashNil, true
	}
	return 0, false
}

// mix is a 64-bit finalizer: every input bit affects every output bit.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// sameTree reports whether a and b, values of the types hash accepts, are
// equal as reflect.DeepEqual sees them.
func sameTree(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, xe := range x {
			ye, ok := y[k]
			if !ok || !sameTree(xe, ye) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !sameTree(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// sameMap reports whether a and b are the same map (not only equal).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
