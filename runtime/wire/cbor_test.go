package wire

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apicbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	kjson "sigs.k8s.io/json"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/cborscan"
)

// widget is a custom resource's type as a CRD repo writes it: no
// protobuf methods, and fields of every shape a CRD schema allows,
// including preserved unknown fields and embedded objects.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widgetSpec   `json:"spec"`
	Status            widgetStatus `json:"status,omitempty"`
}

type widgetSpec struct {
	Replicas   *int32               `json:"replicas,omitempty"`
	Ratio      float64              `json:"ratio,omitempty"`
	Paused     bool                 `json:"paused,omitempty"`
	Selector   map[string]string    `json:"selector,omitempty"`
	Ports      []widgetPort         `json:"ports,omitempty"`
	Target     intstr.IntOrString   `json:"target,omitempty"`
	Template   runtime.RawExtension `json:"template,omitempty"`
	Extra      map[string]any       `json:"extra,omitempty"`
	Config     rawJSON              `json:"config,omitempty"`
	Since      *metav1.Time         `json:"since,omitempty"`
	Blob       []byte               `json:"blob,omitempty"`
	Unused     string               `json:"-"`
	Conditions []metav1.Condition   `json:"conditions,omitempty"`
}

type widgetPort struct {
	Name string `json:"name"`
	Port int64  `json:"port"`
}

type widgetStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Phase              string `json:"phase,omitempty"`
}

// rawJSON keeps a value's JSON, as apiextensions' JSON type does: it
// has UnmarshalJSON and no UnmarshalCBOR, so CBOR reaches it transcoded.
type rawJSON struct{ Raw []byte }

func (r *rawJSON) UnmarshalJSON(b []byte) error {
	if string(b) != "null" {
		r.Raw = bytes.Clone(b)
	}
	return nil
}

func (r rawJSON) MarshalJSON() ([]byte, error) {
	if r.Raw == nil {
		return []byte("null"), nil
	}
	return r.Raw, nil
}

func (w *widget) DeepCopyObject() runtime.Object {
	b, err := json.Marshal(w)
	if err != nil {
		panic(err)
	}
	c := &widget{}
	if err := json.Unmarshal(b, c); err != nil {
		panic(err)
	}
	return c
}

type widgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []widget `json:"items"`
}

func (l *widgetList) DeepCopyObject() runtime.Object {
	c := &widgetList{TypeMeta: l.TypeMeta, ListMeta: *l.ListMeta.DeepCopy()}
	for i := range l.Items {
		c.Items = append(c.Items, *l.Items[i].DeepCopyObject().(*widget))
	}
	return c
}

var widgetGV = schema.GroupVersion{Group: "example.com", Version: "v1"}

func testWidget(i int, rv string) widget {
	at := metav1.Unix(1_700_000_000+int64(i), 0)
	replicas := int32(i % 4)
	return widget{
		ObjectMeta: metav1.ObjectMeta{
			Name: "widget-" + strconv.Itoa(i), Namespace: "team-" + strconv.Itoa(i%3), UID: types.UID("uid-" + strconv.Itoa(i)),
			ResourceVersion: rv, Generation: int64(i + 1), CreationTimestamp: at,
			Labels:      map[string]string{"app": "w", "tier": strconv.Itoa(i % 2)},
			Annotations: map[string]string{"note": "<&> \u00e9"},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "widget-controller", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "example.com/v1", Time: &at,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:ports":{"k:{\"name\":\"p` + strconv.Itoa(i) + `\"}":{".":{},"f:port":{}}},"f:replicas":{}}}`)},
			}},
		},
		Spec: widgetSpec{
			Replicas: &replicas, Ratio: 0.25 + float64(i), Paused: i%2 == 0,
			Selector: map[string]string{"app": "w"},
			Ports:    []widgetPort{{Name: "p" + strconv.Itoa(i), Port: 8080 + int64(i)}},
			Target:   intstr.FromString("http"),
			Template: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","data":{"k":"v"}}`)},
			Extra:    map[string]any{"n": int64(i), "f": 1.5, "list": []any{"a", true, nil}, "nested": map[string]any{"x": "y"}},
			Config:   rawJSON{Raw: []byte(`{"level":3,"name":"c"}`)},
			Since:    &at,
			Blob:     []byte{0, 1, 2, 0xff},
			Conditions: []metav1.Condition{{
				Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: at, Reason: "Done", Message: "ok",
			}},
		},
		Status: widgetStatus{ObservedGeneration: int64(i), Phase: "Ready"},
	}
}

