package sharding

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
)

const space = 18446744073709551616.0 // 2^64

// ownedRange is one range with the member that owns it.
type ownedRange struct {
	Range
	member string
}

// flatten returns every member's ranges sorted by First.
func flatten(a map[string][]Range) []ownedRange {
	var out []ownedRange
	for m, rs := range a {
		for _, r := range rs {
			out = append(out, ownedRange{r, m})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].First < out[j].First })
	return out
}

// checkPartition fails unless a's ranges cover the whole space exactly
// once and each member's list is normalized (sorted, no two touching).
func checkPartition(t *testing.T, a map[string][]Range) {
	t.Helper()
	for m, rs := range a {
		for i, r := range rs {
			if r.First > r.Last {
				t.Fatalf("%s: inverted range %v", m, r)
			}
			if i > 0 && rs[i-1].Last+1 >= r.First {
				t.Fatalf("%s: ranges %v and %v are unsorted, overlapping or adjacent", m, rs[i-1], r)
			}
		}
	}
	all := flatten(a)
	if len(all) == 0 {
		t.Fatalf("no ranges")
	}
	if all[0].First != 0 {
		t.Fatalf("space starts uncovered: first range %v", all[0].Range)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Last == math.MaxUint64 || all[i].First != all[i-1].Last+1 {
			t.Fatalf("gap or overlap between %v (%s) and %v (%s)", all[i-1].Range, all[i-1].member, all[i].Range, all[i].member)
		}
	}
	if last := all[len(all)-1]; last.Last != math.MaxUint64 {
		t.Fatalf("space ends uncovered: last range %v", last.Range)
	}
}

// share returns the fraction of the space each member owns.
func share(a map[string][]Range) map[string]float64 {
	out := map[string]float64{}
	for m, rs := range a {
		for _, r := range rs {
			out[m] += r.Size() / space
		}
	}
	return out
}

// moved returns the fraction of the space whose owner differs between a
// and b, and fails the test if any moved value neither left nor reached
// changed (the member that joined or left).
func moved(t *testing.T, a, b map[string][]Range, changed string) float64 {
	t.Helper()
	fa, fb := flatten(a), flatten(b)
	total := 0.0
	i, j := 0, 0
	pos := uint64(0)
	for {
		ra, rb := fa[i], fb[j]
		end := min(ra.Last, rb.Last)
		if ra.member != rb.member {
			if ra.member != changed && rb.member != changed {
				t.Fatalf("[%#x, %#x] moved from %s to %s, neither of them %s", pos, end, ra.member, rb.member, changed)
			}
			total += (float64(end-pos) + 1) / space
		}
		if end == math.MaxUint64 {
			return total
		}
		pos = end + 1
		if ra.Last == end {
			i++
		}
		if rb.Last == end {
			j++
		}
	}
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// randomNames returns n distinct pod-like replica names.
func randomNames(rng *rand.Rand, n int) []string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		b := []byte("controller-7f9c5d8b6-")
		for k := 0; k < 5; k++ {
			b = append(b, alphabet[rng.Intn(len(alphabet))])
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, string(b))
		}
	}
	return out
}

