package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
)

// refWatchDecoder decodes watch events as client-go's REST client does
// (its rest/watch decoder, rebuilt here since the module may not import
// client-go): a metav1.WatchEvent from each frame of the streaming
// decoder, its type checked, its object decoded through the scheme with
// the typed clients' WithoutConversion decoder.
type refWatchDecoder struct {
	events streaming.Decoder
	object runtime.Decoder
}

func (r refWatchDecoder) Decode() (watch.EventType, runtime.Object, error) {
	var we metav1.WatchEvent
	got, _, err := r.events.Decode(nil, &we)
	if err != nil {
		return "", nil, err
	}
	if got != &we {
		return "", nil, fmt.Errorf("not a WatchEvent: %T", got)
	}
	if _, err := eventType(we.Type); err != nil {
		return "", nil, err
	}
	obj, err := runtime.Decode(r.object, we.Object.Raw)
	if err != nil {
		return "", nil, err
	}
	return watch.EventType(we.Type), obj, nil
}

func (r refWatchDecoder) Close() { r.events.Close() } //nolint:errcheck // a test body

// refWatch returns the events client-go's watch of a stream of media type
// mediaType yields from body.
func (c codecs) refWatch(t *testing.T, mediaType string, body []byte) []watch.Event {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(c.cf.SupportedMediaTypes(), mediaType)
	if !ok || info.StreamSerializer == nil {
		t.Fatalf("no stream serializer for %s", mediaType)
	}
	frames := info.StreamSerializer.Framer.NewFrameReader(io.NopCloser(bytes.NewReader(body)))
	dec := refWatchDecoder{
		events: streaming.NewDecoder(frames, info.StreamSerializer.Serializer),
		object: runtime.WithoutVersionDecoder{Decoder: info.Serializer},
	}
	w := watch.NewStreamWatcher(dec, apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding"))
	defer w.Stop()
	var got []watch.Event
	for ev := range w.ResultChan() {
		got = append(got, ev)
	}
	return got
}

// ourWatch returns the events a ListWatch of Pods yields from body,
// served with content type ct.
func ourWatch(t *testing.T, ct string, body []byte) []watch.Event {
	t.Helper()
	return ourWatchAsking(t, "", ct, body)
}

// ourWatchAsking is ourWatch of a ListWatch asking for the content type
// asked (Options.ContentType).
func ourWatchAsking(t *testing.T, asked, ct string, body []byte) []watch.Event {
	t.Helper()
	lw, err := NewListWatch[corev1.Pod](func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) {
		return io.NopCloser(bytes.NewReader(body)), ct, nil
	}, Options{Resource: "pods.v1", ContentType: asked})
	if err != nil {
		t.Fatal(err)
	}
	w, err := lw.Watch(context.Background(), metav1.ListOptions{})
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

// jsonEvent is one JSON watch event of type typ around the raw object.
func jsonWatchEvent(typ, object string) string {
	return `{"type":"` + typ + `","object":` + object + "}\n"
}

// protoFrame frames a protobuf WatchEvent message.
func protoFrame(msg []byte) []byte {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(msg)))
	return append(n[:], msg...)
}

// pbField is a length-delimited protobuf field.
func pbField(field int, b []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(field)<<3|wireBytes)
	out = binary.AppendUvarint(out, uint64(len(b)))
	return append(out, b...)
}

// pbEnvelope is a runtime.Unknown holding raw, of apiVersion and kind,
// with extra fields appended.
func pbEnvelope(apiVersion, kind string, raw []byte, extra ...[]byte) []byte {
	tm := slicesConcat(pbField(typeMetaAPIVersion, []byte(apiVersion)), pbField(typeMetaKind, []byte(kind)))
	b := slicesConcat([]byte(protoMagic), pbField(unknownTypeMeta, tm))
	if raw != nil {
		b = append(b, pbField(unknownRaw, raw)...)
	}
	return slicesConcat(append([][]byte{b}, extra...)...)
}

