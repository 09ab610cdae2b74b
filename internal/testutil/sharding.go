package testutil

import "github.com/typedinformer/typedinformer/runtime/sharding"

// NamespacePoints returns the one-point ranges holding exactly the hashes of
// the given namespaces, in their order: a shard scope that takes in those
// namespaces and (barring hash collisions) no other.
func NamespacePoints(namespaces ...string) []sharding.Range {
	out := make([]sharding.Range, 0, len(namespaces))
	for _, ns := range namespaces {
		h := sharding.Hash(ns)
		out = append(out, sharding.Range{First: h, Last: h})
	}
	return out
}
