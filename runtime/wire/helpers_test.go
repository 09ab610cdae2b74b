package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
)

// codecs is the apimachinery machinery client-go's typed clients decode
// with, over a scheme of core/v1: the reference the tests compare to.
type codecs struct {
	scheme *runtime.Scheme
	proto  *protobuf.Serializer
	cf     serializer.CodecFactory
	// envelopedFrames makes encodeWatch wrap each protobuf event in the
	// envelope, which no API server does but ListWatch reads too.
	envelopedFrames bool
}

// protoStream returns the serializer the API server encodes protobuf
// watch events with: the codec factory's protobuf stream serializer.
func (c codecs) protoStream() runtime.Serializer {
	for _, info := range c.cf.SupportedMediaTypes() {
		if info.MediaType == runtime.ContentTypeProtobuf && info.StreamSerializer != nil {
			return info.StreamSerializer.Serializer
		}
	}
	panic("the codec factory has no protobuf stream serializer")
}

func newCodecs(t testing.TB) codecs {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	metav1.AddToGroupVersion(s, corev1.SchemeGroupVersion)
	return codecs{scheme: s, proto: protobuf.NewSerializer(s, s), cf: serializer.NewCodecFactory(s)}
}

// encodeList encodes list as the API server does for enc ("json" or
// "protobuf").
func (c codecs) encodeList(t testing.TB, enc string, list *corev1.PodList) []byte {
	t.Helper()
	list = list.DeepCopy()
	list.Kind, list.APIVersion = "PodList", "v1"
	var buf bytes.Buffer
	if enc == encProtobuf {
		if err := c.proto.Encode(list, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeList decodes b as client-go's typed clients do.
func (c codecs) decodeList(t testing.TB, b []byte) *corev1.PodList {
	t.Helper()
	obj, _, err := c.cf.UniversalDeserializer().Decode(b, nil, &corev1.PodList{})
	if err != nil {
		t.Fatal(err)
	}
	l := obj.(*corev1.PodList)
	l.TypeMeta = metav1.TypeMeta{}
	return l
}

// event is one watch event to encode: obj is a Pod or a Status.
type event struct {
	typ string
	obj runtime.Object
}

// encodeWatch encodes events as an API server's watch stream for enc.
func (c codecs) encodeWatch(t testing.TB, enc string, events []event) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, ev := range events {
		obj := ev.obj.DeepCopyObject()
		switch o := obj.(type) {
		case *corev1.Pod:
			o.Kind, o.APIVersion = "Pod", "v1"
		case *metav1.Status:
			o.Kind, o.APIVersion = "Status", "v1"
		}
		if enc == encProtobuf {
			// As the API server's watch handler writes: the object in
			// the protobuf envelope, the event through the protobuf
			// stream serializer (no envelope) in a length-prefixed frame.
			var raw bytes.Buffer
			if err := c.proto.Encode(obj, &raw); err != nil {
				t.Fatal(err)
			}
			we := &metav1.WatchEvent{Type: ev.typ, Object: runtime.RawExtension{Raw: raw.Bytes()}}
			var frame bytes.Buffer
			if err := c.protoStream().Encode(we, &frame); err != nil {
				t.Fatal(err)
			}
			if c.envelopedFrames {
				frame.Reset()
				we.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("WatchEvent"))
				if err := c.proto.Encode(we, &frame); err != nil {
					t.Fatal(err)
				}
			}
			var n [4]byte
			binary.BigEndian.PutUint32(n[:], uint32(frame.Len()))
			out.Write(n[:])
			out.Write(frame.Bytes())
			continue
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(&metav1.WatchEvent{Type: ev.typ, Object: runtime.RawExtension{Raw: raw}})
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// testPod is a Pod with the fields whose decoding has custom code
// (times, quantities, managedFields documents, int-or-string).
func testPod(i int, rv string) corev1.Pod {
	at := metav1.Unix(1_700_000_000+int64(i), 0)
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "pod-" + strconv.Itoa(i), Namespace: "ns-" + strconv.Itoa(i%3), UID: types.UID(fmt.Sprintf("uid-%d", i)),
			ResourceVersion: rv, CreationTimestamp: at, Labels: map[string]string{"app": "a" + strconv.Itoa(i%2)},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &at,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:podIP":{},"k:{\"ip\":\"10.0.0.` + strconv.Itoa(i%250) + `\"}":{}}}`)},
				Subresource: "status",
			}},
		},
		Spec: corev1.PodSpec{
			NodeName: "node-" + strconv.Itoa(i%5),
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.example/app:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi"),
				}},
			}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0." + strconv.Itoa(i%250), StartTime: &at},
	}
}

func testPods(n int, rv string) *corev1.PodList {
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for i := 0; i < n; i++ {
		l.Items = append(l.Items, testPod(i, rv))
	}
	return l
}

// fetchBytes is a Fetch that answers every request with body and records
// the requests.
type fetchBytes struct {
	body  func(opts metav1.ListOptions) ([]byte, error)
	calls []fetchCall
}

type fetchCall struct {
	opts   metav1.ListOptions
	accept string
}

func (f *fetchBytes) fetch(_ context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
	f.calls = append(f.calls, fetchCall{opts, accept})
	b, err := f.body(opts)
	if err != nil {
		return nil, "", err
	}
	return io.NopCloser(bytes.NewReader(b)), "", nil
}

// statusText is the message of an Error event's Status and of its causes
// (client-go's decoding errors quote the error in the message and give it
// as is in a cause).
func statusText(obj runtime.Object) string {
	st, ok := obj.(*metav1.Status)
	if !ok {
		return fmt.Sprintf("not a Status: %T", obj)
	}
	text := st.Message
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			text += "\n" + c.Message
		}
	}
	return text
}