// TestWatchAgreesWithClientGo feeds watch bodies to client-go's watch
// decoding (rebuilt over apimachinery, as refWatch) and to a ListWatch of
// Pods, and requires the same events: the same types, objects and
// Error events (whose messages differ), and the same quiet ends. The
// cases marked differ are where client-go hands over an object of
// another type, which its reflector drops, and ListWatch, which cannot
// hold another type, ends with an Error event (see the package
// documentation).
func TestWatchAgreesWithClientGo(t *testing.T) {
	c := newCodecs(t)
	p := testPod(0, "5")
	p.Kind, p.APIVersion = "Pod", "v1"
	podJSON, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	var podPB bytes.Buffer
	if err := c.proto.Encode(&p, &podPB); err != nil {
		t.Fatal(err)
	}
	env, err := openEnvelope(podPB.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	pb := func(typ string, object []byte) []byte {
		return protoFrame(slicesConcat(pbField(watchEventType, []byte(typ)), pbField(watchEventObject, pbField(rawExtensionRaw, object))))
	}
	bigJSON := jsonWatchEvent("ADDED", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"big","annotations":{"a":"`+strings.Repeat("x", maxEvent)+`"}}}`)
	const jsonCT, pbCT = "application/json", "application/vnd.kubernetes.protobuf;stream=watch"
	cases := []struct {
		name   string
		ct     string
		body   []byte
		differ bool // client-go yields an object of another type where we end with an Error event
	}{
		{name: "JSON pod", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", string(podJSON)))},
		{name: "JSON service in a pod watch", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `{"kind":"Service","apiVersion":"v1","metadata":{"name":"s"}}`)), differ: true},
		{name: "JSON status in an ADDED event", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `{"kind":"Status","apiVersion":"v1","status":"Failure"}`)), differ: true},
		{name: "JSON pod without kind", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `{"apiVersion":"v1","metadata":{"name":"x"}}`))},
		{name: "JSON pod without apiVersion", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `{"kind":"Pod","metadata":{"name":"x"}}`))},
		{name: "JSON pod of another version", ct: jsonCT, body: []byte(jsonWatchEvent("MODIFIED", `{"kind":"Pod","apiVersion":"v2","metadata":{"name":"x"}}`))},
		{name: "JSON pod of another group", ct: jsonCT, body: []byte(jsonWatchEvent("MODIFIED", `{"kind":"Pod","apiVersion":"apps/v1","metadata":{"name":"x"}}`))},
		{name: "JSON kind in another case", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `{"KIND":"Pod","apiversion":"v1","metadata":{"name":"x"}}`))},
		{name: "JSON kind not a string", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `{"kind":1,"apiVersion":"v1"}`))},
		{name: "JSON null object", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `null`))},
		{name: "JSON type escaped", ct: jsonCT, body: []byte(`{"type":"ADD\u0045D","object":` + string(podJSON) + `}`)},
		{name: "JSON type not a string", ct: jsonCT, body: []byte(`{"type":5,"object":` + string(podJSON) + `}`)},
		{name: "JSON type null", ct: jsonCT, body: []byte(`{"type":null,"object":` + string(podJSON) + `}`)},
		{name: "JSON kind and apiVersion escaped", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `{"kind":"P\u006fd","apiVersion":"v\u0031","metadata":{"name":"x"}}`))},
		{name: "JSON kind null", ct: jsonCT, body: []byte(jsonWatchEvent("ADDED", `{"kind":null,"apiVersion":"v1","metadata":{"name":"x"}}`))},
		{name: "JSON object then null", ct: jsonCT, body: []byte(`{"type":"ADDED","object":` + string(podJSON) + `,"object":null}`)},
		{name: "JSON null then object", ct: jsonCT, body: []byte(`{"type":"ADDED","object":null,"object":` + string(podJSON) + `}`)},
		{name: "JSON error status", ct: jsonCT, body: []byte(jsonWatchEvent("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"}`))},
		{name: "JSON error status of a group version", ct: jsonCT, body: []byte(jsonWatchEvent("ERROR", `{"kind":"Status","apiVersion":"apps/v1","status":"Failure","code":410}`))},
		{name: "JSON body not an object", ct: jsonCT, body: []byte("x")},
		{name: "JSON body an array", ct: jsonCT, body: []byte("[1]")},
		{name: "JSON body of protobuf bytes", ct: jsonCT, body: pb("ADDED", podPB.Bytes())},
		{name: "JSON white space only", ct: jsonCT, body: []byte(" \n")},
		{name: "JSON event too large", ct: jsonCT, body: []byte(bigJSON)},
		{name: "JSON event too large, cut", ct: jsonCT, body: []byte(bigJSON[:len(bigJSON)-10])},
		{name: "JSON string event too large", ct: jsonCT, body: []byte(`"` + strings.Repeat("x", maxEvent) + `"`)},
		{name: "protobuf pod", ct: pbCT, body: pb("ADDED", podPB.Bytes())},
		{name: "protobuf pod without kind", ct: pbCT, body: pb("ADDED", pbEnvelope("v1", "", env.raw))},
		{name: "protobuf pod without apiVersion", ct: pbCT, body: pb("ADDED", pbEnvelope("", "Pod", env.raw))},
		{name: "protobuf service in a pod watch", ct: pbCT, body: pb("ADDED", pbEnvelope("v1", "Service", nil)), differ: true},
		{name: "protobuf pod without raw", ct: pbCT, body: pb("ADDED", pbEnvelope("v1", "Pod", nil))},
		{name: "protobuf pod with a content encoding", ct: pbCT, body: pb("ADDED", pbEnvelope("v1", "Pod", env.raw, pbField(unknownContentEncoding, []byte("gzip"))))},
		{name: "protobuf pod with raw twice", ct: pbCT, body: pb("ADDED", pbEnvelope("v1", "Pod", []byte{0x0a, 0x03, 0x0a, 0x01, 'x'}, pbField(unknownRaw, env.raw)))},
		{name: "protobuf type of the wrong wire type", ct: pbCT, body: protoFrame(slicesConcat([]byte{watchEventType << 3, 1}, pbField(watchEventObject, pbField(rawExtensionRaw, podPB.Bytes()))))},
		{name: "protobuf raw of the wrong wire type", ct: pbCT, body: protoFrame(slicesConcat(pbField(watchEventType, []byte("ADDED")), pbField(watchEventObject, []byte{rawExtensionRaw << 3, 1})))},
		{name: "protobuf kind of the wrong wire type", ct: pbCT, body: pb("ADDED", slicesConcat([]byte(protoMagic), pbField(unknownTypeMeta, []byte{typeMetaKind << 3, 1}), pbField(unknownRaw, env.raw)))},
		{name: "protobuf unknown group field", ct: pbCT, body: pb("ADDED", slicesConcat(pbEnvelope("v1", "Pod", env.raw), []byte{9<<3 | wireStartGroup, 1 << 3, 1, 9<<3 | wireEndGroup}))},
		{name: "protobuf frame past the body's end", ct: pbCT, body: slicesConcat(pb("ADDED", podPB.Bytes()), []byte{0, 1, 0, 0, 1, 2})},
		{name: "protobuf huge frame past the body's end", ct: pbCT, body: []byte{0xff, 0xff, 0xff, 0xff, 1, 2}},
		{name: "protobuf frame too large", ct: pbCT, body: append([]byte{0x01, 0, 0, 1}, make([]byte, maxEvent)...)},
		{name: "protobuf error status", ct: pbCT, body: func() []byte {
			var b bytes.Buffer
			st := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 410}
			if err := c.proto.Encode(st, &b); err != nil {
				t.Fatal(err)
			}
			return pb("ERROR", b.Bytes())
		}()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mt := runtime.ContentTypeJSON
			if tc.ct == pbCT {
				mt = runtime.ContentTypeProtobuf
			}
			want := c.refWatch(t, mt, tc.body)
			got := ourWatch(t, tc.ct, tc.body)
			t.Logf("client-go: %s\nours: %s", describe(want), describe(got))
			if tc.differ {
				if len(want) != 1 || want[0].Type == watch.Error || reflect.TypeOf(want[0].Object) == reflect.TypeOf(&corev1.Pod{}) {
					t.Fatalf("client-go's events %v: want one event of an object of another type", describe(want))
				}
				if len(got) != 1 || got[0].Type != watch.Error || !strings.Contains(statusText(got[0].Object), "pods.v1") {
					t.Fatalf("events %v, want one Error event naming the resource", describe(got))
				}
				return
			}
			if len(got) != len(want) {
				t.Fatalf("events %v, client-go's %v", describe(got), describe(want))
			}
			for i := range want {
				if got[i].Type != want[i].Type {
					t.Fatalf("events %v, client-go's %v", describe(got), describe(want))
				}
				if want[i].Type == watch.Error && want[i].Object.(*metav1.Status).Reason == metav1.StatusReasonInternalError {
					// A decoding error: the same Status but for the message.
					st, ok := got[i].Object.(*metav1.Status)
					if !ok || st.Code != http.StatusInternalServerError || st.Reason != metav1.StatusReasonInternalError ||
						st.Details == nil || len(st.Details.Causes) != 2 || st.Details.Causes[1].Type != "ClientWatchDecoding" {
						t.Fatalf("event %d: %+v, want a decoding error like client-go's %+v", i, got[i].Object, want[i].Object)
					}
					continue
				}
				if !reflect.DeepEqual(got[i].Object, want[i].Object) {
					t.Fatalf("event %d: %+v\nclient-go's %+v", i, got[i].Object, want[i].Object)
				}
			}
		})
	}
}

