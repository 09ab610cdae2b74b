package lean_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedinformer/typedinformer/runtime/lean"
)

// widget is a custom resource whose spec holds maps of strings in every
// place the walk reaches, and some it must leave alone.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widgetSpec `json:"spec"`
	// hidden is unexported: never replaced.
	hidden map[string]string
}

type widgetSpec struct {
	Data     map[string]string       `json:"data,omitempty"`
	Selector selectorSet             `json:"selector,omitempty"`
	Items    []widgetItem            `json:"items,omitempty"`
	Fixed    [1]widgetItem           `json:"fixed"`
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
	Counts   map[string]int          `json:"counts,omitempty"`
	ByName   map[string]widgetItem   `json:"byName,omitempty"`
	Next     *widgetSpec             `json:"next,omitempty"`
}

type selectorSet map[string]string

type widgetItem struct {
	Tags map[string]string `json:"tags,omitempty"`
}

func (w *widget) DeepCopyObject() runtime.Object {
	c := *w // the transform under test never copies
	return &c
}

func newWidget(name, mode string) *widget {
	return &widget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"app": "w"}},
		Spec: widgetSpec{
			Data:     map[string]string{"mode": mode, "tier": "backend"},
			Selector: selectorSet{"app": "w"},
			Items:    []widgetItem{{Tags: map[string]string{"t": "1"}}},
			Fixed:    [1]widgetItem{{Tags: map[string]string{"f": "1"}}},
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"pod": "w"}}},
			Counts:   map[string]int{"a": 1},
			ByName:   map[string]widgetItem{"x": {Tags: map[string]string{"in": "map"}}},
			Next:     &widgetSpec{Data: map[string]string{"deep": "yes"}},
		},
		hidden: map[string]string{"h": "1"},
	}
}

func ptrOf(m any) uintptr { return reflect.ValueOf(m).Pointer() }

func TestShareSharesEqualMemberMapsOfAnyType(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   func(runtime.Object) (runtime.Object, error)
	}{
		{"Default", lean.ObjectTransform(lean.Default())},
		{"Share alone", lean.ObjectTransform(lean.Options{Share: true})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b, c := newWidget("a", "active"), newWidget("b", "active"), newWidget("c", "standby")
			for _, w := range []*widget{a, b, c} {
				if _, err := tc.tr(w); err != nil {
					t.Fatal(err)
				}
			}
			for _, w := range []*widget{a, b, c} {
				want := newWidget(w.Name, w.Spec.Data["mode"])
				if !reflect.DeepEqual(w.Spec, want.Spec) || !reflect.DeepEqual(w.hidden, want.hidden) {
					t.Fatalf("%s: sharing changed the content: %+v", w.Name, w.Spec)
				}
			}
			shared := []struct {
				what string
				of   func(*widget) any
			}{
				{"spec.data", func(w *widget) any { return w.Spec.Data }},
				{"a named map type", func(w *widget) any { return w.Spec.Selector }},
				{"a map in a slice element", func(w *widget) any { return w.Spec.Items[0].Tags }},
				{"a map in an array element", func(w *widget) any { return w.Spec.Fixed[0].Tags }},
				{"a template's labels", func(w *widget) any { return w.Spec.Template.Labels }},
				{"a map behind a pointer to the same type", func(w *widget) any { return w.Spec.Next.Data }},
			}
			for _, s := range shared {
				if ptrOf(s.of(a)) != ptrOf(s.of(b)) {
					t.Errorf("%s: equal maps are not shared", s.what)
				}
			}
			for _, s := range shared[1:] {
				if ptrOf(s.of(a)) != ptrOf(s.of(c)) {
					t.Errorf("%s: equal maps of objects that differ elsewhere are not shared", s.what)
				}
			}
			if ptrOf(a.Spec.Data) == ptrOf(c.Spec.Data) {
				t.Error("different spec.data maps were shared")
			}
			left := []struct {
				what string
				of   func(*widget) any
			}{
				{"a map of ints", func(w *widget) any { return w.Spec.Counts }},
				{"a map inside a map value", func(w *widget) any { return w.Spec.ByName["x"].Tags }},
				{"an unexported field", func(w *widget) any { return w.hidden }},
			}
			for _, s := range left {
				if ptrOf(s.of(a)) == ptrOf(s.of(b)) {
					t.Errorf("%s was shared; the walk must leave it alone", s.what)
				}
			}
		})
	}
}

func TestShareSharesConfigMapData(t *testing.T) {
	tr := lean.ObjectTransform(lean.Default())
	mk := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}
	}
	x, y := mk("x"), mk("y")
	for _, cm := range []*corev1.ConfigMap{x, y} {
		if _, err := tr(cm); err != nil {
			t.Fatal(err)
		}
	}
	if ptrOf(x.Data) != ptrOf(y.Data) {
		t.Fatal("equal ConfigMap data is not shared")
	}
}

// TestShareLeavesMembersAloneWithoutShare: interning and stripping alone
// never replace a member map.
func TestShareLeavesMembersAloneWithoutShare(t *testing.T) {
	tr := lean.ObjectTransform(lean.Options{Intern: true, StripManagedFields: true})
	a, b := newWidget("a", "active"), newWidget("b", "active")
	for _, w := range []*widget{a, b} {
		if _, err := tr(w); err != nil {
			t.Fatal(err)
		}
	}
	if ptrOf(a.Spec.Data) == ptrOf(b.Spec.Data) {
		t.Fatal("spec.data shared without Options.Share")
	}
}