// cborCodec is apimachinery's CBOR serializer over a scheme of core/v1
// and the widget type: the reference the tests compare to, and the
// encoder of what an API server sends.
type cborCodec struct {
	s apicbor.Serializer
}

func newCBORCodec(t testing.TB) cborCodec {
	t.Helper()
	c := newCodecs(t)
	c.scheme.AddKnownTypeWithName(widgetGV.WithKind("Widget"), &widget{})
	c.scheme.AddKnownTypeWithName(widgetGV.WithKind("WidgetList"), &widgetList{})
	metav1.AddToGroupVersion(c.scheme, widgetGV)
	return cborCodec{s: apicbor.NewSerializer(c.scheme, c.scheme)}
}

func (c cborCodec) encode(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := c.s.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// podList returns n Pods encoded as a CBOR PodList.
func (c cborCodec) podList(t testing.TB, n int, rv, cont string) []byte {
	l := testPods(n, rv).DeepCopy()
	l.Continue = cont
	l.Kind, l.APIVersion = "PodList", "v1"
	return c.encode(t, l)
}

// widgetList returns n widgets encoded as an API server encodes a custom
// resource's list: an unstructured list whose items carry their kind.
func (c cborCodec) widgetList(t testing.TB, n int, rv string) []byte {
	t.Helper()
	ul := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": rv}}}
	for i := range n {
		w := testWidget(i, rv)
		w.Kind, w.APIVersion = "Widget", "example.com/v1"
		u := toUnstructured(t, &w)
		// A field a newer version of the type has: ignored, as by
		// client-go.
		u["spec"].(map[string]any)["addedLater"] = map[string]any{"x": int64(1)}
		ul.Items = append(ul.Items, unstructured.Unstructured{Object: u})
	}
	return c.encode(t, ul)
}

// toUnstructured converts obj as an API server holds a custom resource:
// the JSON's content, with integers as int64.
func toUnstructured(t testing.TB, obj any) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var u map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &u); err != nil {
		t.Fatal(err)
	}
	return u
}

// decodeItems decodes a list with the reference serializer and returns
// its items, which keep the kind and apiVersion they carry.
func decodeItems[L runtime.Object, I any](t testing.TB, c cborCodec, b []byte, into L, items func(L) []I) []*I {
	t.Helper()
	obj, _, err := c.s.Decode(b, nil, into)
	if err != nil {
		t.Fatal(err)
	}
	var out []*I
	for _, it := range items(obj.(L)) {
		it := it
		out = append(out, &it)
	}
	return out
}

func listAll[E any, T Object[E]](t testing.TB, body []byte, ct string) ([]T, *metav1.ListMeta, []fetchCall, error) {
	t.Helper()
	f := &fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}
	lw, err := NewListWatch[E, T](f.fetch, Options{ContentType: ct})
	if err != nil {
		t.Fatal(err)
	}
	var got []T
	lm, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(x T) error {
		got = append(got, x)
		return nil
	})
	return got, lm, f.calls, err
}