// describe lists events' types and objects' Go types.
func describe(events []watch.Event) string {
	var b strings.Builder
	for _, ev := range events {
		fmt.Fprintf(&b, "[%s %T", ev.Type, ev.Object)
		if st, ok := ev.Object.(*metav1.Status); ok {
			fmt.Fprintf(&b, " %.300s", st.Message)
		}
		b.WriteString("] ")
	}
	return b.String()
}

// refList decodes a list body as client-go's typed clients do (the
// WithoutConversion decoder of the response's media type, into a
// *PodList), returning its items and metadata or the error.
func (c codecs) refList(t *testing.T, mediaType string, body []byte) (*corev1.PodList, error) {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(c.cf.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no serializer for %s", mediaType)
	}
	into := &corev1.PodList{}
	obj, _, err := runtime.WithoutVersionDecoder{Decoder: info.Serializer}.Decode(body, nil, into)
	if err != nil {
		return nil, err
	}
	if st, ok := obj.(*metav1.Status); ok && st.Status != metav1.StatusSuccess {
		// As client-go's Result.Into turns a Status that is not a success
		// into an error.
		return nil, apierrors.FromObject(st)
	}
	if obj != into {
		return nil, fmt.Errorf("decoded a %T", obj)
	}
	return into, nil
}

// ourList lists Pods from body served with content type ct.
func ourList(t *testing.T, ct string, body []byte) (*corev1.PodList, error) {
	t.Helper()
	lw, err := NewListWatch[corev1.Pod](func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) {
		return io.NopCloser(bytes.NewReader(body)), ct, nil
	}, Options{Resource: "pods.v1"})
	if err != nil {
		t.Fatal(err)
	}
	l := &corev1.PodList{}
	lm, err := lw.ListItems(context.Background(), metav1.ListOptions{}, func(p *corev1.Pod) error {
		l.Items = append(l.Items, *p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.ListMeta = *lm
	return l, nil
}

// TestListAgreesWithClientGo decodes list bodies as client-go's typed
// clients do and with ListItems, and requires the same items and
// metadata, or an error from both. The cases marked differ are the one
// client-go accepts and ListItems refuses: a second items array after
// items were handed over (the documented streaming difference).
func TestListAgreesWithClientGo(t *testing.T) {
	c := newCodecs(t)
	p := testPod(0, "5")
	podJSON, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	typed := p.DeepCopy()
	typed.Kind, typed.APIVersion = "Pod", "v1"
	typedJSON, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	pod := string(podJSON)
	nested := func(n int) string {
		return `{"items":[{"metadata":{"name":"deep"},"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}]}`
	}
	listPB := c.encodeList(t, encProtobuf, testPods(2, "9"))
	env, err := openEnvelope(listPB)
	if err != nil {
		t.Fatal(err)
	}
	var podPB bytes.Buffer
	if err := c.proto.Encode(&p, &podPB); err != nil {
		t.Fatal(err)
	}
	podEnv, err := openEnvelope(podPB.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	gone := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`
	var goneProto bytes.Buffer
	if err := c.proto.Encode(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired, Code: 410}, &goneProto); err != nil {
		t.Fatal(err)
	}
	const jsonCT, pbCT = "application/json", "application/vnd.kubernetes.protobuf"
	cases := []struct {
		name   string
		ct     string
		body   string
		differ bool
	}{
		{name: "JSON list", ct: jsonCT, body: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[` + pod + `]}`},
		{name: "JSON null", ct: jsonCT, body: `null`},
		{name: "JSON null in white space", ct: jsonCT, body: " null\n"},
		{name: "JSON null then bytes", ct: jsonCT, body: `null x`},
		{name: "JSON empty object", ct: jsonCT, body: `{}`},
		{name: "JSON kind only", ct: jsonCT, body: `{"kind":"PodList"}`},
		{name: "JSON null items", ct: jsonCT, body: `{"items":null}`},
		{name: "JSON null metadata", ct: jsonCT, body: `{"metadata":null,"items":[]}`},
		{name: "JSON trailing bytes", ct: jsonCT, body: `{"items":[` + pod + `]}x`},
		{name: "JSON trailing white space", ct: jsonCT, body: `{"items":[` + pod + "]} \n"},
		{name: "JSON a second document", ct: jsonCT, body: `{"items":[]}{}`},
		{name: "JSON nesting at the limit", ct: jsonCT, body: nested(9997)},
		{name: "JSON nesting past the limit", ct: jsonCT, body: nested(9998)},
		{name: "JSON metadata twice", ct: jsonCT, body: `{"metadata":{"resourceVersion":"1","continue":"a"},"items":[],"metadata":{"continue":"c"}}`},
		{name: "JSON items twice, the first empty", ct: jsonCT, body: `{"items":[],"items":[` + pod + `]}`},
		{name: "JSON items twice", ct: jsonCT, body: `{"items":[` + pod + `],"items":[]}`, differ: true},
		{name: "JSON items with kinds", ct: jsonCT, body: `{"items":[` + string(typedJSON) + `,` + pod + `]}`},
		{name: "JSON kind not a string", ct: jsonCT, body: `{"kind":5,"items":[]}`},
		{name: "JSON kind in another case not a string", ct: jsonCT, body: `{"KIND":5,"items":[]}`},
		{name: "JSON apiVersion not a string", ct: jsonCT, body: `{"apiversion":[],"items":[]}`},
		{name: "JSON an array", ct: jsonCT, body: `[]`},
		{name: "JSON a Status", ct: jsonCT, body: gone},
		{name: "JSON a Status, kind last", ct: jsonCT, body: `{"status":"Failure","message":"too old","reason":"Expired","code":410,"metadata":{},"apiVersion":"v1","kind":"Status"}`},
		{name: "JSON a Status with items", ct: jsonCT, body: `{"kind":"Status","apiVersion":"v1","items":[` + pod + `],"status":"Failure","reason":"Expired","code":410}`},
		{name: "JSON a Status after items", ct: jsonCT, body: `{"items":[` + pod + `],"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}`},
		{name: "JSON a Status without status", ct: jsonCT, body: `{"kind":"Status","apiVersion":"v1","reason":"Forbidden","code":403}`},
		{name: "JSON a Status that is not one", ct: jsonCT, body: `{"kind":"Status","apiVersion":"v1","code":"410"}`},
		{name: "JSON a Status with bytes after it", ct: jsonCT, body: gone + `x`},
		{name: "protobuf a Status", ct: pbCT, body: goneProto.String()},
		{name: "JSON with a protobuf content type", ct: pbCT, body: `{"kind":"PodList","apiVersion":"v1","items":[` + pod + `]}`},
		{name: "protobuf list", ct: pbCT, body: string(listPB)},
		{name: "protobuf envelope without raw", ct: pbCT, body: string(pbEnvelope("v1", "PodList", nil))},
		{name: "protobuf envelope with a content encoding", ct: pbCT, body: string(pbEnvelope("v1", "PodList", env.raw, pbField(unknownContentEncoding, []byte("gzip"))))},
		{name: "protobuf envelope with a content type", ct: pbCT, body: string(pbEnvelope("v1", "PodList", env.raw, pbField(unknownContentType, []byte("x"))))},
		{name: "protobuf magic only", ct: pbCT, body: protoMagic},
		{name: "protobuf raw of the wrong wire type", ct: pbCT, body: protoMagic + string([]byte{unknownRaw << 3, 1})},
		{name: "protobuf typeMeta of the wrong wire type", ct: pbCT, body: protoMagic + string([]byte{unknownTypeMeta << 3, 1}) + string(pbField(unknownRaw, env.raw))},
		{name: "protobuf items of the wrong wire type", ct: pbCT, body: string(pbEnvelope("v1", "PodList", []byte{listItems << 3, 1}))},
		{name: "protobuf metadata of the wrong wire type", ct: pbCT, body: string(pbEnvelope("v1", "PodList", []byte{listMetadata<<3 | wireFixed32, 1, 2, 3, 4}))},
		{name: "protobuf unknown group in the list", ct: pbCT, body: string(pbEnvelope("v1", "PodList", slicesConcat([]byte{9<<3 | wireStartGroup, 1 << 3, 1, 9<<3 | wireEndGroup}, env.raw)))},
		{name: "protobuf raw twice, the first without items", ct: pbCT, body: string(pbEnvelope("v1", "PodList", pbField(listMetadata, []byte{0x12, 1, '1'}), pbField(unknownRaw, env.raw)))},
		{name: "protobuf raw twice", ct: pbCT, body: string(pbEnvelope("v1", "PodList", env.raw, pbField(unknownRaw, pbField(listItems, podEnv.raw)))), differ: true},
		{name: "protobuf cut after typeMeta", ct: pbCT, body: string(pbEnvelope("v1", "PodList", nil))},
		{name: "protobuf cut in raw", ct: pbCT, body: string(listPB[:len(listPB)-5])},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mt := runtime.ContentTypeJSON
			if tc.ct == pbCT {
				mt = runtime.ContentTypeProtobuf
			}
			want, wantErr := c.refList(t, mt, []byte(tc.body))
			got, err := ourList(t, tc.ct, []byte(tc.body))
			t.Logf("client-go: %v, ours: %v", wantErr, err)
			if tc.differ {
				if wantErr != nil || err == nil {
					t.Fatalf("err = %v, client-go's %v: want an error where client-go has none", err, wantErr)
				}
				return
			}
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("err = %v, client-go's %v", err, wantErr)
			}
			if err != nil {
				// An error carrying a Status carries client-go's reason and
				// code, which the reflector acts on.
				if apierrors.ReasonForError(err) != apierrors.ReasonForError(wantErr) || statusCodeOf(err) != statusCodeOf(wantErr) {
					t.Fatalf("err = %v (%s), client-go's %v (%s)", err, apierrors.ReasonForError(err), wantErr, apierrors.ReasonForError(wantErr))
				}
				return
			}
			want.TypeMeta = metav1.TypeMeta{}
			if len(want.Items) == 0 {
				want.Items = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("list %+v\nclient-go's %+v", got, want)
			}
		})
	}
}

