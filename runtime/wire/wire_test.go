package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	kjson "sigs.k8s.io/json"
)

// plain is an API type without protobuf methods, as a CRD's types are.
type plain struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              string `json:"spec"`
}

func (p *plain) DeepCopyObject() runtime.Object {
	c := *p
	p.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func newPods(t *testing.T, f Fetch) *ListWatch[corev1.Pod, *corev1.Pod] {
	t.Helper()
	lw, err := NewListWatch[corev1.Pod](f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return lw
}

// TestListItemsDecodesAsClientGo lists the same Pods encoded as JSON and
// as protobuf and requires, item by item, exactly what apimachinery's
// codecs (client-go's typed clients) decode from the same bytes, and the
// list's metadata.
func TestListItemsDecodesAsClientGo(t *testing.T) {
	c := newCodecs(t)
	for _, enc := range []string{encJSON, encProtobuf} {
		for _, n := range []int{0, 1, 3, 257, 1000} {
			t.Run(fmt.Sprintf("%s/%d items", enc, n), func(t *testing.T) {
				list := testPods(n, "42")
				list.Continue = "next-page"
				body := c.encodeList(t, enc, list)
				want := c.decodeList(t, body)
				f := &fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}
				lw := newPods(t, f.fetch)
				var got []*corev1.Pod
				lm, err := lw.ListItems(context.Background(), metav1.ListOptions{Limit: 500}, func(p *corev1.Pod) error {
					got = append(got, p)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if lm.ResourceVersion != "42" || lm.Continue != "next-page" {
					t.Errorf("list metadata = %+v, want resourceVersion 42 and continue next-page", lm)
				}
				if len(got) != len(want.Items) {
					t.Fatalf("got %d items, want %d", len(got), len(want.Items))
				}
				for i := range got {
					if !reflect.DeepEqual(got[i], &want.Items[i]) {
						t.Errorf("item %d differs from the codec's:\n got %+v\nwant %+v", i, got[i], &want.Items[i])
					}
				}
				if len(f.calls) != 1 || f.calls[0].accept != ContentTypeProtobuf+", "+ContentTypeJSON || f.calls[0].opts.Limit != 500 || f.calls[0].opts.Watch {
					t.Errorf("requests = %+v, want one list with Limit 500 accepting protobuf then JSON", f.calls)
				}
			})
		}
	}
}

// TestListItemsShareStrings requires the items of one JSON list to share
// the strings they repeat (namespace, label values, image, container
// name), and the items of another list not to share the first list's.
func TestListItemsShareStrings(t *testing.T) {
	c := newCodecs(t)
	for _, enc := range []string{encJSON, encProtobuf} {
		t.Run(enc, func(t *testing.T) {
			body := c.encodeList(t, enc, testPods(7, "1"))
			lw := newPods(t, (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch)
			list := func() []*corev1.Pod {
				var got []*corev1.Pod
				if _, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(p *corev1.Pod) error {
					got = append(got, p)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				return got
			}
			same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
			first, second := list(), list()
			a, b := first[0], first[6] // same namespace, label value, image
			if a.Namespace != b.Namespace || a.Labels["app"] != b.Labels["app"] {
				t.Fatal("the fixture's Pods 0 and 6 should have equal namespaces and labels")
			}
			if !same(a.Namespace, b.Namespace) || !same(a.Labels["app"], b.Labels["app"]) ||
				!same(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image) || !same(a.Spec.Containers[0].Name, b.Spec.Containers[0].Name) {
				t.Error("the items of one list hold separate copies of equal strings")
			}
			if same(a.Namespace, second[0].Namespace) {
				t.Error("two lists share strings: the table outlives its response")
			}
		})
	}
}

// TestWatchSharesStrings requires the events of one watch stream to share
// the strings they repeat, in both encodings.
func TestWatchSharesStrings(t *testing.T) {
	c := newCodecs(t)
	var events []event
	for i := range 7 {
		p := testPod(i, strconv.Itoa(5+i))
		events = append(events, event{"ADDED", &p})
	}
	for _, enc := range []string{encJSON, encProtobuf} {
		t.Run(enc, func(t *testing.T) {
			body := c.encodeWatch(t, enc, events)
			w, err := newPods(t, (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch).Watch(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var got []*corev1.Pod
			for ev := range w.ResultChan() {
				got = append(got, ev.Object.(*corev1.Pod))
			}
			if len(got) != len(events) {
				t.Fatalf("got %d events, want %d", len(got), len(events))
			}
			a, b := got[0], got[6]
			if a.Namespace != b.Namespace || !sameString(a.Namespace, b.Namespace) || !sameString(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image) {
				t.Error("the events of one watch hold separate copies of equal strings")
			}
		})
	}
}

// TestListItemsLargeItems lists JSON items larger than the stream's
// initial buffer, between small ones, and requires what the codecs decode.
func TestListItemsLargeItems(t *testing.T) {
	c := newCodecs(t)
	list := testPods(5, "3")
	list.Items[1].Annotations = map[string]string{"big": strings.Repeat("x", 3*jsonListBuffer)}
	list.Items[3].Annotations = map[string]string{"bigger": strings.Repeat("\u00e9", 5*jsonListBuffer)}
	body := c.encodeList(t, encJSON, list)
	want := c.decodeList(t, body)
	var got []*corev1.Pod
	if _, err := newPods(t, (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch).ListItems(context.Background(), metav1.ListOptions{}, func(p *corev1.Pod) error {
		got = append(got, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.Items) {
		t.Fatalf("got %d items, want %d", len(got), len(want.Items))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], &want.Items[i]) {
			t.Errorf("item %d differs from the codec's", i)
		}
	}
}

// TestListItemsStopsAtYieldError returns yield's error unchanged and
// decodes no further item.
func TestListItemsStopsAtYieldError(t *testing.T) {
	c := newCodecs(t)
	stop := errors.New("stop here")
	for _, enc := range []string{encJSON, encProtobuf} {
		body := c.encodeList(t, enc, testPods(600, "1"))
		lw := newPods(t, (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch)
		calls := 0
		_, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error {
			calls++
			if calls == 2 {
				return stop
			}
			return nil
		})
		if err != stop || calls != 2 { //nolint:errorlint // yield's error must come back unwrapped
			t.Errorf("%s: err %v after %d calls, want %v after 2", enc, err, calls, stop)
		}
	}
}

// TestListItemsBadInput requires a clear error naming what is wrong for
// each malformed response, and no item delivered after the fault.
func TestListItemsBadInput(t *testing.T) {
	c := newCodecs(t)
	protoBody := c.encodeList(t, encProtobuf, testPods(3, "7"))
	jsonBody := c.encodeList(t, encJSON, testPods(3, "7"))
	status := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"}
	status.Kind, status.APIVersion = "Status", "v1"
	var statusProto bytes.Buffer
	if err := c.proto.Encode(status, &statusProto); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		body    []byte
		fetch   error
		want    string
		maxSeen int
	}{
		{name: "empty body", body: nil, want: "unexpected EOF"},
		{name: "neither JSON nor protobuf", body: []byte("<html>"), want: "neither JSON nor Kubernetes protobuf"},
		{name: "protobuf cut in an item", body: protoBody[:len(protoBody)-40], want: "item 2: unexpected EOF", maxSeen: 2},
		{name: "protobuf cut after the magic", body: protoBody[:4], want: "empty body"},
		{name: "protobuf item length past the list", body: corruptLastLength(t, protoBody), want: "runs past the end", maxSeen: 2},
		{name: "JSON cut in an item", body: jsonBody[:len(jsonBody)-40], want: "item 2", maxSeen: 2},
		{name: "JSON items not an array", body: []byte(`{"metadata":{},"items":{}}`), want: "items: want an array"},
		{name: "JSON Status", body: []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure"}`), want: "a Status instead of a list"},
		{name: "JSON not an object", body: []byte(`[1]`), want: "neither JSON nor Kubernetes protobuf"},
		{name: "fetch fails", fetch: apierrors.NewResourceExpired("too old"), want: "too old"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lw := newPods(t, (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return tc.body, tc.fetch }}).fetch)
			seen := 0
			_, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error { seen++; return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if seen > tc.maxSeen {
				t.Errorf("%d items delivered, want at most %d", seen, tc.maxSeen)
			}
		})
	}
	t.Run("protobuf Status is the server's error", func(t *testing.T) {
		lw := newPods(t, (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return statusProto.Bytes(), nil }}).fetch)
		_, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error { return nil })
		if !apierrors.IsResourceExpired(err) {
			t.Errorf("err = %v, want the Status's Expired error", err)
		}
	})
	t.Run("protobuf for a type without protobuf methods", func(t *testing.T) {
		lw, err := NewListWatch[plain](func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) {
			return io.NopCloser(bytes.NewReader(protoBody)), "", nil
		}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = lw.ListItems(context.Background(), metav1.ListOptions{}, func(*plain) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "has no protobuf Unmarshal method") {
			t.Errorf("err = %v, want one saying the type has no protobuf methods", err)
		}
	})
	t.Run("protobuf answer to a request for JSON only", func(t *testing.T) {
		lw, err := NewListWatch[corev1.Pod](func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) {
			return io.NopCloser(bytes.NewReader(protoBody)), "", nil
		}, Options{ContentType: ContentTypeJSON})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		_, err = lw.ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error { n++; return nil })
		if err == nil || !strings.Contains(err.Error(), "only JSON was asked for") || n != 0 {
			t.Errorf("err = %v after %d items, want no item and an error saying only JSON was asked for", err, n)
		}
	})
}

// corruptLastLength makes the last item's length one byte too large,
// so that it runs past the end of the list message.
func corruptLastLength(t *testing.T, body []byte) []byte {
	t.Helper()
	b := bytes.Clone(body)
	// Find the last item's tag and length by walking the list; raw
	// aliases b, so its offset in b follows from the capacities.
	env, err := openEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	start := cap(b) - cap(env.raw)
	r := sliceReader{b: env.raw}
	last := -1
	for {
		off := len(env.raw) - len(r.b)
		field, _, _, _, ok, err := r.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if field == listItems {
			last = off
		}
	}
	// tag (1 byte), then the length varint: add one to its first byte
	// without changing its width.
	at := start + last + 1
	if b[at]&0x7f == 0x7f {
		t.Fatal("length byte would overflow")
	}
	b[at]++
	return b
}

func TestNewListWatchContentTypes(t *testing.T) {
	f := func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) { return nil, "", nil }
	cases := []struct {
		ct, want, err string
		proto         bool
	}{
		{ct: "", proto: true, want: ContentTypeProtobuf + ", " + ContentTypeJSON},
		{ct: ContentTypeProtobuf, proto: true, want: ContentTypeProtobuf + ", " + ContentTypeJSON},
		{ct: ContentTypeJSON, proto: true, want: ContentTypeJSON},
		{ct: "", want: ContentTypeJSON},
		{ct: ContentTypeProtobuf, err: "has no protobuf Unmarshal method"},
		{ct: "application/yaml", proto: true, err: `content type "application/yaml"`},
	}
	for _, tc := range cases {
		var accept string
		var err error
		if tc.proto {
			var lw *ListWatch[corev1.Pod, *corev1.Pod]
			if lw, err = NewListWatch[corev1.Pod](f, Options{ContentType: tc.ct}); err == nil {
				accept = lw.Accept()
			}
		} else {
			var lw *ListWatch[plain, *plain]
			if lw, err = NewListWatch[plain](f, Options{ContentType: tc.ct}); err == nil {
				accept = lw.Accept()
			}
		}
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q (protobuf type %v): err %v, want %q", tc.ct, tc.proto, err, tc.err)
		case tc.err == "" && (err != nil || accept != tc.want):
			t.Errorf("%q (protobuf type %v): accept %q, err %v; want %q", tc.ct, tc.proto, accept, err, tc.want)
		}
	}
}

