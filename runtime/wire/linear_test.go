package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// pieceReader hands out its bytes at most size at a time, as a TCP
// connection delivers a large event in segments.
type pieceReader struct {
	b    []byte
	size int
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.size)], r.b)
	r.b = r.b[n:]
	return n, nil
}

// bigConfigMap is a ConfigMap of about size bytes of JSON.
func bigConfigMap(size int) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "ns", ResourceVersion: "7"},
		Data:       map[string]string{},
	}
	line := strings.Repeat("x", 1000)
	for i := 0; i*1024 < size; i++ {
		cm.Data["k"+strings.Repeat("0", 6-len(itoa(i)))+itoa(i)] = line
	}
	return cm
}

func itoa(i int) string {
	b, _ := json.Marshal(i) //nolint:errchkjson // an int encodes
	return string(b)
}

// TestWatchEventScanIsLinear decodes large JSON and CBOR watch events
// delivered 1 and 1448 bytes at a time and requires the bytes the
// decoder examined to stay within a small multiple of the stream's size:
// a decoder that scans each event again from its start after every read
// examines a quadratic number of bytes.
func TestWatchEventScanIsLinear(t *testing.T) {
	for _, tc := range []struct {
		enc   string
		size  int
		piece int
	}{
		{encJSON, 1 << 20, 1448},
		{encJSON, 64 << 10, 1},
		{encCBOR, 1 << 20, 1448},
		{encCBOR, 64 << 10, 1},
		{encProtobuf, 1 << 20, 1448},
	} {
		t.Run(tc.enc+"/"+itoa(tc.size)+"/"+itoa(tc.piece), func(t *testing.T) {
			cm := bigConfigMap(tc.size)
			events := []*corev1.ConfigMap{cm, cm, cm}
			body, ct := encodeConfigMapWatch(t, tc.enc, events)
			lw, err := NewListWatch[corev1.ConfigMap](func(context.Context, metav1.ListOptions, string) (io.ReadCloser, string, error) {
				return nil, "", io.EOF
			}, Options{ContentType: map[string]string{encJSON: ContentTypeJSON, encCBOR: ContentTypeCBOR, encProtobuf: ContentTypeProtobuf}[tc.enc]})
			if err != nil {
				t.Fatal(err)
			}
			d := newDecoder(&pieceReader{b: body, size: tc.piece}, ct, lw)
			for i := range events {
				ev, err := d.event()
				if err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				got, ok := ev.Object.(*corev1.ConfigMap)
				if ev.Type != watch.Modified || !ok || len(got.Data) != len(cm.Data) {
					t.Fatalf("event %d: %s %T", i, ev.Type, ev.Object)
				}
			}
			if _, err := d.event(); err != io.EOF { //nolint:errorlint // the end is io.EOF itself
				t.Fatalf("after the events: %v, want io.EOF", err)
			}
			var scanned int64
			switch tc.enc {
			case encJSON:
				scanned = d.json.scanned
			case encCBOR:
				scanned = d.cborStream.scanned
			case encProtobuf:
				scanned = d.s.n
			}
			if limit := 6 * int64(len(body)); scanned > limit {
				t.Errorf("%d bytes examined to decode %d bytes of events; want at most %d", scanned, len(body), limit)
			}
		})
	}
}

// encodeConfigMapWatch encodes MODIFIED events of cms as an API server's
// watch stream for enc, and returns its content type.
func encodeConfigMapWatch(t testing.TB, enc string, cms []*corev1.ConfigMap) ([]byte, string) {
	t.Helper()
	c := newCodecs(t)
	var out bytes.Buffer
	for _, cm := range cms {
		switch enc {
		case encJSON:
			raw, err := json.Marshal(cm)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(&metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: raw}})
			if err != nil {
				t.Fatal(err)
			}
			out.Write(b)
			out.WriteByte('\n')
		case encCBOR:
			cc := newCBORCodec(t)
			we := &metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: cc.encode(t, cm)}}
			out.Write(cc.encode(t, we))
		case encProtobuf:
			var raw bytes.Buffer
			if err := c.proto.Encode(cm, &raw); err != nil {
				t.Fatal(err)
			}
			we := &metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: raw.Bytes()}}
			var frame bytes.Buffer
			if err := c.protoStream().Encode(we, &frame); err != nil {
				t.Fatal(err)
			}
			n := frame.Len()
			out.Write([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
			out.Write(frame.Bytes())
		}
	}
	return out.Bytes(), map[string]string{encJSON: "application/json", encCBOR: "application/cbor-seq", encProtobuf: "application/vnd.kubernetes.protobuf;stream=watch"}[enc]
}