// TestCBORListDecodesAsApimachinery lists Pods, ConfigMaps and a custom
// resource encoded by apimachinery's CBOR serializer (the custom resource
// as an API server encodes it, unstructured) and requires, item by item,
// what that serializer decodes from the same bytes, and the list's
// metadata.
func TestCBORListDecodesAsApimachinery(t *testing.T) {
	c := newCBORCodec(t)
	for _, n := range []int{0, 1, 3, 300} {
		t.Run(fmt.Sprintf("Pods/%d", n), func(t *testing.T) {
			body := c.podList(t, n, "42", "next")
			want := decodeItems(t, c, body, &corev1.PodList{}, func(l *corev1.PodList) []corev1.Pod { return l.Items })
			got, lm, calls, err := listAll[corev1.Pod](t, body, ContentTypeCBOR)
			if err != nil {
				t.Fatal(err)
			}
			if lm.ResourceVersion != "42" || lm.Continue != "next" {
				t.Errorf("list metadata %+v, want resourceVersion 42, continue next", lm)
			}
			requireSame(t, got, want)
			if len(calls) != 1 || calls[0].accept != "application/cbor, application/json;q=0.9" {
				t.Errorf("requests %+v, want one accepting CBOR, then JSON", calls)
			}
		})
		t.Run(fmt.Sprintf("ConfigMaps/%d", n), func(t *testing.T) {
			l := &corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "9"}}
			for i := range n {
				l.Items = append(l.Items, corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i), Namespace: "ns", ResourceVersion: "9"},
					Data:       map[string]string{"config.yaml": strings.Repeat("line\n", i%7), "empty": ""},
					BinaryData: map[string][]byte{"bin": {byte(i), 0, 0xfe}},
					Immutable:  func() *bool { b := i%2 == 0; return &b }(),
				})
			}
			body := c.encode(t, l)
			want := decodeItems(t, c, body, &corev1.ConfigMapList{}, func(l *corev1.ConfigMapList) []corev1.ConfigMap { return l.Items })
			got, lm, _, err := listAll[corev1.ConfigMap](t, body, ContentTypeCBOR)
			if err != nil {
				t.Fatal(err)
			}
			if lm.ResourceVersion != "9" {
				t.Errorf("list metadata %+v, want resourceVersion 9", lm)
			}
			requireSame(t, got, want)
		})
		t.Run(fmt.Sprintf("custom resource/%d", n), func(t *testing.T) {
			body := c.widgetList(t, n, "77")
			want := decodeItems(t, c, body, &widgetList{}, func(l *widgetList) []widget { return l.Items })
			got, lm, _, err := listAll[widget](t, body, "")
			if err != nil {
				t.Fatal(err)
			}
			if lm.ResourceVersion != "77" {
				t.Errorf("list metadata %+v, want resourceVersion 77", lm)
			}
			requireSame(t, got, want)
			for i, w := range got {
				if w.ManagedFields[0].FieldsV1.Raw[0] != '{' || w.Spec.Template.Raw[0] != '{' || w.Spec.Config.Raw[0] != '{' {
					t.Fatalf("item %d: raw fields are not JSON: %q %q %q", i, w.ManagedFields[0].FieldsV1.Raw, w.Spec.Template.Raw, w.Spec.Config.Raw)
				}
			}
		})
	}
}

func requireSame[T any](t *testing.T, got, want []*T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d items, want %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("item %d differs from apimachinery's decoding:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestCBORListOtherEncoders lists CBOR that other encoders may write:
// indefinite lengths, keys in another order, text-string keys, no
// self-described tag (with a CBOR Content-Type), and null items.
func TestCBORListOtherEncoders(t *testing.T) {
	h := func(s string) []byte {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// {"metadata": {"name": "a"}} as a map with a text key.
	item := h("a1 68 6d65746164617461 a1 64 6e616d65 61 61")
	metaRV := h("68 6d65746164617461 a1 6f 7265736f7572636556657273696f6e 41 35") // "metadata": {"resourceVersion": h'35'}
	cases := []struct {
		name    string
		body    []byte
		ct      string
		items   int
		wantErr string
	}{
		{name: "indefinite map and array", body: slicesConcat(h("d9d9f7 bf 65 6974656d73 9f"), item, item, h("ff"), metaRV, h("ff")), items: 2},
		{name: "metadata first, untagged, CBOR content type", body: slicesConcat(h("a2"), metaRV, h("45 6974656d73 81"), item), ct: "application/cbor", items: 1},
		{name: "null items", body: slicesConcat(h("d9d9f7 a2 45 6974656d73 f6"), metaRV), items: 0},
		{name: "two tags", body: slicesConcat(h("d9d9f7 d9d9f7 a1 45 6974656d73 81"), item), items: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return tc.body, nil }}
			lw, err := NewListWatch[corev1.Pod](func(ctx context.Context, o metav1.ListOptions, a string) (io.ReadCloser, string, error) {
				rc, _, err := f.fetch(ctx, o, a)
				return rc, tc.ct, err
			}, Options{ContentType: ContentTypeCBOR})
			if err != nil {
				t.Fatal(err)
			}
			var got []*corev1.Pod
			if _, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(p *corev1.Pod) error { got = append(got, p); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.items {
				t.Fatalf("%d items, want %d", len(got), tc.items)
			}
			for _, p := range got {
				if p.Name != "a" {
					t.Errorf("item %+v, want name a", p.ObjectMeta)
				}
			}
		})
	}
}

func slicesConcat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

// TestCBORListBadInput requires a clear error naming the fault for each
// malformed CBOR list, and no item delivered after it.
func TestCBORListBadInput(t *testing.T) {
	c := newCBORCodec(t)
	body := c.podList(t, 3, "7", "")
	// Each item is found again in the body by its encoding.
	items := itemOffsets(t, body)
	withByte := func(off int, b byte) []byte { out := bytes.Clone(body); out[off] = b; return out }
	badName := c.encode(t, &unstructured.UnstructuredList{Object: map[string]any{"kind": "PodList", "apiVersion": "v1", "metadata": map[string]any{}},
		Items: []unstructured.Unstructured{{Object: map[string]any{"metadata": map[string]any{"name": int64(3)}}}}})
	cases := []struct {
		name    string
		body    []byte
		want    string
		maxSeen int
	}{
		{name: "cut in an item", body: body[:items[2]+20], want: "item 2: unexpected EOF", maxSeen: 2},
		{name: "reserved byte in an item", body: withByte(items[1]+1, 0x1c), want: "item 1: cbor: reserved additional information 28", maxSeen: 1},
		{name: "not a map", body: []byte("\xd9\xd9\xf7\x83\x01\x02\x03"), want: "not a map (major type 4)"},
		{name: "items not an array", body: []byte("\xd9\xd9\xf7\xa1\x45items\xa0"), want: "items: want an array, got major type 5"},
		{name: "Status", body: c.encode(t, &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure}), want: "a Status instead of a list"},
		{name: "bytes after the list", body: append(bytes.Clone(body), 0x01), want: "bytes after the list", maxSeen: 3},
		{name: "field of the wrong type", body: badName, want: "item 0: cbor: cannot unmarshal"},
		{name: "cut in the tag", body: []byte("\xd9\xd9"), want: "unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen := 0
			f := &fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return tc.body, nil }}
			lw := newPods(t, f.fetch)
			_, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error { seen++; return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "decoding the list of *v1.Pod") {
				t.Fatalf("err = %v, want one naming *v1.Pod and containing %q", err, tc.want)
			}
			if seen > tc.maxSeen {
				t.Errorf("%d items delivered, want at most %d", seen, tc.maxSeen)
			}
		})
	}
}

