package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kjson "sigs.k8s.io/json"
)

// BenchmarkCBORvsJSON decodes the same list of 1000 objects, a custom
// resource's (served unstructured, as an API server serves it) and Pods,
// four ways: JSON and CBOR through ListItems ("wire"), and the whole list
// as client-go's typed clients decode it: JSON with sigs.k8s.io/json,
// CBOR with apimachinery's CBOR serializer. It is what the default
// content type for custom resources is chosen by.
func BenchmarkCBORvsJSON(b *testing.B) {
	c := newCBORCodec(b)
	const n = 1000
	widgets := &widgetList{}
	for i := range n {
		widgets.Items = append(widgets.Items, testWidget(i, "1"))
	}
	pods := testPods(n, "1")
	type fixture struct {
		name       string
		json, cbor []byte
		wire       func(b *testing.B, body []byte, ct string)
		sigs       func(b *testing.B, body []byte)
		apicbor    func(b *testing.B, body []byte)
	}
	fixtures := []fixture{
		{
			name: "custom resource",
			json: jsonWidgetList(b, widgets),
			cbor: c.widgetList(b, n, "1"),
			wire: func(b *testing.B, body []byte, ct string) { benchWire[widget](b, body, ct, n) },
			sigs: func(b *testing.B, body []byte) {
				var l widgetList
				if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &l); err != nil || len(l.Items) != n {
					b.Fatal(err, len(l.Items))
				}
			},
			apicbor: func(b *testing.B, body []byte) {
				if _, _, err := c.s.Decode(body, nil, &widgetList{}); err != nil {
					b.Fatal(err)
				}
			},
		},
		{
			name: "Pods",
			json: func() []byte { l := pods.DeepCopy(); l.Kind, l.APIVersion = "PodList", "v1"; return mustJSON(b, l) }(),
			cbor: c.podList(b, n, "1", ""),
			wire: func(b *testing.B, body []byte, ct string) { benchWire[corev1.Pod](b, body, ct, n) },
			sigs: func(b *testing.B, body []byte) {
				var l corev1.PodList
				if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &l); err != nil || len(l.Items) != n {
					b.Fatal(err, len(l.Items))
				}
			},
			apicbor: func(b *testing.B, body []byte) {
				if _, _, err := c.s.Decode(body, nil, &corev1.PodList{}); err != nil {
					b.Fatal(err)
				}
			},
		},
	}
	for _, f := range fixtures {
		b.Run(f.name+"/json-wire", func(b *testing.B) {
			b.SetBytes(int64(len(f.json)))
			f.wire(b, f.json, ContentTypeJSON)
		})
		b.Run(f.name+"/cbor-wire", func(b *testing.B) {
			b.SetBytes(int64(len(f.cbor)))
			f.wire(b, f.cbor, ContentTypeCBOR)
		})
		b.Run(f.name+"/json-sigs.k8s.io", func(b *testing.B) {
			b.SetBytes(int64(len(f.json)))
			b.ReportAllocs()
			for b.Loop() {
				f.sigs(b, f.json)
			}
		})
		b.Run(f.name+"/cbor-apimachinery", func(b *testing.B) {
			b.SetBytes(int64(len(f.cbor)))
			b.ReportAllocs()
			for b.Loop() {
				f.apicbor(b, f.cbor)
			}
		})
	}
}

func benchWire[E any, T Object[E]](b *testing.B, body []byte, ct string, want int) {
	lw, err := NewListWatch[E, T]((&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch, Options{ContentType: ct})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got := 0
		if _, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(T) error { got++; return nil }); err != nil || got != want {
			b.Fatal(err, got)
		}
	}
}

// jsonWidgetList is the JSON an API server sends for the list: the
// unstructured list, items with their kind.
func jsonWidgetList(b *testing.B, l *widgetList) []byte {
	ul := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "1"}}}
	for i := range l.Items {
		w := l.Items[i]
		w.Kind, w.APIVersion = "Widget", "example.com/v1"
		ul.Items = append(ul.Items, unstructured.Unstructured{Object: toUnstructured(b, &w)})
	}
	var buf bytes.Buffer
	if err := unstructured.UnstructuredJSONScheme.Encode(ul, &buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func mustJSON(b *testing.B, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
