package wire

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

var (
	_ cache.ItemLister[*unstructured.Unstructured] = (*UnstructuredListWatch)(nil)
	_ cache.ListerWatcher                          = (*UnstructuredListWatch)(nil)
)

func newUnstructured(t testing.TB, body []byte) *UnstructuredListWatch {
	t.Helper()
	lw, err := NewUnstructuredListWatch((&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch, podGVK, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return lw
}

// dynamicListDecoder decodes a list response as client-go's dynamic client
// does: its JSON serializer (a scheme of meta/v1 in v1) into an
// UnstructuredList.
func dynamicListDecoder() func([]byte) (*unstructured.UnstructuredList, error) {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	ser := jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, s, s, jsonserializer.SerializerOptions{})
	return func(b []byte) (*unstructured.UnstructuredList, error) {
		l := &unstructured.UnstructuredList{}
		if _, _, err := ser.Decode(b, nil, l); err != nil {
			return nil, err
		}
		return l, nil
	}
}

// listBoth lists body through an unstructured ListWatch and decodes it as
// the dynamic client does, and requires the same outcome: both failing,
// or the same items (Go types included) and the same list metadata as
// the UnstructuredList's accessors read. deviates marks the documented
// cases where the ListWatch fails and apimachinery does not.
func listBoth(t *testing.T, decode func([]byte) (*unstructured.UnstructuredList, error), body []byte, deviates bool) error {
	t.Helper()
	want, wantErr := decode(body)
	var got []*unstructured.Unstructured
	lm, err := newUnstructured(t, body).ListItems(context.Background(), metav1.ListOptions{}, func(u *unstructured.Unstructured) error {
		got = append(got, u)
		return nil
	})
	if deviates {
		if wantErr != nil || err == nil {
			t.Fatalf("%.300s\napimachinery: %v\nListItems: %v; want only ListItems failing", body, wantErr, err)
		}
		return wantErr
	}
	if (wantErr == nil) != (err == nil) {
		t.Fatalf("%.300s\napimachinery: %v\nListItems: %v", body, wantErr, err)
	}
	if wantErr != nil {
		return wantErr
	}
	if len(got) != len(want.Items) {
		t.Fatalf("%.300s\ngot %d items, want %d", body, len(got), len(want.Items))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], &want.Items[i]) {
			t.Fatalf("%.300s\nitem %d:\n got %#v\nwant %#v", body, i, got[i].Object, want.Items[i].Object)
		}
	}
	wantMeta := &metav1.ListMeta{ResourceVersion: want.GetResourceVersion(), Continue: want.GetContinue(),
		RemainingItemCount: want.GetRemainingItemCount()}
	if !reflect.DeepEqual(lm, wantMeta) {
		t.Fatalf("%.300s\nlist metadata %+v, want %+v", body, lm, wantMeta)
	}
	return nil
}

