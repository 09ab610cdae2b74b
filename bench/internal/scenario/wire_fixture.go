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

// wireListPath is the file holding the whole list response of n Pods in
// enc, as an API server sends it.
func wireListPath(dir, enc string, n int) string {
	return filepath.Join(dir, "pods-"+strconv.Itoa(n)+"."+enc)
}

// WriteWireFixture writes, for each size, the list response of the first n
// WirePods in both encodings into dir: JSON as the API server's encoder
// writes it, and protobuf as the "k8s\x00" envelope around a PodList. The
// server of the wire scenario serves these bytes from the files (the page
// cache), so they are not in the measured process's heap.
func WriteWireFixture(dir string, sizes ...int) error {
	for _, n := range sizes {
		if err := writeWireJSON(wireListPath(dir, EncJSON, n), n); err != nil {
			return err
		}
		if err := writeWireProto(wireListPath(dir, EncProtobuf, n), n); err != nil {
			return err
		}
	}
	return nil
}

func writeWireJSON(path string, n int) (err error) {
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
	fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[`, decodeRV)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		p := WirePod(i)
		b, err := json.Marshal(&p)
		if err != nil {
			return fmt.Errorf("pod %d: %w", i, err)
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

func writeWireProto(path string, n int) (err error) {
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
		p := WirePod(i)
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
