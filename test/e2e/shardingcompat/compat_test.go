package shardingcompat

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apimachinerysharding "k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
	apiserversharding "k8s.io/apiserver/pkg/sharding"

	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// randomString returns a string of random length and bytes, sometimes
// shaped like a uid or a namespace name, sometimes arbitrary bytes.
func randomString(rng *rand.Rand) string {
	switch rng.Intn(3) {
	case 0:
		var b [16]byte
		rng.Read(b[:])
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	case 1:
		return fmt.Sprintf("team-%d-%s", rng.Intn(1000), []string{"prod", "dev", "qa"}[rng.Intn(3)])
	default:
		b := make([]byte, rng.Intn(64))
		rng.Read(b)
		return string(b)
	}
}

// TestHashMatchesApiserver compares sharding.Hash with the apiserver's
// HashField on a few thousand random strings and the empty string.
func TestHashMatchesApiserver(t *testing.T) {
	rng := rand.New(rand.NewSource(5866))
	inputs := []string{"", "default", "kube-system"}
	for i := 0; i < 5000; i++ {
		inputs = append(inputs, randomString(rng))
	}
	for _, s := range inputs {
		if got, want := fmt.Sprintf("%016x", sharding.Hash(s)), apimachinerysharding.HashField(s); got != want {
			t.Fatalf("Hash(%q) = %s, apiserver says %s", s, got, want)
		}
	}
}

// object returns a namespaced object with the given namespace and uid.
func object(namespace, uid string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: namespace, UID: types.UID(uid)}}
}

// parse parses sel with the apiserver's parser and checks that it renders
// back to exactly sel (what ListMeta.ShardInfo would echo).
func parse(t *testing.T, sel string) apimachinerysharding.Selector {
	t.Helper()
	s, err := apiserversharding.Parse(sel)
	if err != nil {
		t.Fatalf("apiserver rejects %.200q...: %v", sel, err)
	}
	if s.String() != sel {
		t.Fatalf("apiserver renders\n %.300s\nback as\n %.300s", sel, s.String())
	}
	return s
}

// checkSameMeaning fails unless the apiserver's reading of the selector
// rendered from ranges matches sharding.Owns for every object given; it
// returns which objects the apiserver selects.
func checkSameMeaning(t *testing.T, field sharding.Field, ranges []sharding.Range, objs []*corev1.ConfigMap) []bool {
	t.Helper()
	sel, err := sharding.Selector(field, ranges)
	if err != nil {
		t.Fatal(err)
	}
	s := parse(t, sel)
	for _, r := range s.Requirements() {
		if r.Key != string(field) {
			t.Fatalf("apiserver reads field %q, want %q", r.Key, field)
		}
	}
	selected := make([]bool, len(objs))
	for i, o := range objs {
		want, err := s.Matches(o)
		if err != nil {
			t.Fatal(err)
		}
		if got := sharding.Owns(field, ranges, o.Namespace, string(o.UID)); got != want {
			t.Fatalf("%s of %q/%q (hash %#016x): Owns = %v, apiserver matches = %v, selector %.300s",
				field, o.Namespace, o.UID, sharding.Hash(field.Value(o.Namespace, string(o.UID))), got, want, sel)
		}
		selected[i] = want
	}
	return selected
}

// TestRingSelectorsMeanTheSameToApiserver renders every member's ranges
// for rings of 1, 2, 3, 4, 7 and 16 members on both fields, parses them with the
// apiserver's parser, and checks the apiserver selects exactly the
// objects Owns selects, and that each object is selected by exactly one
// member.
func TestRingSelectorsMeanTheSameToApiserver(t *testing.T) {
	rng := rand.New(rand.NewSource(36))
	objs := make([]*corev1.ConfigMap, 500)
	for i := range objs {
		objs[i] = object(randomString(rng), randomString(rng))
	}
	for _, n := range []int{1, 2, 3, 4, 7, 16} {
		var members []string
		for i := 0; i < n; i++ {
			members = append(members, fmt.Sprintf("replica-%d", i))
		}
		a, err := sharding.Assign(members, sharding.DefaultVNodes)
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range []sharding.Field{sharding.FieldNamespace, sharding.FieldUID} {
			owners := make([]int, len(objs))
			for _, m := range members {
				for i, ok := range checkSameMeaning(t, field, a[m], objs) {
					if ok {
						owners[i]++
					}
				}
			}
			for i, c := range owners {
				if c != 1 {
					t.Fatalf("%d members, %s: object %d selected by %d members", n, field, i, c)
				}
			}
		}
	}
}

// TestBoundariesMeanTheSameToApiserver puts range bounds exactly on, just
// before and just after the hash of a value, and at the ends of the
// space, so that an off-by-one in either bound shows.
func TestBoundariesMeanTheSameToApiserver(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	for i := 0; i < 300; i++ {
		ns, uid := randomString(rng), randomString(rng)
		objs := []*corev1.ConfigMap{object(ns, uid)}
		for _, field := range []sharding.Field{sharding.FieldNamespace, sharding.FieldUID} {
			h := sharding.Hash(field.Value(ns, uid))
			candidates := [][]sharding.Range{
				{{First: h, Last: h}},
				{sharding.Full()},
				{{First: 0, Last: h}},
				{{First: h, Last: math.MaxUint64}},
			}
			if h > 0 {
				candidates = append(candidates, []sharding.Range{{First: 0, Last: h - 1}})
			}
			if h < math.MaxUint64 {
				candidates = append(candidates, []sharding.Range{{First: h + 1, Last: math.MaxUint64}})
			}
			for _, rs := range candidates {
				checkSameMeaning(t, field, rs, objs)
			}
		}
	}
}

// TestLargestSelectorParses checks that the largest selector Assign can
// make a member carry (MaxVNodes+1 clauses on the longer field name) is
// accepted, and that the apiserver does reject a selector just over
// MaxSelectorLength, so the limit sharding.Selector enforces is real.
func TestLargestSelectorParses(t *testing.T) {
	var ranges []sharding.Range
	for i := uint64(0); i <= sharding.MaxVNodes; i++ {
		ranges = append(ranges, sharding.Range{First: i << 40, Last: i<<40 + 7})
	}
	sel, err := sharding.Selector(sharding.FieldNamespace, ranges)
	if err != nil {
		t.Fatal(err)
	}
	parse(t, sel)

	var b strings.Builder
	for i := uint64(0); b.Len() <= sharding.MaxSelectorLength; i++ {
		if i > 0 {
			b.WriteString(" || ")
		}
		fmt.Fprintf(&b, "shardRange(object.metadata.namespace, '0x%016x', '0x%016x')", i<<40, i<<40+8)
	}
	if _, err := apiserversharding.Parse(b.String()); err == nil {
		t.Errorf("apiserver accepts a %d-byte selector; MaxSelectorLength %d is stricter than needed", b.Len(), sharding.MaxSelectorLength)
	} else {
		t.Logf("apiserver rejects %d bytes: %v", b.Len(), err)
	}
}