// TestUnstructuredListAsDynamicClient lists real and odd list bodies and
// requires what the dynamic client decodes from them.
func TestUnstructuredListAsDynamicClient(t *testing.T) {
	decode := dynamicListDecoder()
	c := newCodecs(t)
	pods := c.encodeList(t, encJSON, testPods(20, "7"))
	cases := []struct {
		name     string
		body     string
		fail     bool
		deviates bool
	}{
		{name: "PodList: items get the list's kind", body: string(pods)},
		{name: "custom resources with their kind",
			body: `{"apiVersion":"example.com/v1","kind":"WidgetList","metadata":{"resourceVersion":"5","continue":"c","remainingItemCount":3},"items":[` +
				`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"n":1,"f":1.5,"deep":{"a":[{"b":[null,true]}]}}},` +
				`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"b"},"spec":{"n":-0,"big":18446744073709551616,"e":1e3}}]}`},
		{name: "an item with a kind only keeps it", body: `{"apiVersion":"v1","kind":"PodList","items":[{"kind":"Pod"},{"apiVersion":"x/v1"},{}]}`},
		{name: "an item with a non-string kind", body: `{"apiVersion":"v1","kind":"PodList","items":[{"kind":5,"apiVersion":true}]}`},
		{name: "a null item", body: `{"apiVersion":"v1","kind":"PodList","items":[null,{"metadata":{"name":"a"}}]}`},
		{name: "no apiVersion", body: `{"kind":"PodList","items":[{"metadata":{"name":"a"}}]}`},
		{name: "a kind without List", body: `{"kind":"Things","apiVersion":"v1","items":[{}]}`},
		{name: "kind and apiVersion after the items", body: `{"items":[{"metadata":{"name":"a"}},{"kind":"Pod"}],"apiVersion":"v1","kind":"PodList"}`},
		{name: "kind after the items, set twice", body: `{"apiVersion":"v1","items":[{}],"kind":"AList","kind":"BList"}`},
		{name: "items null", body: `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"3"},"items":null}`},
		{name: "no items", body: `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"3"}}`},
		{name: "empty items", body: `{"apiVersion":"v1","kind":"PodList","items":[]}`},
		{name: "two items members, the first held", body: `{"items":[{"a":1}],"items":[{"b":2}],"kind":"PodList","apiVersion":"v1"}`},
		{name: "two items members, the first held, the second streamed", body: `{"items":[{"a":1}],"kind":"PodList","apiVersion":"v1","items":[{"b":2}]}`},
		{name: "an empty items streamed, then another", body: `{"apiVersion":"v1","kind":"PodList","items":[],"kind":"NodeList","items":[{}]}`},
		{name: "metadata of other types", body: `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":5,"continue":null,"remainingItemCount":"3"},"items":[]}`},
		{name: "other members", body: `{"apiVersion":"v1","kind":"PodList","extra":[1,{"a":"b"}],"items":[]}`},
		{name: "a Status with 200", body: `{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`},
		{name: "kind case-folded by encoding/json", body: `{"apiVersion":"v1","kind":"PodList","Kind":"X","items":[{}]}`},
		{name: "kind with a Kelvin sign", body: `{"apiVersion":"v1","kind":"PodList","\u212aind":"X","items":[]}`},

		{name: "no kind", body: `{"apiVersion":"v1","items":[{"kind":"Pod"}]}`, fail: true},
		{name: "empty kind", body: `{"apiVersion":"v1","kind":"","items":[]}`, fail: true},
		{name: "only Kind", body: `{"apiVersion":"v1","Kind":"PodList","items":[]}`, fail: true},
		{name: "numeric kind", body: `{"apiVersion":"v1","kind":5,"items":[]}`, fail: true},
		{name: "numeric KIND", body: `{"apiVersion":"v1","kind":"PodList","KIND":5,"items":[]}`, fail: true},
		{name: "numeric apiVersion", body: `{"apiVersion":1,"kind":"PodList","items":[]}`, fail: true},
		{name: "numeric kind with a Kelvin sign", body: `{"apiVersion":"v1","kind":"PodList","\u212aind":5,"items":[]}`, fail: true},
		{name: "numeric apiversion", body: `{"apiversion":1,"apiVersion":"v1","kind":"PodList","items":[]}`, fail: true},
		{name: "bad apiVersion", body: `{"apiVersion":"a/b/c","kind":"PodList","items":[]}`, fail: true},
		{name: "a string item", body: `{"apiVersion":"v1","kind":"PodList","items":["a"]}`, fail: true},
		{name: "an array item", body: `{"apiVersion":"v1","kind":"PodList","items":[[]]}`, fail: true},
		{name: "items an object", body: `{"apiVersion":"v1","kind":"PodList","items":{}}`, fail: true},
		{name: "a number beyond float64 in an item", body: `{"apiVersion":"v1","kind":"PodList","items":[{"a":1e999}]}`, fail: true},
		{name: "a number beyond float64 in the metadata", body: `{"apiVersion":"v1","kind":"PodList","metadata":{"x":1e999},"items":[]}`, fail: true},
		{name: "bad syntax in an item", body: `{"apiVersion":"v1","kind":"PodList","items":[{"a":}]}`, fail: true},
		{name: "trailing data", body: `{"apiVersion":"v1","kind":"PodList","items":[]}x`, fail: true},

		{name: "kind changed after streamed items", body: `{"apiVersion":"v1","kind":"PodList","items":[{}],"kind":"NodeList"}`, deviates: true},
		{name: "items twice after streamed items", body: `{"apiVersion":"v1","kind":"PodList","items":[{}],"items":[]}`, deviates: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := listBoth(t, decode, []byte(tc.body), tc.deviates)
			if !tc.deviates && (err != nil) != tc.fail {
				t.Fatalf("apimachinery's error: %v, want failing %v", err, tc.fail)
			}
		})
	}
}