// TestWatchDecodesEvents decodes a watch stream of every event type in
// both encodings and requires the events, in order, with the objects
// apimachinery's codecs decode.
func TestWatchDecodesEvents(t *testing.T) {
	c := newCodecs(t)
	pod := func(i int, rv string) *corev1.Pod { p := testPod(i, rv); return &p }
	bookmark := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9", Annotations: map[string]string{"k8s.io/initial-events-end": "true"}}}
	status := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
	// An event larger than a JSON watch stream's initial buffer.
	big := pod(2, "8")
	big.Annotations = map[string]string{"big": strings.Repeat("b", 3*jsonWatchBuffer)}
	events := []event{
		{"ADDED", pod(0, "5")}, {"MODIFIED", pod(0, "6")}, {"ADDED", pod(1, "7")}, {"ADDED", big}, {"DELETED", pod(0, "8")},
		{"BOOKMARK", bookmark}, {"ERROR", status},
	}
	for _, tc := range []struct {
		name, enc string
		enveloped bool
	}{{encJSON, encJSON, false}, {encProtobuf, encProtobuf, false}, {"protobuf frames in the envelope", encProtobuf, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := c
			c.envelopedFrames = tc.enveloped
			body := c.encodeWatch(t, tc.enc, events)
			f := &fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}
			w, err := newPods(t, f.fetch).Watch(context.Background(), metav1.ListOptions{ResourceVersion: "4"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var got []watch.Event
			for ev := range w.ResultChan() {
				got = append(got, ev)
			}
			if len(got) != len(events) {
				t.Fatalf("got %d events, want %d: %+v", len(got), len(events), got)
			}
			for i, ev := range got {
				want := events[i].obj.DeepCopyObject()
				want.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
				if string(ev.Type) != events[i].typ || !reflect.DeepEqual(ev.Object, want) {
					t.Errorf("event %d = %s %+v, want %s %+v", i, ev.Type, ev.Object, events[i].typ, want)
				}
			}
			if len(f.calls) != 1 || !f.calls[0].opts.Watch || f.calls[0].opts.ResourceVersion != "4" {
				t.Errorf("requests = %+v, want one watch from resourceVersion 4", f.calls)
			}
		})
	}
}

