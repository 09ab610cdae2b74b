package reflector

import (
	"hash/maphash"
	"math"
	"unsafe"
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
	seed     maphash.Seed
	seeded   bool
	cur, old map[uint64][]map[string]any
	n        int // documents in cur
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
	for _, d := range c.cur[h] {
		if sameTree(d, doc) {
			return d
		}
	}
	for _, d := range c.old[h] {
		if sameTree(d, doc) {
			c.put(h, d)
			return d
		}
	}
	c.put(h, doc)
	return doc
}

// put remembers d under h, starting a new generation when the current one
// is full.
func (c *fieldsTrees) put(h uint64, d map[string]any) {
	if c.cur == nil || c.n >= managedFieldsShareEntries {
		c.old, c.cur, c.n = c.cur, map[uint64][]map[string]any{}, 0
	}
	c.cur[h] = append(c.cur[h], d)
	c.n++
}

// Len returns how many documents the current generation holds.
func (c *fieldsTrees) Len() int { return c.n }

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
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}