func mustAssign(t *testing.T, members []string, vnodes int) map[string][]Range {
	t.Helper()
	a, err := Assign(members, vnodes)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAssignCoversSpaceExactlyOnce(t *testing.T) {
	for _, vnodes := range []int{1, 2, 16, DefaultVNodes, MaxVNodes} {
		for n := 1; n <= 16; n++ {
			a := mustAssign(t, names("replica-", n), vnodes)
			checkPartition(t, a)
			if vnodes >= 16 && len(a) != n {
				t.Errorf("vnodes %d, %d members: %d got ranges", vnodes, n, len(a))
			}
		}
	}
	if a := mustAssign(t, []string{"only"}, DefaultVNodes); !reflect.DeepEqual(a["only"], []Range{Full()}) {
		t.Errorf("single member got %v, want the full space", a["only"])
	}
}

func TestAssignIgnoresMemberOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 20; trial++ {
		ms := randomNames(rng, 1+rng.Intn(16))
		want := mustAssign(t, ms, DefaultVNodes)
		shuffled := append([]string(nil), ms...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := mustAssign(t, shuffled, DefaultVNodes); !reflect.DeepEqual(got, want) {
			t.Fatalf("members %v and %v give different assignments", ms, shuffled)
		}
	}
}

func TestAssignErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		members []string
		vnodes  int
		want    string
	}{
		"zero vnodes":  {[]string{"a"}, 0, "vnodes 0"},
		"many vnodes":  {[]string{"a"}, MaxVNodes + 1, "out of range"},
		"empty member": {[]string{"a", ""}, 8, "member 1"},
		"duplicate":    {[]string{"a", "b", "a"}, 8, `"a" listed twice`},
	} {
		a, err := Assign(tc.members, tc.vnodes)
		if err == nil || !strings.Contains(err.Error(), tc.want) || a != nil {
			t.Errorf("%s: Assign = %v, %v; want no map and an error containing %q", name, a, err, tc.want)
		}
	}
	if a, err := Assign(nil, DefaultVNodes); err != nil || len(a) != 0 {
		t.Errorf("no members: %v, %v; want an empty map", a, err)
	}
}

// TestAssignMovesAboutOneNth is a seeded property test: from a random ring
// of 1..16 members, one member joins or leaves; only the space that member
// gains or loses changes owner (checked by moved), and that is between
// 0.5/N and 1.5/N of the space, N being the larger of the two rings.
func TestAssignMovesAboutOneNth(t *testing.T) {
	rng := rand.New(rand.NewSource(5866))
	worst := 0.0
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.Intn(16)
		ms := randomNames(rng, n+1)
		small, big := ms[:n], ms
		changed := ms[n]
		before, after := mustAssign(t, small, DefaultVNodes), mustAssign(t, big, DefaultVNodes)
		if rng.Intn(2) == 0 { // a member leaves instead: swap roles
			before, after = after, before
		}
		f := moved(t, before, after, changed) * float64(n+1)
		if f > 1.5 || f < 0.5 {
			t.Fatalf("trial %d: %d<->%d members moved %.3f/N of the space", trial, n, n+1, f)
		}
		worst = max(worst, math.Abs(f-1))
	}
	t.Logf("worst moved fraction: (1±%.3f)/N", worst)
}

// balanceBound is the documented spread of DefaultVNodes: every member of
// a ring of 1..16 owns between 0.8 and 1.2 of its even share of the space.
const balanceBound = 0.2

func TestAssignBalanceOfSpace(t *testing.T) {
	rng := rand.New(rand.NewSource(36))
	worst := 0.0
	for n := 1; n <= 16; n++ {
		for _, ms := range [][]string{names("replica-", n), randomNames(rng, n), randomNames(rng, n)} {
			for m, s := range share(mustAssign(t, ms, DefaultVNodes)) {
				dev := s*float64(n) - 1
				worst = max(worst, math.Abs(dev))
				if math.Abs(dev) > balanceBound {
					t.Errorf("%d members: %s owns %.3f of its even share", n, m, 1+dev)
				}
			}
		}
	}
	t.Logf("worst share deviation over 1..16 members: %.3f", worst)
}

