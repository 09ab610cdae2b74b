package sharding

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// DefaultVNodes is the number of virtual nodes per member that Assign
// callers should use unless they measured otherwise. With 256 points per
// member, every member of a ring of 1 to 16 holds between 0.8 and 1.2
// times its even share of the hash space (measured for the member names
// replica-0 ... replica-15 by TestAssignBalance; other names give the
// same spread statistically), and a member's selector stays below 24 kB.
const DefaultVNodes = 256

// MaxVNodes is the largest vnode count Assign accepts. A member holds at
// most vnodes+1 ranges (the range wrapping past the top of the space is
// split in two), and 1025 clauses on object.metadata.namespace render to
// about 87,000 bytes, inside MaxSelectorLength.
const MaxVNodes = 1024

// point is one virtual node on the ring: the member owns the hash values
// after the previous point up to and including at.
type point struct {
	at     uint64
	member string
}

// ringPoint places virtual node i of member on the ring. SHA-256 rather
// than FNV-1a: member names differ in few trailing bytes, and the points
// must spread uniformly whatever the names look like.
func ringPoint(member string, i int) uint64 {
	sum := sha256.Sum256([]byte(member + "\x00" + strconv.Itoa(i)))
	return binary.BigEndian.Uint64(sum[:8])
}

// Assign divides the 64-bit hash space among members by consistent
// hashing: each member places vnodes points on a ring, and owns the
// values from just after the preceding point (of any member) up to and
// including each of its own points, wrapping past the top of the space.
//
// The result is a deterministic function of the set of members and
// vnodes: the order of members does not matter, and every replica that
// sees the same live members computes the same map. Each member's ranges
// are normalized (sorted, adjacent ones merged); together they cover the
// whole space exactly once. When a member joins, it takes only values
// that other members held, and when one leaves only its values move, so
// about 1/N of the space changes owner. The map has one entry per member
// with at least one range; an empty members slice gives an empty map.
//
// It returns an error for vnodes outside 1..MaxVNodes, an empty member
// name or a duplicate member, and then no map.
func Assign(members []string, vnodes int) (map[string][]Range, error) {
	if vnodes < 1 || vnodes > MaxVNodes {
		return nil, fmt.Errorf("sharding: vnodes %d out of range 1..%d", vnodes, MaxVNodes)
	}
	seen := make(map[string]bool, len(members))
	for i, m := range members {
		if m == "" {
			return nil, fmt.Errorf("sharding: member %d has an empty name", i)
		}
		if seen[m] {
			return nil, fmt.Errorf("sharding: member %q listed twice", m)
		}
		seen[m] = true
	}
	out := make(map[string][]Range, len(members))
	if len(members) == 0 {
		return out, nil
	}
	points := make([]point, 0, len(members)*vnodes)
	for _, m := range members {
		for i := 0; i < vnodes; i++ {
			points = append(points, point{at: ringPoint(m, i), member: m})
		}
	}
	for m, rs := range rangesFromPoints(points) {
		out[m] = rs
	}
	return out, nil
}

// rangesFromPoints sorts points in place and returns each member's
// normalized ranges. points must not be empty. Equal points of different
// members are ordered by member name, so the result does not depend on
// the order of points; the later of two equal points owns nothing.
func rangesFromPoints(points []point) map[string][]Range {
	sort.Slice(points, func(i, j int) bool {
		if points[i].at != points[j].at {
			return points[i].at < points[j].at
		}
		return points[i].member < points[j].member
	})
	raw := make(map[string][]Range)
	first, last := points[0], points[len(points)-1]
	raw[first.member] = append(raw[first.member], Range{First: 0, Last: first.at})
	if last.at != math.MaxUint64 {
		raw[first.member] = append(raw[first.member], Range{First: last.at + 1, Last: math.MaxUint64})
	}
	for i := 1; i < len(points); i++ {
		prev, p := points[i-1], points[i]
		if p.at == prev.at {
			continue
		}
		raw[p.member] = append(raw[p.member], Range{First: prev.at + 1, Last: p.at})
	}
	out := make(map[string][]Range, len(raw))
	for m, rs := range raw {
		// Every range above has First <= Last, so Normalize cannot fail.
		norm, _ := Normalize(rs)
		out[m] = norm
	}
	return out
}