// TestWatchBadStream ends a stream that cannot be decoded with an Error
// event naming the fault, and a stream cut inside an event quietly (as a
// server's timeout does).
func TestWatchBadStream(t *testing.T) {
	c := newCodecs(t)
	p := testPod(0, "5")
	good := map[string][]byte{
		encJSON:     c.encodeWatch(t, encJSON, []event{{"ADDED", &p}}),
		encProtobuf: c.encodeWatch(t, encProtobuf, []event{{"ADDED", &p}}),
	}
	cases := []struct {
		name   string
		body   []byte
		events int    // good events before the end
		errMsg string // the final Error event's message, "" for a quiet end
	}{
		{name: "JSON cut", body: append(bytes.Clone(good[encJSON]), good[encJSON][:30]...), events: 1},
		{name: "protobuf cut", body: append(bytes.Clone(good[encProtobuf]), good[encProtobuf][:30]...), events: 1},
		{name: "JSON unknown type", body: append(bytes.Clone(good[encJSON]), `{"type":"RENAMED","object":{}}`...), events: 1, errMsg: `unknown type "RENAMED"`},
		{name: "JSON without object", body: []byte(`{"type":"ADDED"}`), errMsg: "ADDED watch event without an object"},
		{name: "JSON object first", body: []byte(`{"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"x"}},"type":"ADDED"}`), events: 1},
		{name: "protobuf frame that is no message", body: []byte{0, 0, 0, 3, 'a', 'b', 'c'}, errMsg: "watch event: a field runs past the end"},
		{name: "protobuf empty object", body: []byte{0, 0, 0, 9, 0x0a, 0x05, 'A', 'D', 'D', 'E', 'D', 0x12, 0x00}, errMsg: "ADDED watch event without an object"},
		{name: "protobuf object without magic", body: []byte{0, 0, 0, 12, 0x0a, 0x05, 'A', 'D', 'D', 'E', 'D', 0x12, 0x03, 0x0a, 0x01, 'x'}, errMsg: "ADDED event object: provided data does not appear to be a protobuf message"},
		{name: "protobuf frame past the body's end", body: []byte{0x7f, 0, 0, 0}},
		{name: "protobuf frame too large", body: append([]byte{0x01, 0, 0, 1}, make([]byte, maxEvent)...), errMsg: "object to decode was longer than maximum allowed size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return tc.body, nil }}
			w, err := newPods(t, f.fetch).Watch(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var got []watch.Event
			for ev := range w.ResultChan() {
				got = append(got, ev)
			}
			n := len(got)
			if tc.errMsg != "" {
				if n == 0 || got[n-1].Type != watch.Error || !strings.Contains(statusText(got[n-1].Object), tc.errMsg) {
					t.Fatalf("events %+v, want a final Error event containing %q", got, tc.errMsg)
				}
				n--
			}
			if n != tc.events {
				t.Errorf("%d events before the end, want %d: %+v", n, tc.events, got)
			}
		})
	}
}

