package wirediff_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// podGVK is the kind of every hostile body's resource.
var podGVK = corev1.SchemeGroupVersion.WithKind("Pod")

// hostile is a body both decoders must agree on: a list body, a watch
// body, or both, in an encoding.
type hostile struct {
	name  string
	enc   encoding
	list  []byte // listed when set
	watch []byte // watched when set
	// listType and watchType override the encoding's Content-Types.
	listType, watchType string
	code                int  // the status of both responses; 0 is 200
	noSplit             bool // large bodies: delivered whole only
	opts                metav1.ListOptions
}

// JSON pieces of hostile bodies.
const (
	jPod      = `{"metadata":{"name":"a","namespace":"n","resourceVersion":"5"},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	jPodB     = `{"metadata":{"name":"b","namespace":"n","resourceVersion":"6"}}`
	jPodK     = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"5"},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	jPodKB    = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"b","namespace":"n","resourceVersion":"6"}}`
	jService  = `{"kind":"Service","apiVersion":"v1","metadata":{"name":"s","namespace":"n","resourceVersion":"7"},"spec":{"clusterIP":"10.0.0.1"}}`
	jGone     = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`
	jListHead = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"c"},`
)

func jList(items ...string) string { return jListHead + `"items":[` + strings.Join(items, ",") + `]}` }
func jEv(typ, obj string) string   { return `{"type":"` + typ + `","object":` + obj + `}` }

