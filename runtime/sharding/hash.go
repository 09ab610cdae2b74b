package sharding

// FNV-1a 64-bit parameters (offset basis and prime), as published for the
// Fowler–Noll–Vo hash.
const (
	fnvOffset64 uint64 = 0xcbf29ce484222325
	fnvPrime64  uint64 = 0x100000001b3
)

// Hash returns the 64-bit FNV-1a hash of the bytes of s, exactly as the
// apiserver hashes a field value for shardRange: the UTF-8 bytes of the
// value as stored, with no prefix, separator or normalisation. The empty
// string (the namespace of a cluster-scoped object) hashes to the FNV
// offset basis 0xcbf29ce484222325.
func Hash(s string) uint64 {
	h := fnvOffset64
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}
