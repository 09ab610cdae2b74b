package scenario

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Wire encodings: what the server sends in the wire scenario.
const (
	EncJSON     = "json"
	EncProtobuf = "protobuf"
)

// WirePod is DecodePod(i) with only the two managers every Pod of a
// Deployment has: kube-controller-manager (its fields document is the same
// for every Pod of a template) and the kubelet (its status entry names the
// Pod's own IP, so it differs for every Pod).
func WirePod(i int) corev1.Pod {
	p := DecodePod(i)
	p.ManagedFields = p.ManagedFields[:2]
	return p
}

// Wire fixtures: which Pods the wire scenario serves.
const (
	// PodsTwoManagers is WirePod: the two managers every Pod has.
	PodsTwoManagers = "two"
	// PodsRich is DecodePod: up to three more managers per template.
	PodsRich = "rich"
)

// wirePodFunc returns the Pod generator of a wire fixture.
func wirePodFunc(pods string) (func(int) corev1.Pod, error) {
	switch pods {
	case PodsTwoManagers:
		return WirePod, nil
	case PodsRich:
		return DecodePod, nil
	}
	return nil, fmt.Errorf("wire fixture %q: want %q or %q", pods, PodsTwoManagers, PodsRich)
}

// wireListPath is the file holding the whole list response of n Pods of
// the fixture pods in enc, as an API server sends it.
func wireListPath(dir, pods, enc string, n int) string {
	return filepath.Join(dir, pods+"-"+strconv.Itoa(n)+"."+enc)
}

// wireStreamPath is the file holding the watch-list stream of the same
// Pods in enc: an ADDED event for each, then the initial-events-end
// bookmark.
func wireStreamPath(dir, pods, enc string, n int) string {
	return wireListPath(dir, pods, enc, n) + "-watchlist"
}

// WriteWireFixture writes, for each size, the list response and the
// watch-list stream of the first n Pods of the fixture pods (PodsTwoManagers
// or PodsRich) in both encodings into dir, as the API server's encoders
// write them: a JSON list, and protobuf as the "k8s\x00" envelope around a
// PodList; a JSON stream of newline-separated events, and protobuf as
// length-prefixed WatchEvent frames whose objects are enveloped Pods. The
// server of the wire scenario serves these bytes from the files (the page
// cache), so they are not in the measured process's heap.
func WriteWireFixture(dir, pods string, sizes ...int) error {
	pod, err := wirePodFunc(pods)
	if err != nil {
		return err
	}
	for _, n := range sizes {
		if err := writeWireJSON(wireListPath(dir, pods, EncJSON, n), n, pod); err != nil {
			return err
		}
		if err := writeWireProto(wireListPath(dir, pods, EncProtobuf, n), n, pod); err != nil {
			return err
		}
		for _, enc := range []string{EncJSON, EncProtobuf} {
			if err := writeWireStream(wireStreamPath(dir, pods, enc, n), enc, n, pod); err != nil {
				return fmt.Errorf("%s watch-list stream of %d Pods: %w", enc, n, err)
			}
		}
	}
	return nil
}

func writeWireJSON(path string, n int, pod func(int) corev1.Pod) error {
	return writeJSONList(path, "PodList", "v1", n, pod)
}

// writeJSONList writes a list of kind and apiVersion holding item(0)
// through item(n-1) as the API server serves it in JSON.
func writeJSONList[T any](path, kind, apiVersion string, n int, item func(int) T) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":"%d"},"items":[`, kind, apiVersion, decodeRV)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		it := item(i)
		b, err := json.Marshal(&it)
		if err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
		w.Write(b)
	}
	w.WriteString("]}\n")
	return w.Flush()
}

// protoField appends a length-delimited protobuf field.
func protoField(b []byte, field int, val []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(val)))
	return append(b, val...)
}

func writeWireProto(path string, n int, pod func(int) corev1.Pod) (err error) {
	// The items go to a scratch file first: the list's length precedes them.
	tmp, err := os.CreateTemp(filepath.Dir(path), "items-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	tw := bufio.NewWriterSize(tmp, 1<<20)
	lm, err := (&metav1.ListMeta{ResourceVersion: strconv.Itoa(decodeRV)}).Marshal()
	if err != nil {
		return err
	}
	list := protoField(nil, 1, lm)
	size := int64(len(list))
	var buf []byte
	for i := 0; i < n; i++ {
		p := pod(i)
		b, err := p.Marshal()
		if err != nil {
			return fmt.Errorf("pod %d: %w", i, err)
		}
		buf = protoField(buf[:0], 2, b)
		size += int64(len(buf))
		tw.Write(buf)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	typeMeta := protoField(protoField(nil, 1, []byte("v1")), 2, []byte("PodList"))
	head := []byte("k8s\x00")
	head = protoField(head, 1, typeMeta)
	head = binary.AppendUvarint(head, 2<<3|2)
	head = binary.AppendUvarint(head, uint64(size))
	head = append(head, list...)
	w.Write(head)
	if _, err := io.Copy(w, tmp); err != nil {
		return err
	}
	// contentEncoding and contentType, empty, as the API server writes them.
	w.Write(protoField(protoField(nil, 3, nil), 4, nil))
	return w.Flush()
}

// protoEnvelope is obj as the API server's protobuf serializer writes a
// single object: "k8s\x00" and a runtime.Unknown holding its apiVersion,
// kind and bytes, with empty contentEncoding and contentType.
func protoEnvelope(apiVersion, kind string, obj []byte) []byte {
	typeMeta := protoField(protoField(nil, 1, []byte(apiVersion)), 2, []byte(kind))
	b := protoField([]byte("k8s\x00"), 1, typeMeta)
	b = protoField(b, 2, obj)
	return protoField(protoField(b, 3, nil), 4, nil)
}

// wireBookmark is the initial-events-end bookmark of a watch-list stream.
func wireBookmark() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.Itoa(decodeRV),
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}},
	}
}

// writeWireStream writes the watch-list stream of the first n Pods in enc
// as the API server's watch handler frames it: JSON events one per line,
// each object with its kind and apiVersion; protobuf frames of a 4-byte
// big-endian length and a bare metav1.WatchEvent (the stream serializer
// adds no envelope), whose object is the Pod's enveloped encoding (the
// embedded encoder's).
func writeWireStream(path, enc string, n int, pod func(int) corev1.Pod) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	event := func(typ string, p *corev1.Pod) error {
		if enc == EncJSON {
			p.TypeMeta = metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}
			b, err := json.Marshal(p)
			if err != nil {
				return err
			}
			e, err := json.Marshal(&metav1.WatchEvent{Type: typ, Object: k8sruntime.RawExtension{Raw: b}})
			if err != nil {
				return err
			}
			w.Write(e)
			return w.WriteByte('\n')
		}
		b, err := p.Marshal()
		if err != nil {
			return err
		}
		e, err := (&metav1.WatchEvent{Type: typ, Object: k8sruntime.RawExtension{Raw: protoEnvelope("v1", "Pod", b)}}).Marshal()
		if err != nil {
			return err
		}
		w.Write(binary.BigEndian.AppendUint32(nil, uint32(len(e))))
		_, err = w.Write(e)
		return err
	}
	for i := 0; i < n; i++ {
		p := pod(i)
		if err := event(string(watch.Added), &p); err != nil {
			return fmt.Errorf("pod %d: %w", i, err)
		}
	}
	if err := event(string(watch.Bookmark), wireBookmark()); err != nil {
		return fmt.Errorf("bookmark: %w", err)
	}
	return w.Flush()
}