// statusCodeOf is the code of the Status err carries; 0 for none.
func statusCodeOf(err error) int32 {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st.Status().Code
	}
	return 0
}

// TestWatchWithoutContentTypeAgreesWithClientGo watches, asking for JSON
// only, through a fetch that does not know the response's Content-Type
// (as NewRESTFetch's): client-go reads the body as the JSON the server
// sends, so a body that is not JSON is its decoding Error event, not a
// quiet end.
func TestWatchWithoutContentTypeAgreesWithClientGo(t *testing.T) {
	c := newCodecs(t)
	for _, body := range []string{"x", " x", "[]", "\n[1]", `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1"}}`, " "} {
		t.Run(body, func(t *testing.T) {
			want := c.refWatch(t, runtime.ContentTypeJSON, []byte(body))
			got := ourWatchAsking(t, ContentTypeJSON, "", []byte(body))
			if len(got) != len(want) {
				t.Fatalf("events %v, client-go's %v", describe(got), describe(want))
			}
			for i := range want {
				if got[i].Type != want[i].Type {
					t.Fatalf("events %v, client-go's %v", describe(got), describe(want))
				}
			}
		})
	}
}

// TestJSONAnswerWithoutContentType reads the JSON a server answers to a
// request for protobuf (a custom resource's) or CBOR (a server without
// CBOR serving) through a fetch that does not know the response's
// Content-Type, as NewRESTFetch's: the body is recognised as JSON, where
// client-go, which reads the header, would decode it as what it asked
// for only when the header says so (see the package documentation).
func TestJSONAnswerWithoutContentType(t *testing.T) {
	pod := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`
	for _, asked := range []string{"", ContentTypeProtobuf, ContentTypeCBOR} {
		got := ourWatchAsking(t, asked, "", []byte(jsonWatchEvent("ADDED", pod)))
		if len(got) != 1 || got[0].Type != watch.Added || got[0].Object.(*corev1.Pod).Name != "a" {
			t.Errorf("asking for %q: events %v, want the pod added", asked, describe(got))
		}
	}
	l, err := ourList(t, "", []byte(`{"kind":"PodList","apiVersion":"v1","items":[`+pod+`]}`))
	if err != nil || len(l.Items) != 1 || l.Items[0].Name != "a" {
		t.Fatalf("list asking for protobuf: %+v, %v; want the pod", l, err)
	}
	// null is no JSON object: asked for protobuf, it is not the empty
	// list it is in JSON (on which the reflector would empty its cache),
	// as client-go's protobuf decoding refuses it.
	if l, err := ourList(t, "", []byte("null")); err == nil {
		t.Fatalf("list of null asking for protobuf: %+v, want an error", l)
	}
	// Asked for CBOR, a body that does not start with '{' is CBOR: " " is
	// the integer -1, no watch event.
	if got := ourWatchAsking(t, ContentTypeCBOR, "", []byte(" ")); len(got) != 1 || got[0].Type != watch.Error {
		t.Fatalf("CBOR watch of \" \": events %v, want a decoding Error event", describe(got))
	}
}