// nested returns n nested JSON arrays.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// bigPod returns a Pod in JSON whose annotation makes it size bytes long.
func bigPod(size int) string {
	head := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"big","namespace":"n","resourceVersion":"5","annotations":{"a":"`
	tail := `"}}}`
	return head + strings.Repeat("x", max(0, size-len(head)-len(tail))) + tail
}

func jsonCases() []hostile {
	j := func(name, list, watch string) hostile {
		h := hostile{name: "json/" + name, enc: encJSON}
		if list != "" {
			h.list = []byte(list)
		}
		if watch != "" {
			h.watch = []byte(watch)
		}
		return h
	}
	const mib = 1 << 20
	cases := []hostile{
		j("list null", "null", ""),
		j("list {}", "{}", ""),
		j(`list {"kind":"PodList"}`, `{"kind":"PodList"}`, ""),
		j("list with only apiVersion", `{"apiVersion":"v1"}`, ""),
		j("list without items", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"}}`, ""),
		j("list items null", jListHead+`"items":null}`, ""),
		j("list items not an array", jListHead+`"items":{}}`, ""),
		j("list array body", `[]`, ""),
		j("list string body", `"PodList"`, ""),
		j("list empty body", " ", ""),
		j("list trailing x", jList(jPod)+"x", ""),
		j("list trailing object", jList(jPod)+"{}", ""),
		j("list trailing white space", jList(jPod)+" \n\t", ""),
		j("list metadata twice", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[`+jPod+`],"metadata":{"continue":"c"}}`, ""),
		j("list metadata twice before items", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"metadata":{"continue":"c"},"items":[`+jPod+`]}`, ""),
		j("list items twice", jListHead+`"items":[`+jPod+`,`+jPod+`],"items":[`+jPodB+`]}`, ""),
		j("list items then null items", jListHead+`"items":[`+jPod+`],"items":null}`, ""),
		j("list metadata after items", `{"kind":"PodList","apiVersion":"v1","items":[`+jPod+`],"metadata":{"resourceVersion":"9","remainingItemCount":3}}`, ""),
		j("list metadata null", `{"kind":"PodList","apiVersion":"v1","metadata":null,"items":[]}`, ""),
		j("list item null", jList("null", jPod), ""),
		j("list item not an object", jList("1"), ""),
		j("list item string", jList(`"a"`), ""),
		j("list items with kind", jList(jPodK, jPodKB), ""),
		j("list item of another kind", jList(jService), ""),
		j("list item of another apiVersion", jList(`{"kind":"Pod","apiVersion":"v2","metadata":{"name":"a"}}`), ""),
		j("list item kind only", jList(`{"kind":"Pod","metadata":{"name":"a"}}`), ""),
		j("list of another kind", `{"kind":"ServiceList","apiVersion":"v1","items":[`+jPod+`]}`, ""),
		j("list of another apiVersion", `{"kind":"PodList","apiVersion":"v2","items":[`+jPod+`]}`, ""),
		j("list a Status", jGone, ""),
		j("list a success Status", `{"kind":"Status","apiVersion":"v1","status":"Success"}`, ""),
		j("list Items key", `{"kind":"PodList","apiVersion":"v1","Items":[`+jPod+`]}`, ""),
		j("list ITEMS key", `{"kind":"PodList","apiVersion":"v1","ITEMS":[`+jPod+`]}`, ""),
		j("list KIND key", `{"KIND":"PodList","apiVersion":"v1","items":[`+jPod+`]}`, ""),
		j("list KIND key of another kind", `{"KIND":"ServiceList","kind":"PodList","apiVersion":"v1","items":[`+jPod+`]}`, ""),
		j("list Kind and kind", `{"kind":"PodList","Kind":"ServiceList","apiVersion":"v1","items":[`+jPod+`]}`, ""),
		j("list ApiVersion key", `{"kind":"PodList","ApiVersion":"v1","items":[`+jPod+`]}`, ""),
		j("list Metadata key", `{"kind":"PodList","apiVersion":"v1","Metadata":{"resourceVersion":"9"},"items":[]}`, ""),
		j("list item Metadata key", jList(`{"Metadata":{"name":"a"}}`), ""),
		j("list item duplicate name", jList(`{"metadata":{"name":"a","name":"b"}}`), ""),
		j("list item duplicate metadata", jList(`{"metadata":{"name":"a"},"metadata":{"namespace":"n"}}`), ""),
		j("list item invalid UTF-8", jList(`{"metadata":{"name":"a`+"\xff"+`"}}`), ""),
		j("list item lone surrogate", jList(`{"metadata":{"name":"\ud800"}}`), ""),
		j("list item number for a string", jList(`{"metadata":{"name":1}}`), ""),
		j("list item big integer", jList(`{"metadata":{"name":"a","generation":9223372036854775808}}`), ""),
		j("list item float generation", jList(`{"metadata":{"name":"a","generation":1.5}}`), ""),
		j("list resourceVersion a number", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":9},"items":[]}`, ""),
		j("list bad syntax in an item", jListHead+`"items":[{"metadata":{"name":"a"}`, ""),
		j("list 410 Gone", jGone, jGone),
		j("list 500 not a Status", "oops", "oops"),

		j("watch event of another kind", "", jEv("ADDED", jPodK)+jEv("ADDED", jService)),
		j("watch event without kind", "", jEv("ADDED", jPod)),
		j("watch event without apiVersion", "", jEv("ADDED", `{"kind":"Pod","metadata":{"name":"a"}}`)),
		j("watch event of another version", "", jEv("ADDED", `{"kind":"Pod","apiVersion":"v2","metadata":{"name":"a"}}`)),
		j("watch event of another group", "", jEv("ADDED", `{"kind":"Pod","apiVersion":"apps/v1","metadata":{"name":"a"}}`)),
		j("watch event of an unknown kind", "", jEv("ADDED", `{"kind":"Widget","apiVersion":"v1","metadata":{"name":"a"}}`)),
		j("watch event object null", "", jEv("ADDED", jPodK)+jEv("MODIFIED", "null")),
		j("watch event without object", "", `{"type":"ADDED"}`),
		j("watch event without type", "", `{"object":`+jPodK+`}`),
		j("watch event object twice, then null", "", `{"type":"ADDED","object":`+jPodK+`,"object":null}`),
		j("watch event object twice", "", `{"type":"ADDED","object":`+jPodK+`,"object":`+jPodKB+`}`),
		j("watch event type twice", "", `{"type":"ADDED","type":"DELETED","object":`+jPodK+`}`),
		j("watch event of an unknown type", "", jEv("ADDED", jPodK)+jEv("CHANGED", jPodKB)),
		j("watch event Type and Object keys", "", `{"Type":"ADDED","Object":`+jPodK+`}`),
		j("watch event TYPE key", "", `{"TYPE":"ADDED","object":`+jPodK+`}`),
		j("watch event object KIND key", "", jEv("ADDED", `{"KIND":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`)),
		j("watch event object Kind and kind", "", jEv("ADDED", `{"kind":"Pod","Kind":"Service","apiVersion":"v1","metadata":{"name":"a"}}`)),
		j("watch event object not an object", "", jEv("ADDED", `[1]`)),
		j("watch event not an object", "", jEv("ADDED", jPodK)+`[1]`),
		j("watch ERROR Status", "", jEv("ADDED", jPodK)+jEv("ERROR", jGone)),
		j("watch ERROR Status without kind", "", jEv("ERROR", `{"status":"Failure","code":410,"reason":"Expired"}`)),
		j("watch ERROR of a Pod", "", jEv("ERROR", jPodK)),
		j("watch ERROR null", "", jEv("ERROR", "null")),
		j("watch ADDED Status", "", jEv("ADDED", jGone)),
		j("watch BOOKMARK", "", jEv("BOOKMARK", `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}`)),
		j("watch trailing x", "", jEv("ADDED", jPodK)+"x"),
		j("watch events on lines", "", jEv("ADDED", jPodK)+"\n"+jEv("DELETED", jPodKB)+"\n"),
		j("watch events with white space", "", " \n"+jEv("ADDED", jPodK)+" \r\n\t"+jEv("DELETED", jPodKB)),
		j("watch cut in an event", "", jEv("ADDED", jPodK)+jEv("DELETED", jPodKB)[:20]),
		j("watch bad syntax in an event", "", jEv("ADDED", jPodK)+`{"type":"ADDED","object":{"kind":}}`),
		j("watch body x", "", "x"),
		j("watch body []", "", "[]"),
		j("watch body space x", "", " x"),
		j("watch body a protobuf frame", "", "\x00\x00\x00\x02ab"),
		j("watch empty body", "", ""),
		{name: "json/watch event over 16 MiB", enc: encJSON, watch: []byte(jEv("ADDED", jPodK) + jEv("ADDED", bigPod(16*mib+1024))), noSplit: true},
		{name: "json/watch event under 16 MiB", enc: encJSON, watch: []byte(jEv("ADDED", bigPod(16*mib-1024)) + jEv("DELETED", jPodK)), noSplit: true},
	}
	// Depth: apimachinery's JSON decoding limits the nesting of a document
	// to 10000 levels (sigs.k8s.io/json); a list is one document, each
	// watch event's object another.
	for _, d := range []int{100, 9995, 9996, 9997, 9998, 9999, 10000, 10001} {
		cases = append(cases,
			j(fmt.Sprintf("list item nesting %d arrays", d), jList(`{"metadata":{"name":"a"},"x":`+nested(d)+`}`), ""),
			j(fmt.Sprintf("watch object nesting %d arrays", d), "", jEv("ADDED", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"},"x":`+nested(d)+`}`)))
	}
	for i := range cases {
		switch {
		case strings.HasPrefix(cases[i].name, "json/list 410"):
			cases[i].code = 410
		case strings.HasPrefix(cases[i].name, "json/list 500"):
			cases[i].code = 500
		}
	}
	// A protobuf body answering a request for JSON only, under the JSON
	// Content-Type: both must fail rather than read it as protobuf.
	cases = append(cases, hostile{name: "json/list answered in protobuf", enc: encJSON,
		list: pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pbPod("a"))}, "", "")})
	return cases
}

// Protobuf pieces: messages built field by field.
func pbBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func pbString(b []byte, num protowire.Number, s string) []byte { return pbBytes(b, num, []byte(s)) }

func pbVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func mustMarshal(m interface{ Marshal() ([]byte, error) }) []byte {
	b, err := m.Marshal()
	if err != nil {
		panic(err)
	}
	return b
}

// pbEnvelope builds a runtime.Unknown envelope field by field: typeMeta
// (1), raw (2) for each of raws, contentEncoding (3), contentType (4).
func pbEnvelope(apiVersion, kind string, raws [][]byte, contentEncoding, contentType string) []byte {
	tm := pbString(pbString(nil, 1, apiVersion), 2, kind)
	b := pbBytes(nil, 1, tm)
	for _, r := range raws {
		b = pbBytes(b, 2, r)
	}
	if contentEncoding != "" {
		b = pbString(b, 3, contentEncoding)
	}
	if contentType != "" {
		b = pbString(b, 4, contentType)
	}
	return append([]byte(protoMagic), b...)
}

func pbPod(name string) []byte {
	return mustMarshal(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "n", ResourceVersion: "5"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}})
}