// checkSampleBalance hashes keys on the assignment of 1..16 members and
// fails when a member's count leaves the even share by more than
// balanceBound plus four binomial standard deviations of sampling noise.
func checkSampleBalance(t *testing.T, keys []string) {
	t.Helper()
	hashes := make([]uint64, len(keys))
	for i, k := range keys {
		hashes[i] = Hash(k)
	}
	worst := 0.0
	for n := 1; n <= 16; n++ {
		a := mustAssign(t, names("replica-", n), DefaultVNodes)
		checkPartition(t, a)
		flat := flatten(a)
		counts := map[string]int{}
		for _, h := range hashes {
			i := sort.Search(len(flat), func(i int) bool { return flat[i].Last >= h })
			if !Contains(a[flat[i].member], h) {
				t.Fatalf("hash %#x: owner %s by search does not contain it", h, flat[i].member)
			}
			counts[flat[i].member]++
		}
		even := float64(len(keys)) / float64(n)
		noise := 4 * math.Sqrt(even*(1-1/float64(n))) / even
		for _, m := range names("replica-", n) {
			dev := float64(counts[m])/even - 1
			worst = max(worst, math.Abs(dev))
			if math.Abs(dev) > balanceBound+noise {
				t.Errorf("%d members: %s holds %d keys, %.3f of even (bound ±%.3f)", n, m, counts[m], 1+dev, balanceBound+noise)
			}
		}
	}
	t.Logf("%d keys: worst count deviation over 1..16 members: %.3f", len(keys), worst)
}

func TestAssignBalanceOfUIDs(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	keys := make([]string, 20000)
	for i := range keys {
		var b [16]byte
		rng.Read(b[:])
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		keys[i] = fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	}
	checkSampleBalance(t, keys)
}

// realisticNamespaces returns namespace names shaped like real clusters:
// team or application names crossed with environments and regions. It
// deliberately has no names that differ only in a numbered suffix (see
// TestHashClustersNamesDifferingInTheLastByte).
func realisticNamespaces() []string {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
		"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "a", "b", "c",
		"payments", "search", "checkout", "identity", "billing", "data", "ml", "platform", "infra", "web",
		"mobile", "api", "ledger", "fraud", "ads", "growth", "support", "orders", "catalog", "cart", "auth"}
	out := []string{"default", "kube-system", "kube-public", "kube-node-lease", "monitoring", "cert-manager", "ingress-nginx"}
	for _, w := range words {
		for _, e := range []string{"prod", "staging", "dev", "qa", "canary"} {
			out = append(out, "team-"+w+"-"+e)
			for _, r := range []string{"eu", "us", "ap"} {
				out = append(out, w+"-"+e+"-"+r)
			}
		}
	}
	return out
}

func TestAssignBalanceOfNamespaces(t *testing.T) {
	checkSampleBalance(t, realisticNamespaces())
}

// TestHashClustersNamesDifferingInTheLastByte documents a property of the
// apiserver's hash that the docs warn about: FNV-1a's last step multiplies
// by 2^40+0x1b3, so two strings that differ only in their last byte hash
// less than 2^49 apart (1/32768 of the space) and, under any assignment by
// ranges, almost always land on the same replica. Numbered namespaces
// (tenant-1 ... tenant-9) therefore cluster; shard such clusters by uid.
func TestHashClustersNamesDifferingInTheLastByte(t *testing.T) {
	for _, prefix := range []string{"tenant-", "ns-0", "e2e-"} {
		base := Hash(prefix + "0")
		for c := byte('1'); c <= '9'; c++ {
			h := Hash(prefix + string(c))
			d := h - base
			if h < base {
				d = base - h
			}
			if d >= 1<<49 {
				t.Errorf("Hash(%q) and Hash(%q) are %#x apart, not within 2^49", prefix+"0", prefix+string(c), d)
			}
		}
	}
}

// TestRangesFromPointsBreaksTiesByName feeds colliding ring points (which
// SHA-256 makes practically impossible in Assign) in every order and
// expects one answer: the alphabetically first member owns the arc.
func TestRangesFromPointsBreaksTiesByName(t *testing.T) {
	pts := []point{{100, "b"}, {100, "a"}, {200, "c"}, {math.MaxUint64, "b"}, {200, "a"}}
	want := map[string][]Range{
		// a wins both ties (at 100 over b, at 200 over c); c owns nothing.
		"a": {{First: 0, Last: 200}},
		"b": {{First: 201, Last: math.MaxUint64}},
	}
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 50; trial++ {
		p := append([]point(nil), pts...)
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		got := rangesFromPoints(p)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("order %v: got %v, want %v", p, got, want)
		}
		checkPartition(t, got)
	}
}
