// Package apiserver serves list and watch requests of unstructured
// resources over HTTP, as a kube-apiserver does in JSON, from fake.Servers,
// and counts the connections open and the watches under way: what the
// dynamic informers' tests (in the runtime and in the clientgo module)
// need to see that nothing is left running after an informer is removed.
package apiserver

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/fake"
)

// Resource is a fake.Server of one resource and the kind its objects
// have.
type Resource struct {
	Server *fake.Server[*unstructured.Unstructured]
	Kind   string
}

// NewResource returns a Resource of group whose objects are of kind (its
// resource is the lower-cased kind plus "s"), holding objs with that kind.
func NewResource(t testing.TB, group, kind string, objs ...*unstructured.Unstructured) Resource {
	t.Helper()
	srv := fake.NewServer[*unstructured.Unstructured](fake.WithResource(schema.GroupResource{Group: group, Resource: strings.ToLower(kind) + "s"}))
	for _, o := range objs {
		o.SetKind(kind)
		if _, err := srv.Create(o); err != nil {
			t.Fatal(err)
		}
	}
	return Resource{Server: srv, Kind: kind}
}

// Server serves the list and watch requests of several resources over
// HTTP from fake.Servers, as JSON like a kube-apiserver, and counts the
// connections open and the watch requests under way.
type Server struct {
	*httptest.Server
	resources map[schema.GroupVersionResource]Resource
	codec     runtime.ParameterCodec

	mu      sync.Mutex
	conns   int
	watches int
}

// New starts a Server of resources, closed when the test ends.
func New(t testing.TB, resources map[schema.GroupVersionResource]Resource) *Server {
	t.Helper()
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	s := &Server{resources: resources, codec: runtime.NewParameterCodec(scheme)}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch st {
		case http.StateNew:
			s.conns++
		case http.StateClosed, http.StateHijacked:
			s.conns--
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// Open returns the connections open and the watches being served.
func (s *Server) Open() (conns, watches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns, s.watches
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	gvr, ns, ok := parsePath(r.URL.Path)
	rs, served := s.resources[gvr]
	if !ok || !served {
		writeStatus(w, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound,
			Reason: metav1.StatusReasonNotFound, Message: "the server could not find the requested resource"}})
		return
	}
	var opts metav1.ListOptions
	if err := s.codec.DecodeParameters(r.URL.Query(), metav1.SchemeGroupVersion, &opts); err != nil {
		writeStatus(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	apiVersion := gvr.GroupVersion().String()
	setKind := func(u *unstructured.Unstructured) {
		if u.GetKind() == "" {
			u.SetAPIVersion(apiVersion)
			u.SetKind(rs.Kind)
		}
	}
	lw := rs.Server.ListerWatcher(ns)
	w.Header().Set("Content-Type", "application/json")
	if !opts.Watch {
		obj, err := lw.List(r.Context(), opts)
		if err != nil {
			writeStatus(w, err)
			return
		}
		l := obj.(*fake.List[*unstructured.Unstructured])
		out := map[string]any{"kind": rs.Kind + "List", "apiVersion": apiVersion,
			"metadata": map[string]any{"resourceVersion": l.ResourceVersion, "continue": l.Continue}}
		items := make([]any, 0, len(l.Items))
		for _, u := range l.Items {
			setKind(u)
			items = append(items, u.Object)
		}
		out["items"] = items
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	wi, err := lw.Watch(r.Context(), opts)
	if err != nil {
		writeStatus(w, err)
		return
	}
	defer wi.Stop()
	s.mu.Lock()
	s.watches++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.watches--
		s.mu.Unlock()
	}()
	flusher := w.(http.Flusher)
	flusher.Flush()
	enc := json.NewEncoder(w)
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return
			}
			var obj any = ev.Object
			if u, ok := ev.Object.(*unstructured.Unstructured); ok {
				setKind(u)
				obj = u.Object
			}
			if err := enc.Encode(map[string]any{"type": ev.Type, "object": obj}); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

// parsePath reads a resource path as the dynamic client (and
// dynamicinformer.ResourcePath) writes it.
func parsePath(p string) (schema.GroupVersionResource, string, bool) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	var gvr schema.GroupVersionResource
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		gvr.Version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		gvr.Group, gvr.Version, parts = parts[1], parts[2], parts[3:]
	default:
		return gvr, "", false
	}
	ns := ""
	if len(parts) == 3 && parts[0] == "namespaces" {
		ns, parts = parts[1], parts[2:]
	}
	if len(parts) != 1 {
		return gvr, "", false
	}
	gvr.Resource = parts[0]
	return gvr, ns, true
}

func writeStatus(w http.ResponseWriter, err error) {
	st := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		st = se.Status()
	}
	st.Kind, st.APIVersion = "Status", "v1"
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}