// itemOffsets returns the offsets in body of a CBOR list's items.
func itemOffsets(t *testing.T, body []byte) []int {
	t.Helper()
	lw := newPods(t, (&fetchBytes{}).fetch)
	d := newDecoder(bytes.NewReader(body), "", lw)
	var offs []int
	if err := d.sniff(false); err != nil {
		t.Fatal(err)
	}
	// Walk the list as cborList does, recording where each item starts.
	c := d.cborStream
	if err := c.skipSelfDescribed(); err != nil {
		t.Fatal(err)
	}
	h, err := c.head()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.forEach(h, func(int) error {
		k, err := c.item()
		if err != nil {
			return err
		}
		if !bytes.HasSuffix(k, []byte("items")) {
			_, err := c.item()
			return err
		}
		ah, err := c.head()
		if err != nil {
			return err
		}
		return c.forEach(ah, func(int) error {
			offs = append(offs, c.off)
			_, err := c.item()
			return err
		})
	}); err != nil {
		t.Fatal(err)
	}
	if len(offs) == 0 {
		t.Fatal("no items found")
	}
	return offs
}

// encodeCBORWatch encodes events as an API server's CBOR watch stream:
// each object encoded alone, embedded in a WatchEvent, the events one
// after the other.
func (c cborCodec) encodeWatch(t testing.TB, events []event) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, ev := range events {
		obj := ev.obj.DeepCopyObject()
		switch o := obj.(type) {
		case *corev1.Pod:
			o.Kind, o.APIVersion = "Pod", "v1"
		case *metav1.Status:
			o.Kind, o.APIVersion = "Status", "v1"
		case *widget:
			obj = &unstructured.Unstructured{Object: toUnstructured(t, o)}
			obj.GetObjectKind().SetGroupVersionKind(widgetGV.WithKind("Widget"))
		}
		we := &metav1.WatchEvent{Type: ev.typ, Object: runtime.RawExtension{Raw: c.encode(t, obj)}}
		out.Write(c.encode(t, we))
	}
	return out.Bytes()
}

