package wire

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestListWatchOfDecodesAsTheTypedOne lists and watches the same bodies
// through NewListWatchOf(&corev1.Pod{}) and NewListWatch[corev1.Pod], in
// JSON and protobuf, and requires the same objects, the same Accept
// header, *corev1.Pod items and strings shared within one response.
func TestListWatchOfDecodesAsTheTypedOne(t *testing.T) {
	c := newCodecs(t)
	for _, enc := range []string{encJSON, encProtobuf} {
		t.Run(enc, func(t *testing.T) {
			list := c.encodeList(t, enc, testPods(5, "7"))
			p := testPod(9, "8")
			stream := c.encodeWatch(t, enc, []event{{"ADDED", &p}})
			f := &fetchBytes{body: func(o metav1.ListOptions) ([]byte, error) {
				if o.Watch {
					return stream, nil
				}
				return list, nil
			}}
			typed := newPods(t, f.fetch)
			dyn, err := NewListWatchOf(f.fetch, &corev1.Pod{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if dyn.Accept() != typed.Accept() {
				t.Errorf("Accept = %q, want the typed ListWatch's %q", dyn.Accept(), typed.Accept())
			}
			var want []*corev1.Pod
			if _, err := typed.ListItems(context.Background(), metav1.ListOptions{}, func(p *corev1.Pod) error { want = append(want, p); return nil }); err != nil {
				t.Fatal(err)
			}
			var got []Item
			lm, err := dyn.ListItems(context.Background(), metav1.ListOptions{}, func(o Item) error { got = append(got, o); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if lm.ResourceVersion != "7" || len(got) != len(want) {
				t.Fatalf("got %d items at %q, want %d at 7", len(got), lm.ResourceVersion, len(want))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("item %d = %#v, want %#v", i, got[i], want[i])
				}
			}
			a, b := got[0].(*corev1.Pod), got[len(got)-1].(*corev1.Pod)
			if a.Namespace == b.Namespace && unsafe.StringData(a.Namespace) != unsafe.StringData(b.Namespace) {
				t.Error("the items of one list hold separate copies of their namespace")
			}
			w, err := dyn.Watch(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ev := <-w.ResultChan()
			wantPod := p.DeepCopy()
			wantPod.SetGroupVersionKind(schema.GroupVersionKind{})
			if ev.Type != "ADDED" || !reflect.DeepEqual(ev.Object, wantPod) {
				t.Errorf("event = %s %#v, want ADDED %#v", ev.Type, ev.Object, wantPod)
			}
		})
	}
}

// TestListWatchOfBadInput requires an error naming what is wrong.
func TestListWatchOfBadInput(t *testing.T) {
	f := (&fetchBytes{}).fetch
	for _, tc := range []struct {
		name    string
		example Item
		opts    Options
		want    string
	}{
		{"nil example", nil, Options{}, "<nil> is not a pointer to a struct"},
		{"protobuf for a type without it", &plain{}, Options{ContentType: ContentTypeProtobuf}, "*wire.plain, which has no protobuf Unmarshal method"},
		{"unknown content type", &corev1.Pod{}, Options{ContentType: "text/plain"}, `content type "text/plain"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewListWatchOf(f, tc.example, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := NewListWatchOf(nil, &corev1.Pod{}, Options{}); err == nil || !strings.Contains(err.Error(), "fetch is nil") {
		t.Errorf("nil fetch: error = %v, want fetch is nil", err)
	}
}
