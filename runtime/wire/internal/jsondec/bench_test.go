package jsondec

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// BenchmarkDecodePod decodes one realistic Pod with sigs.k8s.io/json and
// with a Decoder.
func BenchmarkDecodePod(b *testing.B) {
	data := []byte(mustJSON(b, realPod(3)))
	b.Run("sigs.k8s.io-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &corev1.Pod{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsondec", func(b *testing.B) {
		d := New(reflect.TypeFor[corev1.Pod]())
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if err := d.Decode(data, &corev1.Pod{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
