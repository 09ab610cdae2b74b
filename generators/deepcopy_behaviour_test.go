package generators

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	"github.com/typedinformer/typedinformer/generators/testdata/deepcopyapis/kinds"
	"github.com/typedinformer/typedinformer/generators/testdata/deepcopyapis/optin"
	"github.com/typedinformer/typedinformer/generators/testdata/deepcopyapis/other"
)

// TestDeepCopyBehaviour fills the testdata types at random and checks that
// the generated DeepCopy of each returns an equal value that shares no
// slice, map or pointer with the original (time.Time's location apart, as
// deepcopy-gen copies it by value).
func TestDeepCopyBehaviour(t *testing.T) {
	for seed := range int64(200) {
		f := randfill.NewWithSeed(seed).NilChance(.2).NumElements(0, 3).MaxDepth(6).Funcs(
			func(o *runtime.Object, c randfill.Continue) {
				*o = &kinds.Thing{ObjectMeta: metav1.ObjectMeta{Name: c.String(5), Labels: map[string]string{"a": c.String(3)}}}
			},
			func(o *other.Copier, c randfill.Continue) { *o = kinds.ValueCopier{A: c.String(4)} },
			func(o *metav1.Time, c randfill.Continue) { o.Time = time.Unix(c.Int63n(1<<32), 0).UTC() },
		)
		var thing kinds.Thing
		f.Fill(&thing)
		var list kinds.ThingList
		f.Fill(&list)
		var wanted optin.Wanted
		f.Fill(&wanted)
		var names optin.Names
		f.Fill(&names)
		for _, c := range []struct {
			name     string
			in, copy any
		}{
			{"Thing", &thing, thing.DeepCopy()},
			{"Thing via DeepCopyObject", &thing, thing.DeepCopyObject()},
			{"ThingList", &list, list.DeepCopy()},
			{"Wanted", &wanted, wanted.DeepCopy()},
			{"Names", names, names.DeepCopy()},
		} {
			if !reflect.DeepEqual(c.in, c.copy) {
				t.Fatalf("seed %d: %s: the copy differs:\n%#v\n%#v", seed, c.name, c.in, c.copy)
			}
			if p := shared(reflect.ValueOf(c.in), reflect.ValueOf(c.copy), c.name); p != "" {
				t.Fatalf("seed %d: the copy shares %s with the original", seed, p)
			}
		}
	}
}

// shared returns the path of the first non-empty slice, map or pointer a
// and b (of one type) share, or "".
func shared(a, b reflect.Value, path string) string {
	if a.Type() == reflect.TypeFor[time.Time]() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() && a.Elem().Type().Size() > 0 {
			return path
		}
		return shared(a.Elem(), b.Elem(), "(*"+path+")")
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Elem().Type() != b.Elem().Type() {
			return path + " (types differ)"
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() && a.Type().Elem().Size() > 0 {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if p := shared(a.Index(i), b.Index(i), path+"[i]"); p != "" {
				return p
			}
		}
	case reflect.Map:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				if p := shared(a.MapIndex(k), bv, path+"[k]"); p != "" {
					return p
				}
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if p := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if p := shared(a.Index(i), b.Index(i), path+"[i]"); p != "" {
				return p
			}
		}
	}
	return ""
}