// TestUnstructuredListTruncated lists every prefix of a small list body:
// each is an error both ways, the whole body a success.
func TestUnstructuredListTruncated(t *testing.T) {
	decode := dynamicListDecoder()
	body := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a","labels":{"x":"\u00e9"}},"n":[1,-2.5e3,true,null]},{"kind":"Pod"}]}`
	for i := 0; i <= len(body); i++ {
		listBoth(t, decode, []byte(body[:i]), false)
	}
}

// TestUnstructuredListSharesStrings lists Pods and requires the strings
// they repeat to be one string and their maps to be separate.
func TestUnstructuredListSharesStrings(t *testing.T) {
	body := newCodecs(t).encodeList(t, encJSON, testPods(4, "7"))
	var got []*unstructured.Unstructured
	if _, err := newUnstructured(t, body).ListItems(context.Background(), metav1.ListOptions{}, func(u *unstructured.Unstructured) error {
		got = append(got, u)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if a, b := got[0].GetNamespace(), got[3].GetNamespace(); a != b || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("namespaces %q and %q are not one string", a, b)
	}
	got[0].SetLabels(map[string]string{"changed": "yes"})
	if got[2].GetLabels()["changed"] != "" {
		t.Error("the items share a map")
	}
}

// TestUnstructuredWatch decodes a watch stream as the dynamic client's
// watch does: objects as Unstructured, a Status (in an ERROR event or
// not) as *metav1.Status, and an object without a kind or an apiVersion
// ends the stream with an Error event.
func TestUnstructuredWatch(t *testing.T) {
	pod := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"5"},"spec":{"n":1,"f":0.5}}`
	status := `{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old"}`
	ev := func(typ, obj string) string { return `{"type":"` + typ + `","object":` + obj + "}\n" }
	for _, tc := range []struct {
		name   string
		stream string
		want   []watch.Event
		ends   bool // with an Error event of the decoding
	}{
		{name: "events", stream: ev("ADDED", pod) + ev("BOOKMARK", `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"6"}}`) + ev("ERROR", status),
			want: []watch.Event{
				{Type: watch.Added, Object: &unstructured.Unstructured{Object: map[string]any{"kind": "Pod", "apiVersion": "v1",
					"metadata": map[string]any{"name": "a", "namespace": "ns", "resourceVersion": "5"}, "spec": map[string]any{"n": int64(1), "f": 0.5}}}},
				{Type: watch.Bookmark, Object: &unstructured.Unstructured{Object: map[string]any{"kind": "Pod", "apiVersion": "v1",
					"metadata": map[string]any{"resourceVersion": "6"}}}},
				{Type: watch.Error, Object: &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: 410,
					Reason: metav1.StatusReasonExpired, Message: "too old"}},
			}},
		{name: "a Status of any group in an ADDED event", stream: ev("ADDED", `{"kind":"Status","apiVersion":"x.io/v2","code":1}`),
			want: []watch.Event{{Type: watch.Added, Object: &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "x.io/v2"}, Code: 1}}}},
		{name: "an ERROR event of an object", stream: ev("ERROR", `{"kind":"Widget","apiVersion":"x.io/v1"}`),
			want: []watch.Event{{Type: watch.Error, Object: &unstructured.Unstructured{Object: map[string]any{"kind": "Widget", "apiVersion": "x.io/v1"}}}}},
		{name: "no kind", stream: ev("ADDED", `{"apiVersion":"v1"}`), ends: true},
		{name: "no apiVersion", stream: ev("ADDED", `{"kind":"Pod"}`), ends: true},
		{name: "a Kind only", stream: ev("ADDED", `{"Kind":"Pod","apiVersion":"v1"}`), ends: true},
		{name: "a numeric KIND", stream: ev("ADDED", `{"kind":"Pod","apiVersion":"v1","KIND":1}`), ends: true},
		{name: "a bad apiVersion", stream: ev("ADDED", `{"kind":"Pod","apiVersion":"a/b/c"}`), ends: true},
		{name: "a number beyond float64", stream: ev("ADDED", `{"kind":"Pod","apiVersion":"v1","n":1e999}`), ends: true},
		{name: "a null object", stream: ev("ADDED", `null`), ends: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := newUnstructured(t, []byte(tc.stream)).Watch(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var got []watch.Event
			for e := range w.ResultChan() {
				got = append(got, e)
			}
			if tc.ends {
				st, ok := got[len(got)-1].Object.(*metav1.Status)
				if len(got) != 1 || got[0].Type != watch.Error || !ok || !strings.Contains(st.Message, "the watch stream") {
					t.Fatalf("events %+v, want one Error event of the decoding", got)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("events\n %#v\nwant\n %#v", got, tc.want)
			}
		})
	}
}

