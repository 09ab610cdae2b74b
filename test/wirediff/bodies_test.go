package wirediff_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	cborserializer "k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// protoMagic starts every Kubernetes protobuf object (the runtime.Unknown
// envelope).
const protoMagic = "k8s\x00"

var (
	protoSerializer = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	cborSerializer  = cborserializer.NewSerializer(scheme.Scheme, scheme.Scheme)
	// cborStream is the CBOR serializer of watch events, as
	// cbor.NewSerializerInfo configures its StreamSerializer.
	cborStream = cborserializer.NewSerializer(scheme.Scheme, scheme.Scheme, cborserializer.Transcode(false))
)

// encodeObject encodes obj as gvk in enc as the API server encodes a
// top-level object: JSON, protobuf in its envelope, CBOR with the
// self-described tag.
func encodeObject(enc encoding, obj runtime.Object, gvk schema.GroupVersionKind) ([]byte, error) {
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	var b bytes.Buffer
	var err error
	switch enc.name {
	case "json":
		var j []byte
		j, err = json.Marshal(obj)
		b.Write(j)
	case "protobuf":
		err = protoSerializer.Encode(obj, &b)
	case "cbor":
		err = cborSerializer.Encode(obj, &b)
	}
	return b.Bytes(), err
}

// event is one watch event: its type and its object's bytes as the
// encoding's watch stream embeds them (JSON text, a protobuf envelope, a
// CBOR data item).
type event struct {
	typ string
	obj []byte
}

// watchBody frames events as the API server writes a watch stream: JSON
// events concatenated with nothing between them, protobuf WatchEvent
// messages each after its 4-byte big-endian length, CBOR WatchEvents
// concatenated as apimachinery's CBOR stream serializer writes them.
func watchBody(enc encoding, events []event) ([]byte, error) {
	var b bytes.Buffer
	for _, e := range events {
		switch enc.name {
		case "json":
			typ, err := json.Marshal(e.typ)
			if err != nil {
				return nil, err
			}
			b.WriteString(`{"type":`)
			b.Write(typ)
			b.WriteString(`,"object":`)
			b.Write(e.obj)
			b.WriteString(`}`)
		case "protobuf":
			we := metav1.WatchEvent{Type: e.typ, Object: runtime.RawExtension{Raw: e.obj}}
			m, err := we.Marshal()
			if err != nil {
				return nil, err
			}
			b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(m))))
			b.Write(m)
		case "cbor":
			we := metav1.WatchEvent{Type: e.typ, Object: runtime.RawExtension{Raw: e.obj}}
			if err := cborStream.Encode(&we, &b); err != nil {
				return nil, err
			}
		}
	}
	return b.Bytes(), nil
}

// jsonList returns a JSON list of items (their JSON text as is).
func jsonList(gvk schema.GroupVersionKind, lm metav1.ListMeta, items [][]byte) ([]byte, error) {
	m, err := json.Marshal(lm)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, gvk.Kind+"List", gvk.GroupVersion().String(), m)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteString("]}")
	return b.Bytes(), nil
}

// protoList returns a protobuf list of items (each the raw message of an
// object, without envelope): the envelope of kind <Kind>List whose raw
// field is the list message, metadata as field 1 and items as field 2,
// as every k8s.io/api list's generated.proto numbers them.
func protoList(gvk schema.GroupVersionKind, lm metav1.ListMeta, items [][]byte) ([]byte, error) {
	m, err := lm.Marshal()
	if err != nil {
		return nil, err
	}
	raw := protowire.AppendTag(nil, 1, protowire.BytesType)
	raw = protowire.AppendBytes(raw, m)
	for _, it := range items {
		raw = protowire.AppendTag(raw, 2, protowire.BytesType)
		raw = protowire.AppendBytes(raw, it)
	}
	return envelope(gvk.GroupVersion().String(), gvk.Kind+"List", raw), nil
}

// envelope returns the runtime.Unknown envelope around raw.
func envelope(apiVersion, kind string, raw []byte) []byte {
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw}
	m, err := u.Marshal()
	if err != nil {
		panic(err) // cannot fail
	}
	return append([]byte(protoMagic), m...)
}

// unenvelope returns the raw message inside a protobuf object's envelope.
func unenvelope(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, []byte(protoMagic)) {
		return nil, fmt.Errorf("no %q prefix", protoMagic)
	}
	var u runtime.Unknown
	if err := u.Unmarshal(b[len(protoMagic):]); err != nil {
		return nil, err
	}
	return u.Raw, nil
}
