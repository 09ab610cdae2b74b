package sharding

import (
	"fmt"
	"math"
	"sort"
)

// Range is a set of consecutive hash values from First to Last, both
// inclusive. Inclusive bounds let one Range cover the whole space
// (First 0, Last math.MaxUint64), which a half-open uint64 pair cannot;
// Selector renders it in the apiserver's half-open form [First, Last+1).
// A Range with First > Last is invalid.
type Range struct {
	// First is the smallest hash value in the range.
	First uint64
	// Last is the largest hash value in the range.
	Last uint64
}

// Full returns the range covering the whole 64-bit hash space.
func Full() Range { return Range{First: 0, Last: math.MaxUint64} }

// Contains reports whether h lies in r.
func (r Range) Contains(h uint64) bool { return r.First <= h && h <= r.Last }

// Size returns the number of hash values in r as a float64 (the full
// space, 2^64 values, does not fit a uint64). It returns 0 for an invalid
// range.
func (r Range) Size() float64 {
	if r.First > r.Last {
		return 0
	}
	return float64(r.Last-r.First) + 1
}

// String renders r as the half-open interval the apiserver uses, for
// example [0x0000000000000000, 0x10000000000000000).
func (r Range) String() string {
	return fmt.Sprintf("[%s, %s)", hexStart(r), hexEnd(r))
}

// Contains reports whether h lies in one of ranges. ranges need not be
// sorted or disjoint.
func Contains(ranges []Range, h uint64) bool {
	for _, r := range ranges {
		if r.Contains(h) {
			return true
		}
	}
	return false
}

// Normalize returns a new slice holding the same hash values as ranges,
// sorted by First, with overlapping and adjacent ranges merged. It returns
// an error naming the first invalid range (First > Last) and leaves
// ranges unmodified in every case.
func Normalize(ranges []Range) ([]Range, error) {
	out := make([]Range, 0, len(ranges))
	for i, r := range ranges {
		if r.First > r.Last {
			return nil, fmt.Errorf("sharding: range %d has First %#016x after Last %#016x", i, r.First, r.Last)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].First < out[j].First })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 {
			prev := &merged[n-1]
			// prev.Last == MaxUint64 means prev already reaches the end.
			if prev.Last == math.MaxUint64 || r.First <= prev.Last+1 {
				if r.Last > prev.Last {
					prev.Last = r.Last
				}
				continue
			}
		}
		merged = append(merged, r)
	}
	return merged, nil
}

// Owns reports whether an object with the given namespace and uid falls in
// ranges when hashed on field: the client-side filter a replica applies
// when the server ignored its shard selector (older server or feature gate
// off). It returns false for an unsupported field.
func Owns(field Field, ranges []Range, namespace, uid string) bool {
	if field.Validate() != nil {
		return false
	}
	return Contains(ranges, Hash(field.Value(namespace, uid)))
}
