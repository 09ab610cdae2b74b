// Package sharding computes which part of a Kubernetes resource a replica
// of a sharded controller owns, in the terms of server-side sharded list
// and watch (KEP-5866, feature gate ShardedListAndWatch, Kubernetes v1.36
// and later).
//
// The apiserver hashes one metadata field of every object (its namespace or
// its uid) with 64-bit FNV-1a and keeps the objects whose hash falls in one
// of the half-open ranges named by a shard selector such as
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(...)
//
// This package provides the same hash (Hash), a range type (Range, whose
// bounds are inclusive so that the whole 64-bit space is representable),
// a deterministic assignment of ranges to replicas by consistent hashing
// with virtual nodes (Assign), the rendering of ranges as a selector
// string (Selector) and the client-side check a replica applies when the
// server did not honour the selector (Owns, Contains).
//
// The package only produces strings and numbers: it does not reference
// metav1.ListOptions.ShardSelector, which needs k8s.io/apimachinery v0.36,
// so that it builds against the oldest supported Kubernetes libraries.
// Every function is pure and safe for concurrent use.
package sharding
