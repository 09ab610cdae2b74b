package wire

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
)

type shareKind string

type shareInner struct {
	Name string
	Next *shareInner // the type holds itself
}

type shareItem struct {
	Name     string
	Kind     shareKind
	Tags     []string
	Inner    *shareInner
	Inners   []shareInner
	Labels   map[string]string
	Kinds    map[shareKind]shareKind
	Counts   map[string]int
	Raw      []byte
	Long     string
	hidden   string
	Repeated string
}

// fresh returns a copy of s with its own bytes, as a decoder allocates it.
func fresh(s string) string { return strings.Clone(s) }

func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func newShareItem(i int) *shareItem {
	return &shareItem{
		Name:     fresh("item-" + strconv.Itoa(i)),
		Kind:     shareKind(fresh("Kind")),
		Tags:     []string{fresh("a"), fresh("b")},
		Inner:    &shareInner{Name: fresh("inner"), Next: &shareInner{Name: fresh("deeper")}},
		Inners:   []shareInner{{Name: fresh("x")}, {Name: fresh("y")}},
		Labels:   map[string]string{"app": fresh("web"), "tier": fresh("front")},
		Kinds:    map[shareKind]shareKind{"k": shareKind(fresh("v"))},
		Counts:   map[string]int{fresh("n"): i},
		Raw:      []byte("raw"),
		Long:     fresh(strings.Repeat("l", jsondec.MaxSharedLen+1)),
		hidden:   fresh("hidden"),
		Repeated: fresh("same"),
	}
}

// TestSharePlanSharesWhatItemsRepeat shares the strings three items
// repeat, in every place the plan reaches, and leaves the rest: unique
// strings, long ones, unexported fields, map keys and byte slices; no
// value changes.
func TestSharePlanSharesWhatItemsRepeat(t *testing.T) {
	plan := newSharePlan(reflect.TypeFor[shareItem]())
	st := plan.newState(jsondec.NewStrings(sharedStrings))
	var items, want []*shareItem
	for i := range 3 {
		it := newShareItem(i)
		want = append(want, newShareItem(i))
		plan.share(unsafe.Pointer(it), st)
		items = append(items, it)
	}
	for i, it := range items {
		if !reflect.DeepEqual(it, want[i]) {
			t.Fatalf("item %d changed: %+v, want %+v", i, it, want[i])
		}
	}
	a, b := items[0], items[2]
	for _, c := range []struct {
		what string
		x, y string
	}{
		{"a string field", a.Repeated, b.Repeated},
		{"a named string type", string(a.Kind), string(b.Kind)},
		{"a slice's strings", a.Tags[1], b.Tags[1]},
		{"through a pointer", a.Inner.Name, b.Inner.Name},
		{"in a slice of structs", a.Inners[1].Name, b.Inners[1].Name},
		{"a map's values", a.Labels["tier"], b.Labels["tier"]},
		{"a named map's values", string(a.Kinds["k"]), string(b.Kinds["k"])},
	} {
		if !sameString(c.x, c.y) {
			t.Errorf("%s: equal strings of two items are separate copies", c.what)
		}
	}
	for _, c := range []struct {
		what string
		x, y string
	}{
		{"a long string", a.Long, b.Long},
		{"an unexported field", a.hidden, b.hidden},
		{"a type held inside itself", a.Inner.Next.Name, b.Inner.Next.Name},
	} {
		if sameString(c.x, c.y) {
			t.Errorf("%s was shared, and the plan should not reach it", c.what)
		}
	}
	if &a.Raw[0] == &b.Raw[0] {
		t.Error("byte slices were shared")
	}
}

// TestSharePlanSlotStopsAskingForUniqueStrings: a field whose strings keep
// missing the table stops asking it (its strings stay unshared even when
// the table holds them), asks again after 256 strings, and keeps asking
// once it finds them there.
func TestSharePlanSlotStopsAskingForUniqueStrings(t *testing.T) {
	type item struct{ Known, Unique string }
	plan := newSharePlan(reflect.TypeFor[item]())
	st := plan.newState(jsondec.NewStrings(sharedStrings))
	// Two strings the table holds, alternated so that no string equals
	// the one before it in the slot.
	held := []string{st.strs.Share("held-a"), st.strs.Share("held-b")}
	share := func(unique string) item {
		it := item{Known: fresh(held[0]), Unique: unique}
		plan.share(unsafe.Pointer(&it), st)
		return it
	}
	for i := range slotMisses {
		share(fresh("uid-" + strconv.Itoa(i)))
	}
	if it := share(fresh(held[1])); sameString(it.Unique, held[1]) {
		t.Fatalf("after %d misses in a row the slot still asks the table", slotMisses)
	}
	if it := share(fresh("uid-x")); !sameString(it.Known, held[0]) {
		t.Fatal("a slot that finds its strings in the table stopped asking it")
	}
	askedAt := -1
	for i := range 300 {
		h := held[i%2]
		it := share(fresh(h))
		if sameString(it.Unique, h) && askedAt < 0 {
			askedAt = i
		}
		if askedAt >= 0 && !sameString(it.Unique, h) {
			t.Fatalf("string %d: the slot found its strings in the table at %d and stopped asking it again", i, askedAt)
		}
	}
	if askedAt < 250 || askedAt > 256 {
		t.Fatalf("the skipping slot asked the table again at string %d, want after about 256", askedAt)
	}
}

// TestSharePlanPod plans the Pod type (recursion, named maps and every
// field kind a built-in type has) and shares two equal Pods' strings.
func TestSharePlanPod(t *testing.T) {
	plan := newSharePlan(reflect.TypeFor[corev1.Pod]())
	st := plan.newState(jsondec.NewStrings(sharedStrings))
	clone := func() *corev1.Pod {
		p := testPod(1, "5")
		c := &corev1.Pod{}
		// A protobuf round trip gives every string its own bytes.
		b, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := clone(), clone()
	want := b.DeepCopy()
	plan.share(unsafe.Pointer(a), st)
	plan.share(unsafe.Pointer(b), st)
	if !reflect.DeepEqual(b, want) {
		t.Fatalf("sharing changed the Pod: %+v, want %+v", b, want)
	}
	if !sameString(a.Namespace, b.Namespace) || !sameString(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image) {
		t.Error("two equal Pods hold separate copies of their namespace and image")
	}
}

// TestSharePlanUnmarshalPod decodes two equal Pods with the plan's
// protodec.Decoder: they are what their Unmarshal gives, and share their
// strings.
func TestSharePlanUnmarshalPod(t *testing.T) {
	plan := newSharePlan(reflect.TypeFor[corev1.Pod]())
	if plan.dec == nil {
		t.Fatal("protodec does not cover corev1.Pod")
	}
	st := plan.newState(jsondec.NewStrings(sharedStrings))
	pod := testPod(1, "5")
	data, err := pod.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Pod{}
	if err := want.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	a, b := &corev1.Pod{}, &corev1.Pod{}
	for _, p := range []*corev1.Pod{a, b} {
		if err := plan.unmarshal(p, unsafe.Pointer(p), data, st); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, want) {
			t.Fatalf("decoded %+v, want %+v", p, want)
		}
	}
	if !sameString(a.Namespace, b.Namespace) || !sameString(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image) {
		t.Error("two equal Pods hold separate copies of their namespace and image")
	}
}
