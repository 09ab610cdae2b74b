package sharding

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Union returns the normalized union of a and b. Invalid ranges (First >
// Last) are dropped.
func Union(a, b []Range) []Range {
	all := make([]Range, 0, len(a)+len(b))
	for _, r := range append(append(all, a...), b...) {
		if r.First <= r.Last {
			all = append(all, r)
		}
	}
	out, _ := Normalize(all)
	return out
}

// Intersect returns the normalized hash values present in both a and b.
// Invalid ranges are dropped.
func Intersect(a, b []Range) []Range {
	na, nb := Union(a, nil), Union(b, nil)
	var out []Range
	i, j := 0, 0
	for i < len(na) && j < len(nb) {
		lo := max(na[i].First, nb[j].First)
		hi := min(na[i].Last, nb[j].Last)
		if lo <= hi {
			out = append(out, Range{First: lo, Last: hi})
		}
		if na[i].Last < nb[j].Last {
			i++
		} else {
			j++
		}
	}
	return out
}

// Subtract returns the normalized hash values of a that are not in b.
// Invalid ranges are dropped.
func Subtract(a, b []Range) []Range {
	na, nb := Union(a, nil), Union(b, nil)
	var out []Range
	j := 0
	for _, r := range na {
		cur := r
		empty := false
		for j < len(nb) && nb[j].Last < cur.First {
			j++
		}
		for k := j; k < len(nb) && nb[k].First <= cur.Last; k++ {
			s := nb[k]
			if s.First > cur.First {
				out = append(out, Range{First: cur.First, Last: s.First - 1})
			}
			if s.Last >= cur.Last {
				empty = true
				break
			}
			cur.First = s.Last + 1
		}
		if !empty {
			out = append(out, cur)
		}
	}
	return out
}

// Overlaps reports whether a and b share at least one hash value.
func Overlaps(a, b []Range) bool { return len(Intersect(a, b)) > 0 }

// SpaceOf returns the fraction of the 64-bit hash space that ranges cover,
// counting overlapping values once.
func SpaceOf(ranges []Range) float64 {
	var total float64
	for _, r := range Union(ranges, nil) {
		total += r.Size()
	}
	return total / (float64(math.MaxUint64) + 1)
}

// FormatRanges renders ranges (normalized first) compactly as
// "first-last,first-last" with 16 lowercase hex digits per bound, both
// inclusive: the form a Ring records in its Lease. No ranges render as "".
func FormatRanges(ranges []Range) string {
	var b strings.Builder
	for i, r := range Union(ranges, nil) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%016x-%016x", r.First, r.Last)
	}
	return b.String()
}

// ParseRanges reads the form FormatRanges writes and returns the
// normalized ranges. It returns an error naming the first malformed or
// inverted item.
func ParseRanges(s string) ([]Range, error) {
	if s == "" {
		return nil, nil
	}
	items := strings.Split(s, ",")
	out := make([]Range, 0, len(items))
	for i, item := range items {
		first, last, ok := strings.Cut(item, "-")
		if !ok {
			return nil, fmt.Errorf("sharding: range %d %q: want first-last", i, item)
		}
		f, err := strconv.ParseUint(first, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("sharding: range %d %q: first: %w", i, item, err)
		}
		l, err := strconv.ParseUint(last, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("sharding: range %d %q: last: %w", i, item, err)
		}
		if f > l {
			return nil, fmt.Errorf("sharding: range %d %q: first after last", i, item)
		}
		out = append(out, Range{First: f, Last: l})
	}
	return Normalize(out)
}
