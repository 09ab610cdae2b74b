package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/bench/wirerest"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// SegmentSize is how many bytes each read of a big-event watch body
// returns: one TCP segment's payload on a 1500-byte MTU, as a large event
// arrives over a real connection.
const SegmentSize = 1448

// BigEventsResult is one run of BigEvents.
type BigEventsResult struct {
	Events          int     `json:"events"`
	EventBytes      int     `json:"eventBytes"`
	Seconds         float64 `json:"seconds"`
	SecondsPerEvent float64 `json:"secondsPerEvent"`
}

// BigEventsBody returns a JSON watch stream of events MODIFIED events of a
// ConfigMap holding about size bytes of data, as an API server writes it,
// and the length of one event.
func BigEventsBody(size, events int) ([]byte, int, error) {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "bench", UID: "0b1c2d3e", CreationTimestamp: metav1.Unix(1_700_000_000, 0)},
		Data:       map[string]string{},
	}
	value := strings.Repeat("0123456789abcdef", 64) // 1 KiB per key
	for i := 0; i*(len(value)+16) < size; i++ {
		cm.Data["key-"+strconv.Itoa(100000+i)] = value
	}
	var out bytes.Buffer
	one := 0
	for i := range events {
		cm.ResourceVersion = strconv.Itoa(1000 + i)
		raw, err := json.Marshal(cm)
		if err != nil {
			return nil, 0, err
		}
		ev, err := json.Marshal(&metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: raw}})
		if err != nil {
			return nil, 0, err
		}
		one = len(ev) + 1
		out.Write(ev)
		out.WriteByte('\n')
	}
	return out.Bytes(), one, nil
}

// segmentedBody reads its bytes at most SegmentSize at a time.
type segmentedBody struct{ b []byte }

func (s *segmentedBody) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), SegmentSize)], s.b)
	s.b = s.b[n:]
	return n, nil
}

func (s *segmentedBody) Close() error { return nil }

// watchServer answers every request with body, a JSON watch stream, read
// SegmentSize bytes at a time.
type watchServer struct{ body []byte }

func (s watchServer) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": []string{"application/json"}},
		Body:    &segmentedBody{b: s.body},
		Request: req, ContentLength: -1,
	}, nil
}

// BigEvents watches ConfigMaps through a real client-go clientset whose
// transport serves body (from BigEventsBody) in SegmentSize reads, and
// decodes every event: client-go's typed Watch (its REST client's stream
// watcher), or a runtime/wire ListWatch over the same clientset's REST
// client. It returns the time from the request to the last event.
func BigEvents(side Side, body []byte, eventBytes int) (BigEventsResult, error) {
	res := BigEventsResult{EventBytes: eventBytes}
	cfg := &rest.Config{Host: "http://bigevents.invalid", Transport: watchServer{body: body}, QPS: -1, ContentConfig: rest.ContentConfig{ContentType: "application/json"}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return res, err
	}
	ctx := context.Background()
	start := time.Now()
	var w watch.Interface
	switch side {
	case Ours:
		lw, err := wire.NewListWatch[corev1.ConfigMap](wirerest.Fetch(cs.CoreV1().RESTClient(), metav1.NamespaceAll, "configmaps", scheme.ParameterCodec),
			wire.Options{ContentType: wire.ContentTypeJSON, Resource: "configmaps.v1"})
		if err != nil {
			return res, err
		}
		w, err = lw.Watch(ctx, metav1.ListOptions{})
		if err != nil {
			return res, err
		}
	default:
		w, err = cs.CoreV1().ConfigMaps(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			return res, err
		}
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Modified || !ok || len(cm.Data) == 0 {
			return res, fmt.Errorf("%s: event %d: %s %T", side, res.Events, ev.Type, ev.Object)
		}
		res.Events++
	}
	res.Seconds = time.Since(start).Seconds()
	if res.Events == 0 {
		return res, fmt.Errorf("%s: no events", side)
	}
	res.SecondsPerEvent = res.Seconds / float64(res.Events)
	return res, nil
}
