package wire

import (
	"context"
	"errors"
	"io"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// limiter stands in for client-go's flowcontrol.RateLimiter.
type limiter interface{ Wait(context.Context) error }

// recordedRequest stands in for client-go's *rest.Request: it records how
// the request was built, in call order.
type recordedRequest struct {
	calls   []string
	query   url.Values
	timeout time.Duration
	accept  string
	// limiterSet is whether Throttle was called, and limiterNil whether
	// with nil.
	limiterSet, limiterNil bool
	err                    error // what Stream returns
}

func (r *recordedRequest) NamespaceIfScoped(ns string, scoped bool) *recordedRequest {
	if scoped {
		r.calls = append(r.calls, "namespace "+ns)
	}
	return r
}

func (r *recordedRequest) Resource(res string) *recordedRequest {
	r.calls = append(r.calls, "resource "+res)
	return r
}

func (r *recordedRequest) VersionedParams(obj runtime.Object, codec runtime.ParameterCodec) *recordedRequest {
	q, err := codec.EncodeParameters(obj, schema.GroupVersion{Group: "samples.example.com", Version: "v1"})
	if err != nil {
		r.err = err
	}
	r.query = q
	return r
}

func (r *recordedRequest) UseProtobufAsDefault() *recordedRequest {
	r.accept = "protobuf-if-unset"
	return r
}

func (r *recordedRequest) SetHeader(key string, values ...string) *recordedRequest {
	if key == "Accept" {
		r.accept = strings.Join(values, ",")
	}
	return r
}

func (r *recordedRequest) Timeout(d time.Duration) *recordedRequest {
	r.timeout = d
	return r
}

func (r *recordedRequest) Throttle(l limiter) *recordedRequest {
	r.limiterSet, r.limiterNil = true, l == nil
	return r
}

func (r *recordedRequest) Stream(context.Context) (io.ReadCloser, error) {
	if r.err != nil {
		return nil, r.err
	}
	return io.NopCloser(strings.NewReader("{}")), nil
}

// TestRESTFetchBuildsTheTypedClientsRequest requires the request a
// client-go typed client's List and Watch would build: namespace only when
// set, the resource, the options as query parameters, their timeout as the
// request's, protobuf preferred only through UseProtobufAsDefault (which
// keeps a content type the user configured), and watches not throttled.
func TestRESTFetchBuildsTheTypedClientsRequest(t *testing.T) {
	ts := int64(290)
	yes := true
	cases := []struct {
		name      string
		namespace string
		opts      metav1.ListOptions
		accept    string
		want      recordedRequest
		query     string
	}{
		{
			name: "namespaced list, protobuf", namespace: "shop",
			opts:   metav1.ListOptions{ResourceVersion: "0", Limit: 500, LabelSelector: "app=web"},
			accept: ContentTypeProtobuf + ", " + ContentTypeJSON,
			want:   recordedRequest{calls: []string{"namespace shop", "resource foos"}, accept: "protobuf-if-unset"},
			query:  "labelSelector=app%3Dweb&limit=500&resourceVersion=0",
		},
		{
			name:   "all namespaces, JSON watch with timeout",
			opts:   metav1.ListOptions{Watch: true, ResourceVersion: "12", TimeoutSeconds: &ts, AllowWatchBookmarks: true},
			accept: ContentTypeJSON,
			want: recordedRequest{calls: []string{"resource foos"}, accept: ContentTypeJSON, timeout: 290 * time.Second,
				limiterSet: true, limiterNil: true},
			query: "allowWatchBookmarks=true&resourceVersion=12&timeoutSeconds=290&watch=true",
		},
		{
			name:   "watch-list",
			opts:   metav1.ListOptions{Watch: true, SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true},
			accept: ContentTypeProtobuf + ", " + ContentTypeJSON,
			want:   recordedRequest{calls: []string{"resource foos"}, accept: "protobuf-if-unset", limiterSet: true, limiterNil: true},
			query:  "allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := &recordedRequest{}
			f := restFetch[*recordedRequest, limiter](func() *recordedRequest { return req }, tc.namespace, "foos")
			body, ct, err := f(context.Background(), tc.opts, tc.accept)
			if err != nil {
				t.Fatal(err)
			}
			body.Close()
			if ct != "" {
				t.Errorf("content type %q, want \"\" (recognised from the body)", ct)
			}
			if got := req.query.Encode(); got != tc.query {
				t.Errorf("query %s, want %s", got, tc.query)
			}
			req.query = nil
			if !reflect.DeepEqual(*req, tc.want) {
				t.Errorf("request %+v, want %+v", *req, tc.want)
			}
		})
	}
	t.Run("the request's error is returned as is", func(t *testing.T) {
		boom := errors.New("boom")
		f := restFetch[*recordedRequest, limiter](func() *recordedRequest { return &recordedRequest{err: boom} }, "", "foos")
		if _, _, err := f(context.Background(), metav1.ListOptions{}, ContentTypeJSON); !errors.Is(err, boom) {
			t.Errorf("err = %v, want %v", err, boom)
		}
	})
}

// restClientStandIn has client-go's REST client's Get, but is not it.
type restClientStandIn struct{}

func (*restClientStandIn) Get() *recordedRequest { return &recordedRequest{} }

// TestNewRESTFetchRefusesOtherClients: only client-go's *rest.RESTClient
// gets a Fetch; a nil one (what fake clientsets return) and any other
// type do not. The client-go case runs in the modules that import
// client-go (examples/crd, test/e2e).
func TestNewRESTFetchRefusesOtherClients(t *testing.T) {
	var nilStandIn *restClientStandIn
	cases := map[string]RESTClient[*recordedRequest]{
		"another REST client": &restClientStandIn{},
		"a nil pointer":       nilStandIn,
		"a nil interface":     nil,
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if f, ok := NewRESTFetch(c, "", "foos"); ok || f != nil {
				t.Errorf("NewRESTFetch = %v, %v; want nil, false", f != nil, ok)
			}
		})
	}
}
