package wirerest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/bench/wirerest"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// request is what the test server saw of one request.
type request struct {
	path, query, accept, auth string
}

// TestFetchKeepsTheClientsConfiguration lists and watches through a
// clientset's REST client and requires the requests client-go's typed
// client would send: its bearer token, the options as query parameters,
// the namespace in the path, protobuf preferred only when the user set no
// content type, and the server's Status as a typed error.
func TestFetchKeepsTheClientsConfiguration(t *testing.T) {
	cases := []struct {
		name        string
		configCT    string // rest.Config.ContentType
		wireCT      string // wire.Options.ContentType
		wantAccept  string
		listStatus  int
		wantErrGone bool
	}{
		{name: "unset: protobuf preferred", wantAccept: "application/vnd.kubernetes.protobuf,application/json"},
		{name: "user set JSON, wire asks protobuf: JSON kept", configCT: "application/json", wantAccept: "application/json, */*"},
		{name: "wire asks JSON", configCT: "application/json", wireCT: wire.ContentTypeJSON, wantAccept: "application/json"},
		{name: "410 Gone", listStatus: http.StatusGone, wantAccept: "application/vnd.kubernetes.protobuf,application/json", wantErrGone: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var seen []request
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, request{r.URL.Path, r.URL.RawQuery, r.Header.Get("Accept"), r.Header.Get("Authorization")})
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				if tc.listStatus != 0 {
					w.WriteHeader(tc.listStatus)
					w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old"}`)) //nolint:errcheck // test server
					return
				}
				if r.URL.Query().Get("watch") == "true" {
					w.Write([]byte(`{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"b","namespace":"ns","resourceVersion":"8"}}}` + "\n")) //nolint:errcheck // test server
					return
				}
				w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a","namespace":"ns"}}]}`)) //nolint:errcheck // test server
			}))
			defer srv.Close()
			cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, BearerToken: "secret-token", ContentConfig: rest.ContentConfig{ContentType: tc.configCT}})
			if err != nil {
				t.Fatal(err)
			}
			lw, err := wire.NewListWatch[corev1.Pod](wirerest.Fetch(cs.CoreV1().RESTClient(), "ns", "pods", scheme.ParameterCodec), wire.Options{ContentType: tc.wireCT})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			lm, err := lw.ListItems(context.Background(), metav1.ListOptions{ResourceVersion: "0", Limit: 500}, func(p *corev1.Pod) error {
				names = append(names, p.Name)
				return nil
			})
			if tc.wantErrGone {
				if !apierrors.IsResourceExpired(err) {
					t.Fatalf("err = %v, want the server's 410 Expired as a StatusError", err)
				}
				return
			}
			if err != nil || lm.ResourceVersion != "7" || len(names) != 1 || names[0] != "a" {
				t.Fatalf("ListItems = %v, %v, %v; want item a at resourceVersion 7", names, lm, err)
			}
			w, err := lw.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "7", AllowWatchBookmarks: true})
			if err != nil {
				t.Fatal(err)
			}
			ev := <-w.ResultChan()
			w.Stop()
			if p, ok := ev.Object.(*corev1.Pod); !ok || p.Name != "b" {
				t.Fatalf("watch event = %+v, want ADDED b", ev)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []request{
				{"/api/v1/namespaces/ns/pods", "limit=500&resourceVersion=0", tc.wantAccept, "Bearer secret-token"},
				{"/api/v1/namespaces/ns/pods", "allowWatchBookmarks=true&resourceVersion=7&watch=true", tc.wantAccept, "Bearer secret-token"},
			}
			if len(seen) != len(want) {
				t.Fatalf("requests = %+v, want %+v", seen, want)
			}
			for i := range want {
				if seen[i] != want[i] {
					t.Errorf("request %d = %+v, want %+v", i, seen[i], want[i])
				}
			}
		})
	}
}