// pbListRaw is a PodList message: metadata, then items.
func pbListRaw(items ...[]byte) []byte {
	b := pbBytes(nil, 1, mustMarshal(&metav1.ListMeta{ResourceVersion: "9", Continue: "c"}))
	for _, it := range items {
		b = pbBytes(b, 2, it)
	}
	return b
}

// pbFrame frames a WatchEvent message.
func pbFrame(m []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(m))), m...)
}

// pbEvent is a framed WatchEvent of type typ whose object is obj (an
// object in its envelope).
func pbEvent(typ string, obj []byte) []byte {
	return pbFrame(mustMarshal(&metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: obj}}))
}

func protobufCases() []hostile {
	p := func(name string, list, watch []byte) hostile {
		return hostile{name: "protobuf/" + name, enc: encProtobuf, list: list, watch: watch}
	}
	pod, podB := pbPod("a"), pbPod("b")
	list := pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pod, podB)}, "", "")
	podObj := pbEnvelope("v1", "Pod", [][]byte{pod}, "", "")
	podObjB := pbEnvelope("v1", "Pod", [][]byte{podB}, "", "")
	service := pbEnvelope("v1", "Service", [][]byte{mustMarshal(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n"}})}, "", "")
	gone := pbEnvelope("v1", "Status", [][]byte{mustMarshal(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"})}, "", "")
	wrongType := func(num protowire.Number) []byte {
		return pbEnvelope("v1", "PodList", [][]byte{pbVarint(pbListRaw(pod), num, 1)}, "", "")
	}
	huge := mustMarshal(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "big", Annotations: map[string]string{"a": strings.Repeat("x", 16<<20+1024)}}})
	under := mustMarshal(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "big", Annotations: map[string]string{"a": strings.Repeat("x", 16<<20-4096)}}})
	cases := []hostile{
		p("list", list, nil),
		p("list envelope with contentEncoding", pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pod)}, "gzip", ""), nil),
		p("list envelope with contentType", pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pod)}, "", "application/json"), nil),
		p("list envelope without raw", pbEnvelope("v1", "PodList", nil, "", ""), nil),
		p("list envelope without typeMeta", append([]byte(protoMagic), pbBytes(nil, 2, pbListRaw(pod))...), nil),
		p("list envelope raw twice", pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pod), pbListRaw(podB)}, "", ""), nil),
		p("list envelope only the magic", []byte(protoMagic), nil),
		p("list without the magic", pbBytes(nil, 2, pbListRaw(pod)), nil),
		p("list envelope of ServiceList", pbEnvelope("v1", "ServiceList", [][]byte{pbListRaw(pod)}, "", ""), nil),
		p("list envelope of another version", pbEnvelope("v2", "PodList", [][]byte{pbListRaw(pod)}, "", ""), nil),
		p("list envelope of a Status", gone, nil),
		p("list items of wrong wire type", wrongType(2), nil),
		p("list metadata of wrong wire type", wrongType(1), nil),
		p("list unknown field", wrongType(99), nil),
		p("list item field of wrong wire type", pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pbVarint(nil, 1, 1))}, "", ""), nil),
		p("list item name of wrong wire type", pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pbBytes(nil, 1, pbVarint(nil, 1, 1)))}, "", ""), nil),
		p("list item name twice", pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pbBytes(nil, 1, pbString(pbString(nil, 1, "a"), 1, "b")))}, "", ""), nil),
		p("list metadata twice", pbEnvelope("v1", "PodList", [][]byte{append(pbListRaw(pod), pbBytes(nil, 1, mustMarshal(&metav1.ListMeta{Continue: "d"}))...)}, "", ""), nil),
		p("list item length past end", append(pbEnvelope("v1", "PodList", nil, "", ""), 0x12, 0x10, 0x12, 0x40, 1, 2), nil),
		p("list trailing bytes after the envelope", append(append([]byte{}, list...), 0xff), nil),
		p("list JSON with protobuf content type", []byte(jList(jPod)), nil),

		p("watch", nil, append(pbEvent("ADDED", podObj), pbEvent("DELETED", podObjB)...)),
		p("watch frame length past end", nil, append(pbEvent("ADDED", podObj), 0, 0, 3, 0xe8, 0x0a, 0x05)),
		p("watch frame header cut", nil, append(pbEvent("ADDED", podObj), 0, 0)),
		p("watch frame length zero", nil, append(pbEvent("ADDED", podObj), 0, 0, 0, 0)),
		p("watch event of another kind", nil, append(pbEvent("ADDED", podObj), pbEvent("ADDED", service)...)),
		p("watch event of another version", nil, pbEvent("ADDED", pbEnvelope("v2", "Pod", [][]byte{pod}, "", ""))),
		p("watch event without kind", nil, pbEvent("ADDED", pbEnvelope("v1", "", [][]byte{pod}, "", ""))),
		p("watch event envelope without raw", nil, pbEvent("ADDED", pbEnvelope("v1", "Pod", nil, "", ""))),
		p("watch event envelope raw twice", nil, pbEvent("ADDED", pbEnvelope("v1", "Pod", [][]byte{pod, podB}, "", ""))),
		p("watch event envelope with contentEncoding", nil, pbEvent("ADDED", pbEnvelope("v1", "Pod", [][]byte{pod}, "gzip", ""))),
		p("watch event object empty", nil, pbEvent("ADDED", nil)),
		p("watch event object JSON", nil, pbEvent("ADDED", []byte(jPodK))),
		p("watch event type twice", nil, pbFrame(append(pbString(pbString(nil, 1, "ADDED"), 1, "DELETED"), pbBytes(nil, 2, pbBytes(nil, 1, podObj))...))),
		p("watch event object twice", nil, pbFrame(append(pbString(nil, 1, "ADDED"), append(pbBytes(nil, 2, pbBytes(nil, 1, podObj)), pbBytes(nil, 2, pbBytes(nil, 1, podObjB))...)...))),
		p("watch event type of wrong wire type", nil, pbFrame(append(pbVarint(nil, 1, 1), pbBytes(nil, 2, pbBytes(nil, 1, podObj))...))),
		p("watch event of an unknown type", nil, pbEvent("CHANGED", podObj)),
		p("watch ERROR Status", nil, append(pbEvent("ADDED", podObj), pbEvent("ERROR", gone)...)),
		p("watch ADDED Status", nil, pbEvent("ADDED", gone)),
		p("watch item field of wrong wire type", nil, pbEvent("ADDED", pbEnvelope("v1", "Pod", [][]byte{pbVarint(nil, 1, 1)}, "", ""))),
		p("watch empty body", nil, []byte{}),
		p("watch JSON body with protobuf content type", nil, []byte(jEv("ADDED", jPodK))),
		{name: "protobuf/watch event over 16 MiB", enc: encProtobuf, watch: append(pbEvent("ADDED", podObj), pbEvent("ADDED", pbEnvelope("v1", "Pod", [][]byte{huge}, "", ""))...), noSplit: true},
		{name: "protobuf/watch event under 16 MiB", enc: encProtobuf, watch: append(pbEvent("ADDED", pbEnvelope("v1", "Pod", [][]byte{under}, "", "")), pbEvent("DELETED", podObj)...), noSplit: true},
	}
	return cases
}