// TestWatchStopUnblocks stops a watch whose body blocks in Read and whose
// consumer reads nothing: Stop must return (its goroutine ended), leaving
// no event to receive, whatever waited in the result channel.
func TestWatchStopUnblocks(t *testing.T) {
	for _, name := range []string{"blocked in Read", "blocked in send"} {
		t.Run(name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			f := func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) { return pr, "", nil }
			w, err := newPods(t, f).Watch(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if name == "blocked in send" {
				// The decoder fills the result channel and then waits to
				// send one more event, as nobody receives. Write returns once
				// the decoder has read the event.
				for i := range resultBuffer + 1 {
					if _, err := fmt.Fprintf(pw, `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a%d"}}}`+"\n", i); err != nil {
						t.Fatal(err)
					}
				}
				deadline := time.Now().Add(10 * time.Second)
				for len(w.ResultChan()) < resultBuffer {
					if time.Now().After(deadline) {
						t.Fatalf("%d events wait in the result channel, want %d", len(w.ResultChan()), resultBuffer)
					}
					time.Sleep(time.Millisecond)
				}
			}
			w.Stop()
			// Stop returned: the decoding goroutine has ended and closed
			// the channel, while the body's writer is still open.
			select {
			case _, ok := <-w.ResultChan():
				if ok {
					t.Fatal("an event after Stop returned")
				}
			default:
				t.Fatal("the result channel is still open after Stop returned")
			}
		})
	}
}

