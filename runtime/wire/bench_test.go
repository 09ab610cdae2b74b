package wire

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkListDecode decodes a list of 1000 Pods through ListItems
// ("wire") and through apimachinery's codecs into a PodList, the way a
// typed clientset does ("codec"); the informers' later copying is not
// counted on either side.
func BenchmarkListDecode(b *testing.B) {
	c := newCodecs(b)
	list := testPods(1000, "1")
	for _, enc := range []string{encJSON, encProtobuf} {
		body := c.encodeList(b, enc, list)
		b.Run(enc+"/wire", func(b *testing.B) {
			lw, err := NewListWatch[corev1.Pod]((&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				if _, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error { n++; return nil }); err != nil || n != 1000 {
					b.Fatal(err, n)
				}
			}
		})
		b.Run(enc+"/codec", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if l := c.decodeList(b, body); len(l.Items) != 1000 {
					b.Fatal(len(l.Items))
				}
			}
		})
	}
}
