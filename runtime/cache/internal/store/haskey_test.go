package store

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/deltafifo"
	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// The informer's store must be a deltafifo.KeyIndex, or every watch delete
// would build its key's string to ask the store; and its answer must be the
// store's.
func TestInformerStoreIsTheQueuesKeyIndex(t *testing.T) {
	s := New[*corev1.Pod](nil)
	var known deltafifo.KnownObjects[*corev1.Pod] = s
	idx, ok := known.(deltafifo.KeyIndex)
	if !ok {
		t.Fatal("Indexer is not a deltafifo.KeyIndex")
	}
	if err := s.Add(pod("ns", "a", "1")); err != nil {
		t.Fatal(err)
	}
	if !idx.HasKey(keys.Key{Namespace: "ns", Name: "a"}) {
		t.Error("HasKey(ns/a) false for a stored object")
	}
	if idx.HasKey(keys.Key{Namespace: "ns", Name: "b"}) || idx.HasKey(keys.Key{Name: "a"}) {
		t.Error("HasKey true for a key that is not stored")
	}
}
