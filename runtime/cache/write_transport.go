package cache

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct"
	"k8s.io/apimachinery/pkg/types"
)

// maxTrackedBody bounds the response bodies WrapTransport reads to record a
// write; a larger answer is passed on without being recorded.
const maxTrackedBody = 16 << 20

// WrapTransport returns a RoundTripper that records in t every write a
// client makes through rt: the answer of a successful POST, PUT or PATCH
// of an object of a resource (subresources such as status included) is
// recorded with Wrote, and of a DELETE with Deleted, or with Wrote when the
// object remains with a deletionTimestamp. Give it to a client's
// rest.Config (config.Wrap(t.WrapTransport)) and every clientset built from
// that config, typed, dynamic or metadata, records its writes. Answers in
// JSON, Kubernetes protobuf and CBOR are read; the body is handed on
// unchanged. Collection deletes are not recorded.
func (t *WriteTracker) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &writeTransport{t: t, next: rt}
}

type writeTransport struct {
	t    *WriteTracker
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (w *writeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return resp, err
	}
	target, ok := parseResourcePath(req.URL.Path)
	if !ok || req.Method != http.MethodPost && target.name == "" {
		return resp, err
	}
	if req.Method == http.MethodPost && target.subresource != "" && target.subresource != "status" {
		// A POST to another subresource (eviction, binding, token)
		// answers with an object of another kind.
		return resp, err
	}
	if resp.ContentLength > maxTrackedBody {
		return resp, err
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxTrackedBody+1))
	rest := io.Reader(bytes.NewReader(body))
	if readErr != nil || len(body) > maxTrackedBody {
		// Hand on what was read and whatever is left, unrecorded.
		resp.Body = readCloser{io.MultiReader(rest, resp.Body), resp.Body}
		return resp, err
	}
	resp.Body.Close() //nolint:errcheck // fully read
	resp.Body = io.NopCloser(rest)
	kind, meta, ok := decodeWriteAnswer(resp.Header.Get("Content-Type"), body)
	if !ok {
		return resp, err
	}
	gr := schema.GroupResource{Group: target.group, Resource: target.resource}
	switch {
	case req.Method != http.MethodDelete:
		if kind != "Status" && meta.Name != "" {
			w.t.Wrote(gr, meta)
		}
	case kind == "Status" || meta.DeletionTimestamp == nil:
		w.t.Deleted(gr, target.namespace, target.name, types.UID(meta.UID))
	default:
		w.t.Wrote(gr, meta)
	}
	return resp, err
}

// readCloser reads from r and closes c.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// resourcePath is a request path's resource and object.
type resourcePath struct {
	group, resource, namespace, name, subresource string
}

// parseResourcePath reads /api/v1/[namespaces/NS/]RESOURCE[/NAME[/SUB]] and
// /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME[/SUB]] (a namespace
// itself is /api/v1/namespaces/NAME).
func parseResourcePath(path string) (resourcePath, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var p resourcePath
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		p.group = parts[1]
		parts = parts[3:]
	default:
		return p, false
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		p.namespace = parts[1]
		parts = parts[2:]
	}
	switch len(parts) {
	case 1:
		p.resource = parts[0]
	case 2:
		p.resource, p.name = parts[0], parts[1]
	case 3:
		p.resource, p.name, p.subresource = parts[0], parts[1], parts[2]
	default:
		return p, false
	}
	return p, p.resource != ""
}

// writeAnswer is what a write's answer says about the object.
type writeAnswer struct {
	Kind     string            `json:"kind"`
	Metadata metav1.ObjectMeta `json:"metadata"`
}

// decodeWriteAnswer reads the kind and metadata of a write's answer.
func decodeWriteAnswer(contentType string, body []byte) (string, *metav1.ObjectMeta, bool) {
	mt, _, _ := mime.ParseMediaType(contentType)
	var a writeAnswer
	switch mt {
	case runtime.ContentTypeJSON:
		if json.Unmarshal(body, &a) != nil {
			return "", nil, false
		}
	case runtime.ContentTypeCBOR:
		if direct.Unmarshal(body, &a) != nil {
			return "", nil, false
		}
	case runtime.ContentTypeProtobuf:
		const magic = "k8s\x00"
		if !bytes.HasPrefix(body, []byte(magic)) {
			return "", nil, false
		}
		var u runtime.Unknown
		if u.Unmarshal(body[len(magic):]) != nil {
			return "", nil, false
		}
		a.Kind = u.Kind
		// Field 1 of every object with metadata is its ObjectMeta, as in
		// PartialObjectMetadata; the other fields are skipped.
		var m metav1.PartialObjectMetadata
		if a.Kind != "Status" && m.Unmarshal(u.Raw) != nil {
			return "", nil, false
		}
		a.Metadata = m.ObjectMeta
	default:
		return "", nil, false
	}
	return a.Kind, &a.Metadata, true
}
