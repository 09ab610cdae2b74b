package scenario

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

// podServer answers client-go's Pod list and watch requests from a decode
// fixture file, as an in-process http.RoundTripper: the client decodes real
// API server JSON in the measured process, while the served bytes stay in
// the file (the page cache), not in the process's heap or RSS.
//
// A list (any limit, as the watch cache serves resourceVersion "0") returns
// every Pod. A watch with sendInitialEvents=true first streams every Pod as
// ADDED and the initial-events-end bookmark. Every watch then waits for
// Churn and streams MODIFIED events replacing the first churn Pods with
// same-size copies at new resourceVersions; then it stays open until the
// request is cancelled.
type podServer struct {
	path  string
	n     int
	churn int

	mu          sync.Mutex
	churnNow    chan struct{}
	lists       int
	watchLists  int
	plainWatchs int
}

func newPodServer(path string, n, churn int) *podServer {
	return &podServer{path: path, n: n, churn: churn, churnNow: make(chan struct{})}
}

// Churn releases the churn events on every open and future watch.
func (s *podServer) Churn() { close(s.churnNow) }

// counts returns how many lists, watch-lists and plain watches were served.
func (s *podServer) counts() (lists, watchLists, watches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists, s.watchLists, s.plainWatchs
}

func (s *podServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	if req.Method != http.MethodGet || req.URL.Path != "/api/v1/pods" {
		return s.respond(req, http.StatusNotFound, func(w *bufio.Writer) error {
			_, err := fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"%s not served"}`, req.URL.Path)
			return err
		}), nil
	}
	q := req.URL.Query()
	f := s.pods()
	if strings.Contains(req.Header.Get("Accept"), "as=PartialObjectMetadata") {
		f = s.metadata()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case q.Get("watch") != "true" && q.Get("watch") != "1":
		s.lists++
		return s.respond(req, http.StatusOK, func(w *bufio.Writer) error { return s.writeList(w, f) }), nil
	case q.Get("sendInitialEvents") == "true":
		s.watchLists++
		return s.respond(req, http.StatusOK, func(w *bufio.Writer) error { return s.writeWatch(req.Context(), w, f, true) }), nil
	default:
		s.plainWatchs++
		return s.respond(req, http.StatusOK, func(w *bufio.Writer) error { return s.writeWatch(req.Context(), w, f, false) }), nil
	}
}

// respond returns a response whose body body writes through a pipe.
func (s *podServer) respond(req *http.Request, code int, body func(w *bufio.Writer) error) *http.Response {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 64<<10)
		err := body(w)
		if err == nil {
			err = w.Flush()
		}
		pw.CloseWithError(err)
	}()
	return &http.Response{
		StatusCode: code, Status: strconv.Itoa(code) + " " + http.StatusText(code), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: pr, ContentLength: -1, Request: req,
	}
}

// served is one form of the fixture: full Pods or their metadata.
type served struct {
	path                 string
	listKind, apiVersion string
	itemKind             string
}

func (s *podServer) pods() served {
	return served{path: s.path, listKind: "PodList", apiVersion: "v1", itemKind: "Pod"}
}

func (s *podServer) metadata() served {
	return served{path: metadataPath(s.path), listKind: "PartialObjectMetadataList", apiVersion: "meta.k8s.io/v1", itemKind: "PartialObjectMetadata"}
}

// eachPod calls fn with the JSON line (no newline) of the first n objects
// of f; the slice is valid only during the call.
func (s *podServer) eachPod(f served, n int, fn func(i int, pod []byte) error) error {
	return eachLine(f.path, n, fn)
}

func eachLine(path string, n int, fn func(i int, line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for i := 0; i < n; i++ {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("%s: line %d: %w", path, i, err)
		}
		if err := fn(i, line[:len(line)-1]); err != nil {
			return err
		}
	}
	return nil
}

func (s *podServer) writeList(w *bufio.Writer, f served) error {
	fmt.Fprintf(w, `{"kind":"%s","apiVersion":"%s","metadata":{"resourceVersion":"%d"},"items":[`, f.listKind, f.apiVersion, decodeRV)
	err := s.eachPod(f, s.n, func(i int, pod []byte) error {
		if i > 0 {
			w.WriteByte(',')
		}
		_, err := w.Write(pod)
		return err
	})
	if err != nil {
		return err
	}
	_, err = w.WriteString("]}")
	return err
}

var rvField = []byte(`"resourceVersion":"` + strconv.Itoa(decodeRV) + `"`)

func (s *podServer) writeWatch(ctx context.Context, w *bufio.Writer, f served, initial bool) error {
	event := func(typ string, pod []byte) error {
		w.WriteString(`{"type":"` + typ + `","object":`)
		w.Write(pod)
		_, err := w.WriteString("}\n")
		return err
	}
	if initial {
		if err := s.eachPod(f, s.n, func(_ int, pod []byte) error { return event("ADDED", pod) }); err != nil {
			return err
		}
		fmt.Fprintf(w, `{"type":"BOOKMARK","object":{"kind":"%s","apiVersion":"%s","metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n", f.itemKind, f.apiVersion, decodeRV)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return nil
	case <-s.churnNow:
	}
	buf := []byte(nil)
	err := s.eachPod(f, s.churn, func(i int, pod []byte) error {
		buf = append(buf[:0], pod...)
		at := bytes.Index(buf, rvField)
		if at < 0 {
			return fmt.Errorf("pod %d has no resourceVersion %d", i, decodeRV)
		}
		rv := strconv.Itoa(decodeRV + 1 + i)
		copy(buf[at+len(`"resourceVersion":"`):], rv) // same number of digits
		return event("MODIFIED", buf)
	})
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
