package scenario

import (
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// wireServer is a real HTTP server (httptest, over loopback TCP) answering
// a client's requests for one resource (all namespaces; Pods unless built
// by newWireServerFor) from the wire fixture files, in the encoding
// the request's Accept header prefers: lists with the list response;
// watch-lists (sendInitialEvents=true with resourceVersionMatch
// NotOlderThan) with the watch-list stream, after which the stream stays
// open and sends nothing until the request ends; plain watches with such an
// open stream. A watch with sendInitialEvents and any other
// resourceVersionMatch is refused with 400, as the API server does.
type wireServer struct {
	*httptest.Server
	dir  string
	pods string
	path string // the resource's collection path, all namespaces
	n    int

	mu         sync.Mutex
	lists      map[string]int // by encoding served
	watches    int            // plain watches
	watchLists map[string]int // by encoding served
	accepts    []string       // of lists and watch-lists
}

func newWireServer(dir, pods string, n int) *wireServer {
	return newWireServerFor(dir, pods, "/api/v1/pods", n)
}

// newWireServerFor is a wireServer of the resource at path (its collection
// across all namespaces, such as /apis/GROUP/VERSION/RESOURCE) serving the
// fixture named pods.
func newWireServerFor(dir, pods, path string, n int) *wireServer {
	s := &wireServer{dir: dir, pods: pods, path: path, n: n, lists: map[string]int{}, watchLists: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// prefersProtobuf reports whether an Accept header puts Kubernetes'
// protobuf first, as client-go does when it prefers it.
func prefersProtobuf(accept string) bool {
	return strings.HasPrefix(strings.TrimSpace(accept), "application/vnd.kubernetes.protobuf")
}

func (s *wireServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.URL.Path != s.path {
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
		return
	}
	accept := r.Header.Get("Accept")
	enc, ct := EncJSON, "application/json"
	if prefersProtobuf(accept) {
		enc, ct = EncProtobuf, "application/vnd.kubernetes.protobuf"
	}
	q := r.URL.Query()
	if q.Get("sendInitialEvents") == "true" && q.Get("resourceVersionMatch") != string(metav1.ResourceVersionMatchNotOlderThan) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"BadRequest","code":400,"message":"sendInitialEvents needs resourceVersionMatch NotOlderThan"}`)) //nolint:errcheck // the client hanging up ends it
		return
	}
	if wq := q.Get("watch"); wq != "true" && wq != "1" {
		s.mu.Lock()
		s.lists[enc]++
		s.accepts = append(s.accepts, accept)
		s.mu.Unlock()
		s.serveFile(w, r, ct, wireListPath(s.dir, s.pods, enc, s.n), false)
		return
	}
	if enc == EncProtobuf {
		ct += ";stream=watch"
	}
	if q.Get("sendInitialEvents") == "true" {
		s.mu.Lock()
		s.watchLists[enc]++
		s.accepts = append(s.accepts, accept)
		s.mu.Unlock()
		s.serveFile(w, r, ct, wireStreamPath(s.dir, s.pods, enc, s.n), true)
		return
	}
	s.mu.Lock()
	s.watches++
	s.mu.Unlock()
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// serveFile answers with the bytes of path as content type ct; a watch
// then stays open until the request ends.
func (s *wireServer) serveFile(w http.ResponseWriter, r *http.Request, ct, path string, watching bool) {
	f, err := os.Open(path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f); err != nil || !watching {
		return // the client hung up, or the list is complete
	}
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// served returns the lists and watch-lists served per encoding, the plain
// watches, and the Accept headers of the lists and watch-lists.
func (s *wireServer) served() (lists map[string]int, watches int, watchLists map[string]int, accepts []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.lists), s.watches, maps.Clone(s.watchLists), slices.Clone(s.accepts)
}