// TestNewUnstructuredListWatchOptions rejects what it cannot honour and
// asks for JSON.
func TestNewUnstructuredListWatchOptions(t *testing.T) {
	f := (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return nil, errors.New("unused") }}).fetch
	for _, tc := range []struct {
		name  string
		fetch Fetch
		gvk   schema.GroupVersionKind
		ct    string
		want  string // in the error; "" for none
	}{
		{name: "default", fetch: f, gvk: podGVK},
		{name: "JSON", fetch: f, gvk: podGVK, ct: ContentTypeJSON},
		{name: "protobuf", fetch: f, gvk: podGVK, ct: ContentTypeProtobuf, want: "JSON only"},
		{name: "CBOR", fetch: f, gvk: podGVK, ct: ContentTypeCBOR, want: "JSON only"},
		{name: "no fetch", gvk: podGVK, want: "fetch is nil"},
		{name: "no kind", fetch: f, gvk: schema.GroupVersionKind{Version: "v1"}, want: "no kind"},
		{name: "no version", fetch: f, gvk: schema.GroupVersionKind{Kind: "Pod"}, want: "no version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lw, err := NewUnstructuredListWatch(tc.fetch, tc.gvk, Options{ContentType: tc.ct})
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err %v, want one naming %q", err, tc.want)
				}
				return
			}
			if err != nil || lw.Accept() != ContentTypeJSON {
				t.Fatalf("err %v, Accept %q", err, lw.Accept())
			}
		})
	}
}

// TestUnstructuredRejectsOtherEncodings fails on a protobuf or CBOR
// response, naming it.
func TestUnstructuredRejectsOtherEncodings(t *testing.T) {
	c := newCodecs(t)
	proto := c.encodeList(t, encProtobuf, testPods(1, "1"))
	cbor := []byte{0xd9, 0xd9, 0xf7, 0xa0}
	for name, body := range map[string][]byte{"protobuf": proto, "CBOR": cbor} {
		_, err := newUnstructured(t, body).ListItems(context.Background(), metav1.ListOptions{}, func(*unstructured.Unstructured) error { return nil })
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v, want one naming it", name, err)
		}
	}
}

// FuzzUnstructuredList lists arbitrary bodies through an unstructured
// ListWatch and decodes them as the dynamic client does, requiring the
// same outcome except for the two documented lists the ListWatch rejects.
func FuzzUnstructuredList(f *testing.F) {
	f.Add([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"c"},"items":[{"metadata":{"name":"a"}},{"kind":"Pod"},null]}`))
	f.Add([]byte(`{"items":[{"apiVersion":"x/v1"}],"apiVersion":"v1","kind":"AList","Kind":"B","metadata":{"remainingItemCount":3}}`))
	f.Add([]byte(`{"apiVersion":"example.com/v1","kind":"WidgetList","items":[{"kind":"Widget","spec":{"n":[1,-0,1.5,1e3,9223372036854775808]}}]}`))
	decode := dynamicListDecoder()
	f.Fuzz(func(t *testing.T, body []byte) {
		want, wantErr := decode(body)
		var got []*unstructured.Unstructured
		lm, err := newUnstructured(t, body).ListItems(context.Background(), metav1.ListOptions{}, func(u *unstructured.Unstructured) error {
			got = append(got, u)
			return nil
		})
		if wantErr == nil && err != nil && (strings.Contains(err.Error(), "changes after its items") || strings.Contains(err.Error(), "second items member")) {
			return // documented: apimachinery applies what comes last
		}
		if (wantErr == nil) != (err == nil) {
			t.Fatalf("%.300s\napimachinery: %v\nListItems: %v", body, wantErr, err)
		}
		if err != nil {
			return
		}
		if len(got) != len(want.Items) {
			t.Fatalf("%.300s\ngot %d items, want %d", body, len(got), len(want.Items))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], &want.Items[i]) {
				t.Fatalf("%.300s\nitem %d:\n got %#v\nwant %#v", body, i, got[i].Object, want.Items[i].Object)
			}
		}
		if lm.ResourceVersion != want.GetResourceVersion() || lm.Continue != want.GetContinue() || !reflect.DeepEqual(lm.RemainingItemCount, want.GetRemainingItemCount()) {
			t.Fatalf("%.300s\nlist metadata %+v", body, lm)
		}
	})
}
