package cache

import "github.com/typedinformer/typedinformer/runtime/internal/keys"

// HasKey reports whether the object with key k is stored. It makes the store
// the informer's queue feeds a deltafifo.KeyIndex, so that a watch delete is
// checked against the store without building the key's string. It takes the
// read lock.
func (s *threadSafeIndexer[T]) HasKey(k keys.Key) bool {
	return s.hasKey(k)
}
