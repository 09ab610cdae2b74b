package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
)

func configMap(uid types.UID, rv string, deleting bool) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", UID: uid, ResourceVersion: rv},
	}
	if deleting {
		now := metav1.Now()
		cm.DeletionTimestamp = &now
	}
	return cm
}

func foo(uid types.UID, rv string) *samplesv1alpha1.Foo {
	return &samplesv1alpha1.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: samplesv1alpha1.GroupVersion.String(), Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foo", UID: uid, ResourceVersion: rv},
	}
}

func encodeJSON(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.NewSerializerWithOptions(json.DefaultMetaFactory, nil, nil, json.SerializerOptions{}).Encode(obj, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeProto(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme).Encode(obj, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// answer is one write's answer handed through the checker's transport.
type answer struct {
	method string
	status int
	body   []byte
}

// TestReadCheckerFindsStaleReads records writes through the transport, as
// the clients make them, then holds reads against them.
func TestReadCheckerFindsStaleReads(t *testing.T) {
	deleted := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{Name: "cm", Kind: "configmaps", UID: "u1"}}
	for _, tc := range []struct {
		name    string
		answers func(t *testing.T) []answer
		// readBefore: the read began before the writes were recorded.
		readBefore bool
		read       metav1.Object
		kind       string
		wantStale  string
	}{
		{name: "older rv after own update (JSON)", kind: "Foo",
			answers: func(t *testing.T) []answer { return []answer{{"PUT", 200, encodeJSON(t, foo("u1", "7"))}} },
			read:    foo("u1", "5"), wantStale: "returned resourceVersion 5 after this process had written 7"},
		{name: "older rv after own create (protobuf)", kind: "ConfigMap",
			answers: func(t *testing.T) []answer {
				return []answer{{"POST", 201, encodeProto(t, configMap("u1", "9", false))}}
			},
			read: configMap("u1", "8", false), wantStale: "after this process had written 9"},
		{name: "same rv", kind: "Foo",
			answers: func(t *testing.T) []answer { return []answer{{"PATCH", 200, encodeJSON(t, foo("u1", "7"))}} },
			read:    foo("u1", "7")},
		{name: "newer rv", kind: "Foo",
			answers: func(t *testing.T) []answer { return []answer{{"PUT", 200, encodeJSON(t, foo("u1", "7"))}} },
			read:    foo("u1", "12")},
		{name: "another UID of the same name", kind: "Foo",
			answers: func(t *testing.T) []answer { return []answer{{"PUT", 200, encodeJSON(t, foo("u1", "7"))}} },
			read:    foo("u2", "3")},
		{name: "read began before the write returned", kind: "Foo", readBefore: true,
			answers: func(t *testing.T) []answer { return []answer{{"PUT", 200, encodeJSON(t, foo("u1", "7"))}} },
			read:    foo("u1", "5")},
		{name: "failed write", kind: "Foo",
			answers: func(t *testing.T) []answer { return []answer{{"PUT", 409, encodeJSON(t, foo("u1", "7"))}} },
			read:    foo("u1", "5")},
		{name: "GET is no write", kind: "Foo",
			answers: func(t *testing.T) []answer { return []answer{{"GET", 200, encodeJSON(t, foo("u1", "7"))}} },
			read:    foo("u1", "5")},
		{name: "deleted UID, Status answer", kind: "ConfigMap",
			answers: func(t *testing.T) []answer { return []answer{{"DELETE", 200, encodeJSON(t, deleted)}} },
			read:    configMap("u1", "4", false), wantStale: "returned UID u1 at resourceVersion 4, which this process had deleted"},
		{name: "deleted UID, object answer", kind: "ConfigMap",
			answers: func(t *testing.T) []answer {
				return []answer{{"DELETE", 200, encodeProto(t, configMap("u1", "6", false))}}
			},
			read: configMap("u1", "6", false), wantStale: "which this process had deleted"},
		{name: "delete answered with a deletionTimestamp is a write", kind: "ConfigMap",
			answers: func(t *testing.T) []answer {
				return []answer{{"DELETE", 200, encodeJSON(t, configMap("u1", "6", true))}}
			},
			read: configMap("u1", "6", false)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stale []string
			c, err := newReadChecker(func(key, what string) { stale = append(stale, key+": "+what) })
			if err != nil {
				t.Fatal(err)
			}
			mark := c.begin()
			for _, a := range tc.answers(t) {
				rt := c.WrapTransport(roundTripFunc(func(*http.Request) (*http.Response, error) {
					return &http.Response{StatusCode: a.status, Body: io.NopCloser(bytes.NewReader(a.body))}, nil
				}))
				req, _ := http.NewRequest(a.method, "https://example.invalid/x", nil)
				resp, err := rt.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				if !bytes.Equal(got, a.body) {
					t.Fatalf("the transport changed the answer's body")
				}
			}
			if !tc.readBefore {
				mark = c.begin()
			}
			c.check(mark, tc.kind, tc.read)
			switch {
			case tc.wantStale == "" && len(stale) > 0:
				t.Fatalf("stale reads reported: %q", stale)
			case tc.wantStale != "" && (len(stale) != 1 || !strings.Contains(stale[0], tc.wantStale)):
				t.Fatalf("stale reads %q, want one with %q", stale, tc.wantStale)
			}
		})
	}
}

// TestReadCheckerNotFound: a NotFound is stale only when the server still
// holds the UID this process wrote.
func TestReadCheckerNotFound(t *testing.T) {
	for _, tc := range []struct {
		name      string
		liveUID   types.UID
		liveFound bool
		deleted   bool
		wantStale bool
	}{
		{name: "still on the server", liveUID: "u1", liveFound: true, wantStale: true},
		{name: "gone from the server", liveFound: false},
		{name: "recreated under another UID", liveUID: "u2", liveFound: true},
		{name: "deleted by this process", liveUID: "u1", liveFound: true, deleted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stale []string
			c, err := newReadChecker(func(key, what string) { stale = append(stale, key+": "+what) })
			if err != nil {
				t.Fatal(err)
			}
			c.live = func(_ context.Context, kind, ns, name string) (types.UID, bool, error) {
				if kind != "ConfigMap" || ns != "ns" || name != "cm" {
					t.Errorf("live read of %s %s/%s", kind, ns, name)
				}
				return tc.liveUID, tc.liveFound, nil
			}
			c.recordAnswer(http.MethodPost, encodeJSON(t, configMap("u1", "3", false)))
			if tc.deleted {
				c.recordDelete("u1")
			}
			c.checkNotFound(c.begin(), "ConfigMap", "ns", "cm")
			if got := len(stale) > 0; got != tc.wantStale {
				t.Fatalf("stale reads %q, want stale=%v", stale, tc.wantStale)
			}
		})
	}
}