// TestWatchDecodesAheadOfTheConsumer: while the consumer takes nothing,
// the decoder goes on until resultBuffer events wait for it; the consumer
// then gets every event once, in the stream's order.
func TestWatchDecodesAheadOfTheConsumer(t *testing.T) {
	c := newCodecs(t)
	const n = 2 * resultBuffer
	var events []event
	for i := range n {
		p := testPod(i, strconv.Itoa(10+i))
		events = append(events, event{"ADDED", &p})
	}
	for _, enc := range []string{encJSON, encProtobuf} {
		t.Run(enc, func(t *testing.T) {
			body := c.encodeWatch(t, enc, events)
			f := &fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}
			w, err := newPods(t, f.fetch).Watch(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ch := w.ResultChan()
			deadline := time.Now().Add(10 * time.Second)
			for len(ch) < resultBuffer {
				if time.Now().After(deadline) {
					t.Fatalf("%d events decoded ahead of a consumer taking none, want %d", len(ch), resultBuffer)
				}
				time.Sleep(time.Millisecond)
			}
			i := 0
			for ev := range ch {
				if i >= n {
					t.Fatalf("event %d past the %d sent: %+v", i, n, ev)
				}
				p, ok := ev.Object.(*corev1.Pod)
				if ev.Type != watch.Added || !ok || p.Name != testPod(i, "").Name || p.ResourceVersion != strconv.Itoa(10+i) {
					t.Fatalf("event %d = %s %+v, want ADDED of %s at %d", i, ev.Type, ev.Object, testPod(i, "").Name, 10+i)
				}
				i++
			}
			if i != n {
				t.Fatalf("%d events, want %d", i, n)
			}
		})
	}
}

