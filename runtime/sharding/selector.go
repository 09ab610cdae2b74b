package sharding

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// MaxSelectorLength is the longest selector Selector renders, in bytes
// (every byte of a rendered selector is ASCII, so bytes equal code
// points). The apiserver parses the selector as a CEL expression, and its
// CEL parser rejects expressions longer than 100,000 code points; the
// parser sets no other limit on the number of clauses. A selector this
// long is also a query parameter of every list and watch request, which is
// one reason to keep vnode counts moderate (see MaxVNodes).
const MaxSelectorLength = 100_000

// endOfSpace is the apiserver's spelling of 2^64, the exclusive end of the
// hash space and the only accepted 17-digit bound.
const endOfSpace = "0x10000000000000000"

// clauseSeparator joins clauses; it matches the apiserver's own rendering,
// so a selector from Selector is byte-for-byte what the server echoes in
// ListMeta.ShardInfo.
const clauseSeparator = " || "

func hexStart(r Range) string { return fmt.Sprintf("0x%016x", r.First) }

func hexEnd(r Range) string {
	if r.Last == math.MaxUint64 {
		return endOfSpace
	}
	return fmt.Sprintf("0x%016x", r.Last+1)
}

// Selector renders ranges as a KEP-5866 shard selector on field: one
// shardRange(field, 'start', 'end') clause per range after Normalize, in
// ascending order, joined by " || ". Bounds are 0x followed by exactly 16
// lowercase hex digits, start inclusive and end exclusive, and the end of
// the space is written 0x10000000000000000, which is the form the
// apiserver requires. The result is identical to the apiserver's own
// rendering of the parsed selector (what ListMeta.ShardInfo echoes).
//
// It returns an error for an unsupported field, for no ranges (an empty
// selector means "everything" to the apiserver, never "nothing"), for an
// invalid range, and when the result would exceed MaxSelectorLength.
func Selector(field Field, ranges []Range) (string, error) {
	if err := field.Validate(); err != nil {
		return "", err
	}
	if len(ranges) == 0 {
		return "", errors.New("sharding: no ranges to render; an empty shard selector would select every object")
	}
	norm, err := Normalize(ranges)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, r := range norm {
		if i > 0 {
			b.WriteString(clauseSeparator)
		}
		fmt.Fprintf(&b, "shardRange(%s, '%s', '%s')", field, hexStart(r), hexEnd(r))
	}
	if b.Len() > MaxSelectorLength {
		return "", fmt.Errorf("sharding: selector of %d clauses is %d bytes, over the apiserver's limit of %d; use fewer virtual nodes", len(norm), b.Len(), MaxSelectorLength)
	}
	return b.String(), nil
}