// CBOR pieces, written head by head (RFC 8949) so that bodies can hold
// what no encoder writes (duplicate keys).
func cborHead(major byte, n uint64) []byte {
	switch {
	case n < 24:
		return []byte{major<<5 | byte(n)}
	case n < 1<<8:
		return []byte{major<<5 | 24, byte(n)}
	case n < 1<<16:
		return binary.BigEndian.AppendUint16([]byte{major<<5 | 25}, uint16(n))
	case n < 1<<32:
		return binary.BigEndian.AppendUint32([]byte{major<<5 | 26}, uint32(n))
	}
	return binary.BigEndian.AppendUint64([]byte{major<<5 | 27}, n)
}

func cText(s string) []byte { return append(cborHead(3, uint64(len(s))), s...) }

// cMap is a CBOR map of key and value pairs (values already encoded).
func cMap(kv ...any) []byte {
	b := cborHead(5, uint64(len(kv)/2))
	for i := 0; i < len(kv); i += 2 {
		b = append(b, cText(kv[i].(string))...)
		switch v := kv[i+1].(type) {
		case string:
			b = append(b, cText(v)...)
		case []byte:
			b = append(b, v...)
		}
	}
	return b
}

func cArray(items ...[]byte) []byte {
	b := cborHead(4, uint64(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

var cSelf = []byte{0xd9, 0xd9, 0xf7}

func selfDescribed(b []byte) []byte { return append(append([]byte{}, cSelf...), b...) }

var cNull = []byte{0xf6}

func cborCases() []hostile {
	c := func(name string, list, watch []byte) hostile {
		return hostile{name: "cbor/" + name, enc: encCBOR, list: list, watch: watch}
	}
	meta := func(name string) []byte { return cMap("name", name, "namespace", "n", "resourceVersion", "5") }
	pod := cMap("metadata", meta("a"))
	podK := cMap("kind", "Pod", "apiVersion", "v1", "metadata", meta("a"))
	podKB := cMap("kind", "Pod", "apiVersion", "v1", "metadata", meta("b"))
	service := cMap("kind", "Service", "apiVersion", "v1", "metadata", meta("s"))
	gone := cMap("kind", "Status", "apiVersion", "v1", "status", "Failure", "reason", "Expired", "code", cborHead(0, 410))
	lm := cMap("resourceVersion", "9")
	list := func(kv ...any) []byte { return selfDescribed(cMap(kv...)) }
	ev := func(typ string, obj []byte) []byte { return selfDescribed(cMap("type", typ, "object", obj)) }
	obj := selfDescribed
	return []hostile{
		c("list", list("kind", "PodList", "apiVersion", "v1", "metadata", lm, "items", cArray(pod, podK)), nil),
		c("list null", selfDescribed(cNull), nil),
		c("list {}", list(), nil),
		c(`list {"kind":"PodList"}`, list("kind", "PodList"), nil),
		c("list without the self-described tag", cMap("kind", "PodList", "apiVersion", "v1", "items", cArray(pod)), nil),
		c("list items twice", list("kind", "PodList", "apiVersion", "v1", "items", cArray(pod), "items", cArray(podKB)), nil),
		c("list metadata twice", list("kind", "PodList", "apiVersion", "v1", "metadata", lm, "metadata", cMap("continue", "c"), "items", cArray(pod)), nil),
		c("list item key twice", list("kind", "PodList", "apiVersion", "v1", "items", cArray(cMap("metadata", meta("a"), "metadata", meta("b")))), nil),
		c("list trailing bytes", append(list("kind", "PodList", "apiVersion", "v1", "items", cArray(pod)), 0x00), nil),
		c("list Items key", list("kind", "PodList", "apiVersion", "v1", "Items", cArray(pod)), nil),
		c("list KIND key", list("KIND", "PodList", "apiVersion", "v1", "items", cArray(pod)), nil),
		c("list of another kind", list("kind", "ServiceList", "apiVersion", "v1", "items", cArray(pod)), nil),
		c("list item null", list("kind", "PodList", "apiVersion", "v1", "items", cArray(cNull, pod)), nil),
		c("list item of another kind", list("kind", "PodList", "apiVersion", "v1", "items", cArray(service)), nil),
		c("list a Status", obj(gone), nil),

		c("watch", nil, append(ev("ADDED", obj(podK)), ev("DELETED", obj(podKB))...)),
		c("watch event of another kind", nil, append(ev("ADDED", obj(podK)), ev("ADDED", obj(service))...)),
		c("watch event without kind", nil, ev("ADDED", obj(pod))),
		c("watch event of another version", nil, ev("ADDED", obj(cMap("kind", "Pod", "apiVersion", "v2", "metadata", meta("a"))))),
		c("watch event object null", nil, ev("ADDED", cNull)),
		c("watch event object twice", nil, selfDescribed(cMap("type", "ADDED", "object", obj(podK), "object", obj(podKB)))),
		c("watch event object without the self-described tag", nil, ev("ADDED", podK)),
		c("watch ERROR Status", nil, append(ev("ADDED", obj(podK)), ev("ERROR", obj(gone))...)),
		c("watch trailing garbage", nil, append(ev("ADDED", obj(podK)), 0xff)),
		c("watch JSON body", nil, []byte(jEv("ADDED", jPodK))),
	}
}

// truncationCases cuts small bodies of every encoding at every offset.
func truncationCases() []hostile {
	pb := pbEnvelope("v1", "PodList", [][]byte{pbListRaw(pbPod("a"))}, "", "")
	pbw := append(pbEvent("ADDED", pbEnvelope("v1", "Pod", [][]byte{pbPod("a")}, "", "")), pbEvent("DELETED", pbEnvelope("v1", "Pod", [][]byte{pbPod("b")}, "", ""))...)
	podK := cMap("kind", "Pod", "apiVersion", "v1", "metadata", cMap("name", "a"))
	cl := selfDescribed(cMap("kind", "PodList", "apiVersion", "v1", "metadata", cMap("resourceVersion", "9"), "items", cArray(podK)))
	cw := append(selfDescribed(cMap("type", "ADDED", "object", selfDescribed(podK))), selfDescribed(cMap("type", "DELETED", "object", selfDescribed(podK)))...)
	bodies := []struct {
		name  string
		enc   encoding
		body  []byte
		watch bool
	}{
		{"json list", encJSON, []byte(jList(jPod, jPodKB)), false},
		{"json watch", encJSON, []byte(jEv("ADDED", jPodK) + jEv("DELETED", jPodKB)), true},
		{"protobuf list", encProtobuf, pb, false},
		{"protobuf watch", encProtobuf, pbw, true},
		{"cbor list", encCBOR, cl, false},
		{"cbor watch", encCBOR, cw, true},
	}
	var cases []hostile
	for _, b := range bodies {
		for i := range len(b.body) {
			h := hostile{name: fmt.Sprintf("truncated/%s at %d of %d", b.name, i, len(b.body)), enc: b.enc}
			if b.watch {
				h.watch = b.body[:i:i]
			} else {
				h.list = b.body[:i:i]
			}
			cases = append(cases, h)
		}
	}
	return cases
}

// TestHostile requires both decoders to agree on every hostile body: in
// both ways wire obtains bytes (through the REST client, which does not
// pass the Content-Type on, and with the Content-Type), delivered whole
// and in reads of 1..3 bytes. With -short (make wirediff), truncated
// bodies are delivered whole only and the events just under 16 MiB are
// skipped: under -race they cost more than the rest together.
func TestHostile(t *testing.T) {
	var cases []hostile
	cases = append(cases, jsonCases()...)
	cases = append(cases, protobufCases()...)
	cases = append(cases, cborCases()...)
	cases = append(cases, truncationCases()...)
	for _, h := range cases {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			runHostile(t, h)
		})
	}
}

// knownDifferences are the hostile bodies on which runtime/wire does not
// give client-go's outcome, each with the reason. The test still runs them
// and fails when one agrees (so the table only shrinks); the fuzz target
// does not seed from them. "safer" entries are kept on purpose and
// documented in runtime/wire's package doc; "open" entries are
// differences still to resolve.
var knownDifferences = map[string]string{
	// Safer: an event of another kind is an Error event, never an object of
	// another type handed to the informer (client-go hands it over and its
	// reflector drops it with a logged error).
	"json/watch event of another kind":      "safer: another kind is a decoding Error event",
	"json/watch event object Kind and kind": "safer: another kind is a decoding Error event",
	"json/watch ADDED Status":               "safer: a Status outside an ERROR event is a decoding Error event",
	"protobuf/watch event of another kind":  "safer: another kind is a decoding Error event",
	"protobuf/watch ADDED Status":           "safer: a Status outside an ERROR event is a decoding Error event",
	"cbor/watch event of another kind":      "safer: another kind is a decoding Error event",
	"json/list of another kind":             "safer: client-go gives an empty list, which would empty the cache; wire refuses it",
	"json/list Kind and kind":               "safer: client-go gives an empty list, which would empty the cache; wire refuses it",
	"json/list a success Status":            "safer: client-go gives an empty list, which would empty the cache; wire refuses it",
	"cbor/list of another kind":             "safer: client-go gives an empty list, which would empty the cache; wire refuses it",
	"json/list items twice":                 "safer: items are handed over as decoded and cannot be taken back; a second items member is an error",
	"json/list items then null items":       "safer: items are handed over as decoded and cannot be taken back; a second items member is an error",
	"protobuf/list envelope raw twice":      "safer: items are handed over as decoded and cannot be taken back; a second raw field is an error",
	"json/watch ERROR of a Pod":             "safer: an ERROR event's object must be a Status; anything else is a decoding Error event",
	// Safer: NewRESTFetch cannot see the response's Content-Type (the REST
	// client's Stream does not pass it on), and a server answers JSON to a
	// request for protobuf (a custom resource's) or for CBOR (without CBOR
	// serving); client-go reads the header, wire recognises the body, so
	// that it keeps reading those answers. With the Content-Type known,
	// both follow it.
	"protobuf/watch JSON body with protobuf content type": "safer: without the response's Content-Type a JSON body is read as JSON, as a custom resource's answer to a protobuf request must be",
	"protobuf/list JSON with protobuf content type":       "safer: without the response's Content-Type a JSON body is read as JSON, as a custom resource's answer to a protobuf request must be",
	"cbor/watch JSON body":                                "safer: without the response's Content-Type a JSON body is read as JSON, as a server without CBOR answers a CBOR request",
}

func runHostile(t *testing.T, h hostile) {
	t.Helper()
	listType, watchType := h.enc.contentType, h.enc.watchType
	if h.listType != "" {
		listType = h.listType
	}
	if h.watchType != "" {
		watchType = h.watchType
	}
	if h.code >= 300 {
		listType, watchType = runtime.ContentTypeJSON, runtime.ContentTypeJSON
	}
	base := server{list: response{code: h.code, contentType: listType, body: h.list}, watch: response{code: h.code, contentType: watchType, body: h.watch}}
	tg := target{gvk: podGVK, enc: h.enc}
	deliveries := []int{0, 3}
	if h.noSplit || (testing.Short() && strings.HasPrefix(h.name, "truncated/")) {
		deliveries = deliveries[:1]
	}
	if testing.Short() && strings.Contains(h.name, "under 16 MiB") {
		t.Skip("-short: a large body both decoders accept")
	}
	known, isKnown := knownDifferences[h.name]
	differs := false
	for _, mode := range []fetchMode{viaREST, withContentType} {
		if (h.noSplit || h.code >= 300) && mode == withContentType {
			continue // the REST client turns a failed response into an error, not the decoder
		}
		for _, maxRead := range deliveries {
			srv := base
			srv.maxRead = maxRead
			srv.seed = seedOf(h.name, mode)
			for _, d := range diffBodies(t, tg, mode, &srv, h.list != nil, h.watch != nil, h.opts) {
				differs = true
				if isKnown {
					t.Logf("known difference (%s): %s fetch, %s: %s", known, mode, deliveryName(maxRead), d)
				} else {
					t.Errorf("%s fetch, %s: %s", mode, deliveryName(maxRead), d)
				}
			}
		}
	}
	if isKnown && !differs {
		t.Errorf("listed in knownDifferences (%s) but both decoders agree now: remove it", known)
	}
}

func deliveryName(maxRead int) string {
	if maxRead == 0 {
		return "whole"
	}
	return fmt.Sprintf("reads of 1..%d bytes", maxRead)
}

// FuzzDecoders feeds arbitrary bodies to both decoders: sel picks the
// encoding (sel%3: JSON, protobuf, CBOR) and whether the body is a list or
// a watch stream (sel/3%2); the body is delivered whole through the REST
// client.
func FuzzDecoders(f *testing.F) {
	for _, h := range append(append(jsonCases(), protobufCases()...), cborCases()...) {
		if _, known := knownDifferences[h.name]; known || h.noSplit || h.code != 0 || strings.Contains(h.name, "nesting") {
			continue
		}
		enc := map[string]uint8{"json": 0, "protobuf": 1, "cbor": 2}[h.enc.name]
		if h.list != nil {
			f.Add(enc, h.list)
		}
		if h.watch != nil {
			f.Add(enc+3, h.watch)
		}
	}
	f.Fuzz(func(t *testing.T, sel uint8, body []byte) {
		enc := encodings[sel%3]
		watching := sel/3%2 == 1
		if enc.name == "protobuf" && bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) || enc.name == "cbor" && bytes.HasPrefix(body, []byte("{")) {
			// The documented difference listed as safer above: without the
			// response's Content-Type, wire reads a JSON body answering a
			// protobuf or CBOR request as JSON.
			t.Skip("a JSON body answering a protobuf or CBOR request")
		}
		srv := server{list: response{contentType: enc.contentType, body: body}, watch: response{contentType: enc.watchType, body: body}}
		tg := target{gvk: podGVK, enc: enc}
		ctx := context.Background()
		rc := restClient(t, &srv, tg)
		lw := newListWatch(t, &srv, rc, tg, viaREST)
		var d string
		if watching {
			cg, w := clientGoWatch(ctx, rc, tg, metav1.ListOptions{}), wireWatch(ctx, lw, metav1.ListOptions{})
			if saferWatchRefusal(cg, w) {
				t.Skip("the documented difference listed as safer above: an event object of another kind is a decoding Error event")
			}
			d = compareWatches(cg, w)
		} else {
			cg, w := clientGoList(ctx, rc, tg, metav1.ListOptions{}), wireList(ctx, lw, metav1.ListOptions{})
			if cg.err == nil && w.err != nil && saferListRefusal(w.err) {
				t.Skip("the documented difference listed as safer above: a list of another kind is refused")
			}
			d = compareLists(cg, w)
		}
		if d != "" {
			t.Errorf("%s %q: %s", enc.name, trimBytes(body), d)
		}
	})
}

// saferListRefusal reports whether err is wire's refusal of a list of
// another kind (or of a Status of status Success), where client-go gives
// an empty list.
func saferListRefusal(err error) bool {
	return strings.Contains(err.Error(), "the response is a ") || strings.Contains(err.Error(), "the response's apiVersion is ") ||
		strings.Contains(err.Error(), "Status instead of a list")
}

// saferWatchRefusal reports whether the first event on which the two
// watches differ is wire's decoding Error event for an object of another
// kind (or a Status outside an ERROR event, or an ERROR event whose object
// is not a Status), where client-go hands the object over.
func saferWatchRefusal(cg, w watchOutcome) bool {
	for i, ev := range w.events {
		if i < len(cg.events) && compareWatches(watchOutcome{events: cg.events[:i+1]}, watchOutcome{events: w.events[:i+1]}) == "" {
			continue
		}
		st, ok := ev.Object.(*metav1.Status)
		return ok && ev.Type == watch.Error && i < len(cg.events) && cg.events[i].Type != watch.Error &&
			strings.Contains(st.Message, " event object of kind ")
	}
	return false
}

func trimBytes(b []byte) []byte {
	if len(b) > 300 {
		return bytes.Clone(b[:300])
	}
	return b
}