func TestListReturnsSeparateItems(t *testing.T) {
	c := newCodecs(t)
	body := c.encodeList(t, encProtobuf, testPods(3, "11"))
	lw := newPods(t, (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch)
	obj, err := lw.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := obj.(*List[*corev1.Pod])
	if len(l.Items) != 3 || l.ResourceVersion != "11" || l.Items[2].Name != "pod-2" {
		t.Fatalf("list = %+v", l)
	}
	cp := l.DeepCopyObject().(*List[*corev1.Pod])
	cp.Items[0].Name = "changed"
	if l.Items[0].Name != "pod-0" {
		t.Error("DeepCopyObject shares items")
	}
}

// TestListItemsAllocatesOnlyTheItems counts the bytes ListItems allocates
// for a list of n Pods and requires no more than decoding each Pod alone
// from its own bytes, plus a fixed allowance for the read buffers: a list
// object (its Items array alone is n Pod structs) or a buffered body
// (the encoded list, more than the allowance) would exceed it.
func TestListItemsAllocatesOnlyTheItems(t *testing.T) {
	const n = 4000
	// The read-ahead chunks; bufio and item buffers, decoder state; the
	// table of shared strings (a map entry and a string each); and a
	// margin for what the runtime allocates meanwhile.
	const allowance = readAheadChunks*readAheadChunk + sharedStrings*128 + 1<<20
	c := newCodecs(t)
	list := testPods(n, "3")
	for i := range list.Items {
		list.Items[i].Annotations = map[string]string{"note": strings.Repeat("x", 1024)}
	}
	for _, enc := range []string{encJSON, encProtobuf} {
		t.Run(enc, func(t *testing.T) {
			body := c.encodeList(t, enc, list)
			items := make([][]byte, n)
			for i := range list.Items {
				var err error
				if enc == encProtobuf {
					items[i], err = list.Items[i].Marshal()
				} else {
					items[i], err = json.Marshal(&list.Items[i])
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			alone := allocated(func() {
				for _, b := range items {
					p := &corev1.Pod{}
					var err error
					if enc == encProtobuf {
						err = p.Unmarshal(b)
					} else {
						err = kjson.UnmarshalCaseSensitivePreserveInts(b, p)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			})
			lw := newPods(t, (&fetchBytes{body: func(metav1.ListOptions) ([]byte, error) { return body, nil }}).fetch)
			got := 0
			listed := allocated(func() {
				if _, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error { got++; return nil }); err != nil {
					t.Fatal(err)
				}
			})
			if got != n {
				t.Fatalf("%d items, want %d", got, n)
			}
			t.Logf("%s: ListItems allocated %d bytes for %d Pods (body %d bytes); decoding each alone %d", enc, listed, n, len(body), alone)
			if itemsArray := n * int(unsafe.Sizeof(corev1.Pod{})); len(body) < allowance || itemsArray < allowance {
				t.Fatalf("the body (%d bytes) or an Items array (%d) is smaller than the allowance (%d): keeping it would pass unnoticed", len(body), itemsArray, allowance)
			}
			if listed > alone+allowance {
				t.Errorf("ListItems allocated %d bytes, more than decoding each Pod alone (%d) plus %d: a list or the body is being kept", listed, alone, allowance)
			}
		})
	}
}

// allocated returns the heap bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	fn()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestListItemsStopsWhileTheServerStalls stops a list at an error
// of yield while the server has sent only part of the response and sends
// no more: ListItems must return (closing the body) instead of waiting for
// bytes that never come.
func TestListItemsStopsWhileTheServerStalls(t *testing.T) {
	c := newCodecs(t)
	stop := errors.New("stop here")
	for _, enc := range []string{encJSON, encProtobuf} {
		t.Run(enc, func(t *testing.T) {
			body := c.encodeList(t, enc, testPods(2000, "1"))
			pr, pw := io.Pipe()
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				// Less than the response: the decoder would wait for
				// the rest.
				pw.Write(body[:len(body)/2]) //nolint:errcheck // ends when the reader closes
			}()
			f := func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) { return pr, "", nil }
			calls := 0
			_, err := newPods(t, f).ListItems(context.Background(), metav1.ListOptions{}, func(*corev1.Pod) error {
				calls++
				return stop
			})
			if !errors.Is(err, stop) || calls != 1 {
				t.Errorf("err %v after %d calls, want %v after 1", err, calls, stop)
			}
			<-sent // the writer ended: the body was closed
		})
	}
}

// failingBody returns its bytes, then err.
type failingBody struct {
	r   *bytes.Reader
	err error
}

func (b *failingBody) Read(p []byte) (int, error) {
	if b.r.Len() > 0 {
		return b.r.Read(p)
	}
	return 0, b.err
}

func (b *failingBody) Close() error { return nil }

// timeoutError is a net.Error that timed out.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// TestWatchEndsQuietlyWhenTheConnectionDrops checks that a watch whose
// connection is reset, closed by a GOAWAY or timed out ends without an
// Error event, as apimachinery's stream watcher ends it, so the reflector
// watches again from its resourceVersion instead of relisting; any other
// read error still ends it with one.
func TestWatchEndsQuietlyWhenTheConnectionDrops(t *testing.T) {
	c := newCodecs(t)
	p := testPod(0, "5")
	for _, enc := range []string{encJSON, encProtobuf} {
		body := c.encodeWatch(t, enc, []event{{"ADDED", &p}})
		for _, tc := range []struct {
			name      string
			err       error
			wantError bool
		}{
			{name: "reset", err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}},
			{name: "GOAWAY", err: errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=5, ErrCode=NO_ERROR")},
			{name: "timeout", err: &net.OpError{Op: "read", Net: "tcp", Err: timeoutError{}}},
			{name: "other", err: errors.New("tls: bad record MAC"), wantError: true},
		} {
			t.Run(enc+"/"+tc.name, func(t *testing.T) {
				fetch := func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) {
					return &failingBody{r: bytes.NewReader(body), err: tc.err}, "", nil
				}
				w, err := newPods(t, fetch).Watch(context.Background(), metav1.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Stop()
				var got []watch.EventType
				for ev := range w.ResultChan() {
					got = append(got, ev.Type)
				}
				want := []watch.EventType{watch.Added}
				if tc.wantError {
					want = append(want, watch.Error)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("events %v after %v, want %v", got, tc.err, want)
				}
			})
		}
	}
}
