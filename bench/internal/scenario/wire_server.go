package scenario

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
)

// wireServer is a real HTTP server (httptest, over loopback TCP) answering
// a clientset's Pod lists from the wire fixture files, in the encoding the
// request's Accept header prefers, and Pod watches with an open stream that
// sends nothing until the request ends. It refuses watch-list requests
// (sendInitialEvents) with 400, which makes either side list instead.
type wireServer struct {
	*httptest.Server
	dir string
	n   int

	mu         sync.Mutex
	lists      map[string]int // by encoding served
	watches    int
	watchLists int // refused
	accepts    []string
}

func newWireServer(dir string, n int) *wireServer {
	s := &wireServer{dir: dir, n: n, lists: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// prefersProtobuf reports whether an Accept header puts Kubernetes'
// protobuf first, as client-go does when it prefers it.
func prefersProtobuf(accept string) bool {
	return strings.HasPrefix(strings.TrimSpace(accept), "application/vnd.kubernetes.protobuf")
}

func (s *wireServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/pods" {
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
		return
	}
	accept := r.Header.Get("Accept")
	enc, ct := EncJSON, "application/json"
	if prefersProtobuf(accept) {
		enc, ct = EncProtobuf, "application/vnd.kubernetes.protobuf"
	}
	if r.URL.Query().Get("sendInitialEvents") == "true" {
		s.mu.Lock()
		s.watchLists++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"BadRequest","code":400,"message":"watch-list is not served here"}`)) //nolint:errcheck // the client hanging up ends it
		return
	}
	if q := r.URL.Query().Get("watch"); q == "true" || q == "1" {
		s.mu.Lock()
		s.watches++
		s.mu.Unlock()
		if enc == EncProtobuf {
			ct += ";stream=watch"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	s.mu.Lock()
	s.lists[enc]++
	s.accepts = append(s.accepts, accept)
	s.mu.Unlock()
	f, err := os.Open(wireListPath(s.dir, enc, s.n))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	io.Copy(w, f) //nolint:errcheck // the client hanging up ends the copy
}

// served returns the lists served per encoding, the watches, the refused
// watch-lists, and the Accept headers of the lists.
func (s *wireServer) served() (map[string]int, int, int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lists := map[string]int{}
	for k, v := range s.lists {
		lists[k] = v
	}
	return lists, s.watches, s.watchLists, append([]string(nil), s.accepts...)
}
