package reflector

import (
	"reflect"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestSameTree checks that sameTree is reflect.DeepEqual on the values a
// JSON document decodes to, in the cases where types and nil-ness decide.
func TestSameTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b any
	}{
		{"int64 and float64 of one number", int64(1), float64(1)},
		{"nil map and empty map", map[string]any(nil), map[string]any{}},
		{"nil slice and empty slice", []any(nil), []any{}},
		{"missing key and nil value", map[string]any{"a": nil}, map[string]any{"b": nil}},
		{"slices in another order", []any{"a", "b"}, []any{"b", "a"}},
		{"nested maps", map[string]any{"f:a": map[string]any{".": map[string]any{}}}, map[string]any{"f:a": map[string]any{".": map[string]any{}}}},
		{"nested maps that differ deep down", map[string]any{"f:a": map[string]any{".": map[string]any{}}}, map[string]any{"f:a": map[string]any{".": map[string]any{"x": true}}}},
		{"an unsupported type", map[string]any{"a": int32(1)}, map[string]any{"a": int32(1)}},
		{"bools", true, false},
		{"strings", "a", "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := reflect.DeepEqual(tc.a, tc.b)
			if tc.name == "an unsupported type" {
				want = false // never shared
			}
			if got := sameTree(tc.a, tc.b); got != want {
				t.Errorf("sameTree = %v, want %v", got, want)
			}
		})
	}
}

// FuzzFieldsTrees: sharing two documents decoded from JSON gives back
// documents equal to each, the first one itself when they are equal, and
// sameTree agrees with reflect.DeepEqual.
func FuzzFieldsTrees(f *testing.F) {
	f.Add(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`, `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)
	f.Add(`{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{}}}}}`, `{"f:spec":{"f:containers":{"k:{\"name\":\"b\"}":{".":{}}}}}`)
	f.Add(`{"a":[1,2.5,"x",true,null,{}]}`, `{"a":[1,2.5,"x",true,null,{}]}`)
	f.Add(`{"a":1}`, `{"a":1.0}`)
	f.Fuzz(func(t *testing.T, x, y string) {
		var a, b map[string]any
		if utiljson.Unmarshal([]byte(x), &a) != nil || utiljson.Unmarshal([]byte(y), &b) != nil || a == nil || b == nil {
			return
		}
		aCopy, bCopy := deepCopyJSON(a), deepCopyJSON(b)
		equal := reflect.DeepEqual(a, b)
		if got := sameTree(a, b); got != equal {
			t.Fatalf("sameTree(%s, %s) = %v, DeepEqual %v", x, y, got, equal)
		}
		var c fieldsTrees
		sa := c.share(a)
		sb := c.share(b)
		if !reflect.DeepEqual(sa, aCopy) || !reflect.DeepEqual(sb, bCopy) {
			t.Fatalf("sharing changed a document: %v, %v from %s, %s", sa, sb, x, y)
		}
		if !sameMap(sa, a) {
			t.Fatal("the first document was replaced")
		}
		if equal != sameMap(sb, a) {
			t.Fatalf("equal documents %v, but the second was shared: %v", equal, sameMap(sb, a))
		}
	})
}

func deepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopyJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopyJSON(e)
		}
		return s
	}
	return v
}