// TestCBORWatchDecodesEvents decodes CBOR watch streams of Pods and of a
// custom resource with every event type and requires the events, in
// order, with the objects apimachinery's serializer decodes from each
// event's object.
func TestCBORWatchDecodesEvents(t *testing.T) {
	c := newCBORCodec(t)
	pod := func(i int, rv string) *corev1.Pod { p := testPod(i, rv); return &p }
	wid := func(i int, rv string) *widget { w := testWidget(i, rv); return &w }
	status := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
	big := pod(2, "8")
	big.Annotations = map[string]string{"big": strings.Repeat("b", 3*jsonWatchBuffer)}
	streams := map[string][]event{
		"Pods": {{"ADDED", pod(0, "5")}, {"MODIFIED", pod(0, "6")}, {"ADDED", big}, {"DELETED", pod(0, "8")},
			{"BOOKMARK", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9", Annotations: map[string]string{"k8s.io/initial-events-end": "true"}}}},
			{"ERROR", status}},
		"custom resource": {{"ADDED", wid(0, "5")}, {"MODIFIED", wid(1, "6")}, {"DELETED", wid(0, "7")}, {"ERROR", status}},
	}
	for name, events := range streams {
		t.Run(name, func(t *testing.T) {
			body := c.encodeWatch(t, events)
			var want []runtime.Object
			for _, ev := range events {
				var into runtime.Object
				switch ev.obj.(type) {
				case *corev1.Pod:
					into = &corev1.Pod{}
				case *widget:
					into = &widget{}
				default:
					into = &metav1.Status{}
				}
				obj, _, err := c.s.Decode(c.encode(t, toWire(t, ev.obj)), nil, into)
				if err != nil {
					t.Fatal(err)
				}
				// client-go's decoder clears every event object's kind,
				// a Status's included.
				obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
				want = append(want, obj)
			}
			got := watchAll(t, name, body, "application/cbor-seq")
			if len(got) != len(events) {
				t.Fatalf("got %d events, want %d: %+v", len(got), len(events), got)
			}
			for i, ev := range got {
				if string(ev.Type) != events[i].typ || !reflect.DeepEqual(ev.Object, want[i]) {
					t.Errorf("event %d = %s %+v,\nwant %s %+v", i, ev.Type, ev.Object, events[i].typ, want[i])
				}
			}
		})
	}
}

// toWire is obj as the server encodes it (with its kind; a custom
// resource unstructured).
func toWire(t testing.TB, obj runtime.Object) runtime.Object {
	obj = obj.DeepCopyObject()
	switch o := obj.(type) {
	case *corev1.Pod:
		o.Kind, o.APIVersion = "Pod", "v1"
	case *metav1.Status:
		o.Kind, o.APIVersion = "Status", "v1"
	case *widget:
		u := &unstructured.Unstructured{Object: toUnstructured(t, o)}
		u.SetGroupVersionKind(widgetGV.WithKind("Widget"))
		return u
	}
	return obj
}

func watchAll(t *testing.T, kind string, body []byte, ct string) []watch.Event {
	t.Helper()
	f := func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) {
		return io.NopCloser(bytes.NewReader(body)), ct, nil
	}
	var w watch.Interface
	var err error
	if kind == "custom resource" {
		var lw *ListWatch[widget, *widget]
		if lw, err = NewListWatch[widget](f, Options{ContentType: ContentTypeCBOR, GroupVersionKind: widgetGV.WithKind("Widget")}); err == nil {
			w, err = lw.Watch(context.Background(), metav1.ListOptions{})
		}
	} else {
		var lw *ListWatch[corev1.Pod, *corev1.Pod]
		if lw, err = NewListWatch[corev1.Pod](f, Options{ContentType: ContentTypeCBOR}); err == nil {
			w, err = lw.Watch(context.Background(), metav1.ListOptions{})
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []watch.Event
	for ev := range w.ResultChan() {
		got = append(got, ev)
	}
	return got
}

// TestCBORWatchBadStream ends a CBOR stream that cannot be decoded with an
// Error event naming the fault, and a stream cut inside an event quietly.
func TestCBORWatchBadStream(t *testing.T) {
	c := newCBORCodec(t)
	p := testPod(0, "5")
	good := c.encodeWatch(t, []event{{"ADDED", &p}})
	ev := func(typ string, obj []byte) []byte {
		m := map[string]any{"type": typ}
		if obj != nil {
			m["object"] = runtime.RawExtension{Raw: obj}
		}
		var buf bytes.Buffer
		if err := c.s.Encode(&unstructured.Unstructured{Object: m}, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	cases := []struct {
		name   string
		body   []byte
		events int
		errMsg string
	}{
		{name: "cut", body: append(bytes.Clone(good), good[:30]...), events: 1},
		{name: "unknown type", body: append(bytes.Clone(good), ev("RENAMED", c.encode(t, &p))...), events: 1, errMsg: `unknown type "RENAMED"`},
		{name: "without object", body: ev("ADDED", nil), errMsg: "ADDED watch event without an object"},
		{name: "not a map", body: append(bytes.Clone(good), 0x83, 1, 2, 3), events: 1, errMsg: "watch event: want a map"},
		{name: "ill-formed", body: append(bytes.Clone(good), 0xa1, 0x1c), events: 1, errMsg: "watch event: cbor: reserved additional information"},
		{name: "string event too large", body: append([]byte{0x7a, 0x01, 0x00, 0x00, 0x01}, make([]byte, maxEvent+1)...), errMsg: "object to decode was longer than maximum allowed size"},
		{name: "object twice", body: func() []byte {
			// {"type":"ADDED","object":<pod>,"object":<pod>}, a map of 3 pairs.
			pod := c.encode(t, toWire(t, &p))
			b := slicesConcat([]byte{0xa3, 0x64}, []byte("type"), []byte{0x65}, []byte("ADDED"), []byte{0x66}, []byte("object"))
			return slicesConcat(b, pod, []byte{0x66}, []byte("object"), pod)
		}(), errMsg: `duplicate map key "object"`},
		{name: "object of the wrong shape", body: ev("MODIFIED", []byte("\xd9\xd9\xf7\x83\x01\x02\x03")), errMsg: "MODIFIED event object: cbor: cannot unmarshal array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := watchAll(t, "Pods", tc.body, "application/cbor-seq")
			n := len(got)
			if tc.errMsg != "" {
				if n == 0 || got[n-1].Type != watch.Error || !strings.Contains(statusText(got[n-1].Object), tc.errMsg) ||
					!strings.Contains(statusText(got[n-1].Object), "*v1.Pod") {
					t.Fatalf("events %+v, want a final Error event naming *v1.Pod and containing %q", got, tc.errMsg)
				}
				n--
			}
			if n != tc.events {
				t.Errorf("%d events before the end, want %d: %+v", n, tc.events, got)
			}
		})
	}
}

// TestCBORContentTypes covers the Accept header each option sends, and
// that a server answering JSON to a CBOR request is still read.
func TestCBORContentTypes(t *testing.T) {
	f := func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) { return nil, "", nil }
	for _, tc := range []struct {
		ct, want string
	}{
		{ct: ContentTypeCBOR, want: "application/cbor, application/json;q=0.9"},
		{ct: "", want: ContentTypeJSON},
	} {
		lw, err := NewListWatch[widget](f, Options{ContentType: tc.ct})
		if err != nil || lw.Accept() != tc.want {
			t.Errorf("%q: accept %q, err %v; want %q", tc.ct, lw.Accept(), err, tc.want)
		}
	}
	body := []byte(`{"kind":"WidgetList","apiVersion":"example.com/v1","metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"a"}}]}`)
	got, lm, _, err := listAll[widget](t, body, ContentTypeCBOR)
	if err != nil || len(got) != 1 || got[0].Name != "a" || lm.ResourceVersion != "3" {
		t.Fatalf("JSON answer to a CBOR request: %v, %+v, %v", got, lm, err)
	}
}

// TestCBORYieldError stops a CBOR list at yield's error and returns it
// unchanged.
func TestCBORYieldError(t *testing.T) {
	c := newCBORCodec(t)
	body := c.podList(t, 50, "1", "")
	stop := errors.New("stop here")
	calls := 0
	f := &fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}
	_, err := newPods(t, f.fetch).ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 { //nolint:errorlint // yield's error must come back unwrapped
		t.Errorf("err %v after %d calls, want %v after 2", err, calls, stop)
	}
}

// TestCBORListAgreesWithApimachinery decodes odd CBOR list bodies with
// apimachinery's CBOR serializer as client-go's typed clients do (a
// Status that is not a success being the error client-go's REST client
// makes of it) and with ListItems, and requires the same items and
// metadata, or an error from both with the same Status reason and code.
func TestCBORListAgreesWithApimachinery(t *testing.T) {
	c := newCBORCodec(t)
	p := testPod(0, "5")
	pod := bytes.TrimPrefix(c.encode(t, &p), []byte(cborscan.SelfDescribed))
	text := func(s string) []byte { return append([]byte{0x60 | byte(len(s))}, s...) }
	// cmap is a map of the pairs kv, each key a string and each value a
	// string or encoded bytes.
	cmap := func(kv ...any) []byte {
		b := []byte{0xa0 | byte(len(kv)/2)}
		for _, x := range kv {
			switch x := x.(type) {
			case string:
				b = append(b, text(x)...)
			case []byte:
				b = append(b, x...)
			}
		}
		return b
	}
	sd := func(b []byte) []byte { return append([]byte(cborscan.SelfDescribed), b...) }
	array := func(items ...[]byte) []byte {
		return append([]byte{0x80 | byte(len(items))}, bytes.Join(items, nil)...)
	}
	code410 := []byte{0x19, 0x01, 0x9a}
	gone := c.encode(t, &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Message: "too old resource version", Code: 410})
	cases := []struct {
		name string
		body []byte
	}{
		{name: "list", body: sd(cmap("kind", "PodList", "apiVersion", "v1", "metadata", cmap("resourceVersion", "9"), "items", array(pod, pod)))},
		{name: "null", body: sd([]byte{0xf6})},
		{name: "null then bytes", body: sd([]byte{0xf6, 0x01})},
		{name: "empty map", body: sd(cmap())},
		{name: "kind only", body: sd(cmap("kind", "PodList"))},
		{name: "Items key", body: sd(cmap("kind", "PodList", "apiVersion", "v1", "Items", array(pod)))},
		{name: "without the self-described tag", body: cmap("kind", "PodList", "apiVersion", "v1", "items", array(pod))},
		{name: "metadata twice", body: sd(cmap("kind", "PodList", "apiVersion", "v1", "metadata", cmap("resourceVersion", "9"), "metadata", cmap("continue", "c"), "items", array(pod)))},
		{name: "items twice", body: sd(cmap("kind", "PodList", "apiVersion", "v1", "items", array(pod), "items", array(pod)))},
		{name: "kind twice", body: sd(cmap("kind", "PodList", "kind", "PodList", "items", array(pod)))},
		{name: "an unknown key twice", body: sd(cmap("x", "1", "x", "2", "items", array(pod)))},
		{name: "a Status", body: gone},
		{name: "a Status, kind last", body: sd(cmap("status", "Failure", "reason", "Expired", "code", code410, "apiVersion", "v1", "kind", "Status"))},
		{name: "a Status with items", body: sd(cmap("kind", "Status", "apiVersion", "v1", "items", array(pod), "status", "Failure", "reason", "Expired", "code", code410))},
		{name: "a Status after items", body: sd(cmap("items", array(pod), "kind", "Status", "apiVersion", "v1", "status", "Failure", "reason", "Expired", "code", code410))},
		{name: "a Status with a key twice", body: sd(cmap("kind", "Status", "apiVersion", "v1", "code", code410, "code", code410))},
		{name: "a Status that is not one", body: sd(cmap("kind", "Status", "apiVersion", "v1", "code", "410"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want *corev1.PodList
			obj, _, wantErr := c.s.Decode(tc.body, nil, &corev1.PodList{})
			if wantErr == nil {
				switch o := obj.(type) {
				case *metav1.Status:
					wantErr = apierrors.FromObject(o)
				case *corev1.PodList:
					want = o
				default:
					wantErr = fmt.Errorf("decoded a %T", obj)
				}
			}
			got, lm, _, err := listAll[corev1.Pod](t, tc.body, ContentTypeCBOR)
			t.Logf("apimachinery: %v, ours: %v", wantErr, err)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("err = %v, apimachinery's %v", err, wantErr)
			}
			if err != nil {
				if apierrors.ReasonForError(err) != apierrors.ReasonForError(wantErr) || statusCodeOf(err) != statusCodeOf(wantErr) {
					t.Fatalf("err = %v (%s), apimachinery's %v (%s)", err, apierrors.ReasonForError(err), wantErr, apierrors.ReasonForError(wantErr))
				}
				return
			}
			if !reflect.DeepEqual(*lm, want.ListMeta) {
				t.Errorf("list metadata %+v, apimachinery's %+v", lm, want.ListMeta)
			}
			wantItems := make([]*corev1.Pod, len(want.Items))
			for i := range want.Items {
				wantItems[i] = &want.Items[i]
			}
			requireSame(t, got, wantItems)
		})
	}
}
