package wire

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkProtoList decodes the protobuf list of 10000 production Pods
// through ListItems, each item decoded by the generated Unmarshal and then
// walked by the share plan ("unmarshal+share", what types protodec does
// not cover get) or decoded by protodec's plan ("protodec"). Time,
// allocations and cpu-ns (the process's CPU time, garbage collection
// included, steadier than wall time on a loaded machine) are per list;
// retained-B/obj is the heap each decoded Pod keeps alive.
func BenchmarkProtoList(b *testing.B) {
	const n = 10000
	c := newCodecs(b)
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "2000000"}}
	for i := range n {
		l.Items = append(l.Items, prodPod(i))
	}
	body := c.encodeList(b, encProtobuf, l)
	l = nil
	for _, name := range []string{"unmarshal+share", "protodec"} {
		b.Run(name, func(b *testing.B) {
			lw, err := NewListWatch[corev1.Pod]((&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if lw.share.dec == nil {
				b.Fatal("protodec does not cover corev1.Pod")
			}
			if name == "unmarshal+share" {
				plan := *lw.share
				plan.dec = nil
				lw.share = &plan
			}
			list := func(keep []*corev1.Pod) []*corev1.Pod {
				count := 0
				if _, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(p *corev1.Pod) error {
					count++
					if keep != nil {
						keep = append(keep, p)
					}
					return nil
				}); err != nil || count != n {
					b.Fatal(err, count)
				}
				return keep
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				list(nil)
			}
			b.StopTimer()
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(retained(func() any { return list(make([]*corev1.Pod, 0, n)) })/n, "retained-B/obj")
		})
	}
}
