package clientgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/wire"
)

// bodyServer is an in-memory API server: every GET is answered with the
// list body, or the watch body when the request is a watch, with the
// status code and JSON Content-Type. It records the Accept headers.
type bodyServer struct {
	code          int
	list, watch   []byte
	accepts, urls []string
}

func (s *bodyServer) RoundTrip(r *http.Request) (*http.Response, error) {
	s.accepts = append(s.accepts, r.Header.Get("Accept"))
	s.urls = append(s.urls, r.URL.String())
	body := s.list
	if r.URL.Query().Get("watch") == "true" {
		body = s.watch
	}
	code := s.code
	if code == 0 {
		code = http.StatusOK
	}
	return &http.Response{
		StatusCode: code, Status: strconv.Itoa(code) + " " + http.StatusText(code),
		Header:  http.Header{"Content-Type": []string{"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(body)),
		Request: r, ContentLength: int64(len(body)),
	}, nil
}

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// bothClients returns the dynamic client's resource interface and an
// unstructured wire.ListWatch, both over srv, the ListWatch's Fetch going
// through the dynamic client's own REST configuration (ConfigFor) as a
// user would build it.
func bothClients(t *testing.T, srv *bodyServer, gvr schema.GroupVersionResource) (dynamic.NamespaceableResourceInterface, *wire.UnstructuredListWatch) {
	t.Helper()
	cfg := &rest.Config{Host: "http://apiserver.invalid", Transport: srv}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rcfg := dynamic.ConfigFor(cfg)
	rcfg.GroupVersion = nil
	rc, err := rest.UnversionedRESTClientFor(rcfg)
	if err != nil {
		t.Fatal(err)
	}
	path := "/apis/" + gvr.Group + "/" + gvr.Version + "/" + gvr.Resource
	if gvr.Group == "" {
		path = "/api/" + gvr.Version + "/" + gvr.Resource
	}
	fetch := func(ctx context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
		body, err := rc.Get().AbsPath(path).VersionedParams(&opts, metav1.ParameterCodec).SetHeader("Accept", accept).Stream(ctx)
		return body, "", err
	}
	lw, err := wire.NewUnstructuredListWatch(fetch, gvr.GroupVersion().WithKind("Widget"), wire.Options{Resource: gvr.String()})
	if err != nil {
		t.Fatal(err)
	}
	return dc.Resource(gvr), lw
}

// wirePod is a Pod as a cluster serves it, for list bodies.
func wirePod(i int) corev1.Pod {
	at := metav1.Unix(1_790_000_000+int64(i), 0)
	ip := fmt.Sprintf("10.1.%d.%d", i/250, i%250)
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("web-%05d", i), Namespace: "team-" + strconv.Itoa(i%3), UID: types.UID("uid-" + strconv.Itoa(i)), ResourceVersion: strconv.Itoa(100 + i),
			CreationTimestamp: at, Labels: map[string]string{"app": "web", "pod-template-hash": "7d9f"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &at,
				FieldsType: "FieldsV1", Subresource: "status",
				FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"` + ip + `\"}":{".":{},"f:ip":{}}}}}`)}},
		},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web", Image: "registry.example/web:1",
			Ports:     []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, StartTime: &at},
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUnstructuredListWatchAsDynamicClient lists and watches the same
// bodies with client-go's dynamic client and with an unstructured
// wire.ListWatch, and requires the same objects (Go types included), the
// same list metadata and the same watch events.
func TestUnstructuredListWatchAsDynamicClient(t *testing.T) {
	pods := &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "200", Continue: "next"}}
	for i := range 30 {
		pods.Items = append(pods.Items, wirePod(i))
	}
	podList := mustMarshal(t, pods)
	widgetList := `{"apiVersion":"example.com/v1","kind":"WidgetList","metadata":{"resourceVersion":"5","remainingItemCount":2},"items":[` +
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a","namespace":"ns"},"spec":{"n":1,"f":1.5,"neg":-0,"e":1e3,"big":9223372036854775808,"s":"\u00e9\ud83d\ude00\ud83d","deep":{"a":[{"b":[null,true,[]]}],"o":{}}}},` +
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"b","labels":{"x":"y","x":"z"}},"spec":{"Kind":"K","kind":"k"}}]}`
	ev := func(typ, obj string) string { return `{"type":"` + typ + `","object":` + obj + "}\n" }
	widget := func(name, rv string) string {
		return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `","resourceVersion":"` + rv + `"},"spec":{"n":` + rv + `,"f":0.5}}`
	}
	events := ev("ADDED", widget("a", "6")) + ev("MODIFIED", widget("a", "7")) + ev("DELETED", widget("a", "8")) +
		ev("BOOKMARK", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}`) +
		ev("ADDED", `{"kind":"Status","apiVersion":"example.com/v1","code":7}`) +
		ev("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old resource version"}`)
	cases := []struct {
		name        string
		gvr         schema.GroupVersionResource
		code        int
		list, watch string
	}{
		{name: "Pods, items without kind", gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, list: string(podList),
			watch: ev("ADDED", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"n"}}`)},
		{name: "custom resources", gvr: widgetsGVR, list: widgetList, watch: events},
		{name: "list kind after the items", gvr: widgetsGVR, list: `{"items":[{"metadata":{"name":"a"}},null],"apiVersion":"example.com/v1","kind":"WidgetList"}`, watch: ""},
		{name: "items of odd kinds", gvr: widgetsGVR, list: `{"apiVersion":"example.com/v1","kind":"WidgetList","items":[{"kind":"Widget"},{"apiVersion":"x/v1"},{"kind":5},{}]}`},
		{name: "a list without a kind", gvr: widgetsGVR, list: `{"apiVersion":"example.com/v1","items":[]}`},
		{name: "a list with a numeric KIND", gvr: widgetsGVR, list: `{"apiVersion":"example.com/v1","kind":"WidgetList","KIND":1,"items":[]}`},
		{name: "a non-object item", gvr: widgetsGVR, list: `{"apiVersion":"example.com/v1","kind":"WidgetList","items":[1]}`},
		{name: "an event object without a kind", gvr: widgetsGVR, list: widgetList, watch: ev("ADDED", widget("a", "6")) + ev("ADDED", `{"apiVersion":"example.com/v1"}`)},
		{name: "an event object without an apiVersion", gvr: widgetsGVR, list: widgetList, watch: ev("ADDED", `{"kind":"Widget"}`)},
		{name: "an event object with a Kind", gvr: widgetsGVR, list: widgetList, watch: ev("MODIFIED", `{"kind":"Widget","apiVersion":"example.com/v1","Kind":{}}`)},
		{name: "an event of an unknown type", gvr: widgetsGVR, list: widgetList, watch: ev("ADDED", widget("a", "6")) + ev("CHANGED", widget("a", "7"))},
		{name: "an ERROR event of an object", gvr: widgetsGVR, list: widgetList, watch: ev("ERROR", widget("a", "6"))},
		{name: "410 Gone", gvr: widgetsGVR, code: http.StatusGone,
			list:  `{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old"}`,
			watch: `{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old"}`},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := &bodyServer{code: tc.code, list: []byte(tc.list), watch: []byte(tc.watch)}
			dyn, lw := bothClients(t, srv, tc.gvr)
			opts := metav1.ListOptions{ResourceVersion: "0", LabelSelector: "app=web"}

			want, wantErr := dyn.List(ctx, opts)
			var got []*unstructured.Unstructured
			lm, err := lw.ListItems(ctx, opts, func(u *unstructured.Unstructured) error { got = append(got, u); return nil })
			if (wantErr == nil) != (err == nil) {
				t.Fatalf("list: dynamic client: %v\nwire: %v", wantErr, err)
			}
			if wantErr == nil {
				if len(got) != len(want.Items) {
					t.Fatalf("list: %d items, the dynamic client's %d", len(got), len(want.Items))
				}
				for i := range got {
					if !reflect.DeepEqual(got[i], &want.Items[i]) {
						t.Fatalf("item %d:\n got %#v\nwant %#v", i, got[i].Object, want.Items[i].Object)
					}
				}
				wantMeta := &metav1.ListMeta{ResourceVersion: want.GetResourceVersion(), Continue: want.GetContinue(), RemainingItemCount: want.GetRemainingItemCount()}
				if !reflect.DeepEqual(lm, wantMeta) {
					t.Fatalf("list metadata %+v, the dynamic client's %+v", lm, wantMeta)
				}
			} else if apierrors.IsGone(wantErr) != apierrors.IsGone(err) {
				t.Fatalf("list: dynamic client: %v\nwire: %v (not both Gone)", wantErr, err)
			}

			wantEvents, wantErr := watchAll(ctx, func() (watch.Interface, error) { return dyn.Watch(ctx, opts) })
			gotEvents, err := watchAll(ctx, func() (watch.Interface, error) { return lw.Watch(ctx, opts) })
			if (wantErr == nil) != (err == nil) || apierrors.IsGone(wantErr) != apierrors.IsGone(err) {
				t.Fatalf("watch: dynamic client: %v\nwire: %v", wantErr, err)
			}
			if len(gotEvents) != len(wantEvents) {
				t.Fatalf("watch: events\n %s\nthe dynamic client's\n %s", describeEvents(gotEvents), describeEvents(wantEvents))
			}
			for i := range gotEvents {
				g, w := gotEvents[i], wantEvents[i]
				if decodingError(g) && decodingError(w) {
					continue // both ended the stream with an Error event of their own words
				}
				if g.Type != w.Type || !reflect.DeepEqual(g.Object, w.Object) {
					t.Fatalf("watch event %d: %s %#v\nthe dynamic client's: %s %#v", i, g.Type, g.Object, w.Type, w.Object)
				}
			}
			for _, a := range srv.accepts {
				if a != "application/json" {
					t.Errorf("Accept %q, want application/json for both", a)
				}
			}
			if len(srv.urls) == 4 && (srv.urls[0] != srv.urls[1] || srv.urls[2] != srv.urls[3]) {
				t.Errorf("requests differ: %q", srv.urls)
			}
		})
	}
}

// watchAll starts a watch and collects its events until the stream ends.
func watchAll(_ context.Context, start func() (watch.Interface, error)) ([]watch.Event, error) {
	w, err := start()
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	var events []watch.Event
	for e := range w.ResultChan() {
		events = append(events, e)
	}
	return events, nil
}

// decodingError reports whether e is the Error event a watch ends with
// when it cannot decode the stream (a 500 Status, as both write it).
func decodingError(e watch.Event) bool {
	st, ok := e.Object.(*metav1.Status)
	return ok && e.Type == watch.Error && st.Code == http.StatusInternalServerError && st.Reason == metav1.StatusReasonInternalError
}

func describeEvents(events []watch.Event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "%s %T %v\n", e.Type, e.Object, e.Object)
	}
	return b.String()
}
