package conversion

import (
	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/targets/universe"
)

// This file holds what a whole run shares: the hand-written conversion
// functions found in the input and peer packages, and which pairs of types
// have the same memory layout (so that one converts to the other by an
// unsafe pointer cast).

// pair is a conversion from in to out.
type pair struct{ in, out *typ }

// manualFunc is a hand-written Convert_<in>_To_<out> function.
type manualFunc struct {
	Name, Pkg, Pos string
	// copyOnly (+k8s:conversion-fn=copy-only) says the function is a plain
	// copy: it does not stop an unsafe cast or a direct assignment. drop
	// (+k8s:conversion-fn=drop) says the member is not converted at all.
	copyOnly, drop bool
}

// converter is the state of one run.
type converter struct {
	u      *universe.Universe
	manual map[pair]*manualFunc
	// equal caches memory-layout equality by pair; a pair with a
	// hand-written conversion (not copy-only) is false.
	equal      map[pair]bool
	skipUnsafe bool
	err        error
}

// fail keeps the first error.
func (c *converter) fail(err error) {
	if err != nil && c.err == nil {
		c.err = err
	}
}

// f fills t and returns it.
func (c *converter) f(t *typ) *typ {
	c.fail(c.u.Fill(t))
	return t
}

// skip marks a and b as never memory-equal, both ways.
func (c *converter) skip(a, b *typ) {
	c.equal[pair{a, b}] = false
	c.equal[pair{b, a}] = false
}

// memoryEqual reports whether a and b have the same memory layout, no pair
// of member types in between having a hand-written conversion. With
// skipUnsafe nothing is.
func (c *converter) memoryEqual(a, b *typ) bool {
	if c.skipUnsafe {
		return false
	}
	eq, _ := c.cachedEqual(a, b, nil)
	return eq
}

// cachedEqual compares a and b through the cache; the result is cached
// unless it rests on the assumption made to stop at a type met again
// within its own members (visiting), which cacheable false reports.
func (c *converter) cachedEqual(a, b *typ, visiting []*typ) (equal, cacheable bool) {
	if a == b {
		return true, true
	}
	if eq, ok := c.equal[pair{a, b}]; ok {
		return eq, true
	}
	if eq, ok := c.equal[pair{b, a}]; ok {
		return eq, true
	}
	equal, cacheable = c.compare(a, b, visiting)
	if cacheable {
		c.equal[pair{a, b}] = equal
		c.equal[pair{b, a}] = equal
	}
	return equal, cacheable
}

// compare is cachedEqual without the cache: builtins by name, structs
// member by member in order (names are not compared), pointers, slices and
// maps by their element and key types; interfaces, arrays, funcs and chans
// never.
func (c *converter) compare(a, b *typ, visiting []*typ) (bool, bool) {
	in, out := universe.Unwrap(c.f(a)), universe.Unwrap(c.f(b))
	if in == out {
		return true, true
	}
	if in.Kind != out.Kind {
		return false, true
	}
	for _, v := range visiting {
		if v == in {
			return true, false
		}
	}
	visiting = append(visiting, in)
	switch in.Kind {
	case universe.Struct:
		if len(in.Members) != len(out.Members) {
			return false, true
		}
		cacheable := true
		for i, m := range in.Members {
			eq, ok := c.cachedEqual(m.Type, out.Members[i].Type, visiting)
			if !eq {
				return false, true
			}
			cacheable = cacheable && ok
		}
		return true, cacheable
	case universe.Pointer, universe.Slice:
		return c.cachedEqual(in.Elem, out.Elem, visiting)
	case universe.Map:
		keq, kok := c.cachedEqual(in.Key, out.Key, visiting)
		veq, vok := c.cachedEqual(in.Elem, out.Elem, visiting)
		return keq && veq, kok && vok
	case universe.Builtin:
		return in.Name == out.Name, true
	}
	return false, true
}

// conversionFnTag reads a function's +k8s:conversion-fn value.
func conversionFnTag(doc []load.CommentLine) string {
	vals := load.ExtractTags(doc)[fnTag]
	if len(vals) != 1 {
		return ""
	}
	return vals[0].Value
}
