package cache_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// wireServer serves a fake.Server's lists and watches as the bytes an API
// server sends (JSON, or protobuf envelopes and length-prefixed watch
// frames), as a wire.Fetch: what a wire.ListWatch reads from a REST client.
type wireServer struct {
	lw    cache.ListerWatcher
	enc   string // "json" or "protobuf"
	proto *protobuf.Serializer
}

func newWireServer(t testing.TB, lw cache.ListerWatcher, enc string) *wireServer {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	metav1.AddToGroupVersion(s, corev1.SchemeGroupVersion)
	return &wireServer{lw: lw, enc: enc, proto: protobuf.NewSerializer(s, s)}
}

func (s *wireServer) encode(obj runtime.Object) ([]byte, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		o.Kind, o.APIVersion = "Pod", "v1"
	case *corev1.PodList:
		o.Kind, o.APIVersion = "PodList", "v1"
	case *metav1.Status:
		o.Kind, o.APIVersion = "Status", "v1"
	case *metav1.WatchEvent:
		o.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("WatchEvent"))
	}
	if s.enc == "json" {
		return json.Marshal(obj)
	}
	var b bytes.Buffer
	err := s.proto.Encode(obj, &b)
	return b.Bytes(), err
}

func (s *wireServer) fetch(ctx context.Context, opts metav1.ListOptions, _ string) (io.ReadCloser, string, error) {
	if !opts.Watch {
		obj, err := s.lw.List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		items, err := meta.ExtractList(obj)
		if err != nil {
			return nil, "", err
		}
		lm, _ := meta.ListAccessor(obj)
		list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: lm.GetResourceVersion(), Continue: lm.GetContinue()}}
		for _, it := range items {
			list.Items = append(list.Items, *it.(*corev1.Pod))
		}
		b, err := s.encode(list)
		return io.NopCloser(bytes.NewReader(b)), "", err
	}
	w, err := s.lw.Watch(ctx, opts)
	if err != nil {
		return nil, "", err
	}
	pr, pw := io.Pipe()
	body := &watchBody{PipeReader: pr, w: w, done: make(chan struct{})}
	go func() {
		defer close(body.done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			frame, err := s.event(ev)
			if err == nil {
				_, err = pw.Write(frame)
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.Close()
	}()
	return body, "", nil
}

// event encodes one watch event as a line of JSON or a protobuf frame.
func (s *wireServer) event(ev watch.Event) ([]byte, error) {
	obj, err := s.encode(ev.Object.DeepCopyObject())
	if err != nil {
		return nil, err
	}
	frame, err := s.encode(&metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Raw: obj}})
	if err != nil {
		return nil, err
	}
	if s.enc == "json" {
		return append(frame, '\n'), nil
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(frame))), frame...), nil
}

// watchBody is a watch response body; Close ends its writer goroutine and
// waits for it.
type watchBody struct {
	*io.PipeReader
	w    watch.Interface
	done chan struct{}
	once sync.Once
}

func (b *watchBody) Close() error {
	b.once.Do(func() {
		b.PipeReader.Close()
		b.w.Stop()
	})
	<-b.done
	return nil
}

// noList is a wire.ListWatch whose List panics: an informer over it can
// only have listed through ListItems.
type noList struct {
	*wire.ListWatch[corev1.Pod, *corev1.Pod]
}

func (noList) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	panic("List called: the reflector did not list item by item")
}

// lwKinds are the ListerWatchers every scenario runs over: the fake
// server's own (lists of objects, today's path) and wire ListWatches
// reading its bytes in each encoding.
var lwKinds = []string{"objects", "json", "protobuf"}

func listerWatcherOf(t testing.TB, base cache.ListerWatcher, kind string) cache.ListerWatcher {
	t.Helper()
	if kind == "objects" {
		return base
	}
	ct := wire.ContentTypeJSON
	if kind == "protobuf" {
		ct = wire.ContentTypeProtobuf
	}
	lw, err := wire.NewListWatch[corev1.Pod](newWireServer(t, base, kind).fetch, wire.Options{ContentType: ct})
	if err != nil {
		t.Fatal(err)
	}
	return noList{lw}
}

// TestWireListWatchConforms runs each scenario over the fake server's
// ListerWatcher and over wire ListWatches reading the same server's bytes
// as JSON and as protobuf, and requires the same handler calls, in the
// same order, with the same initial-list flags, and the same requests.
func TestWireListWatchConforms(t *testing.T) {
	type result struct {
		events   []string
		requests []string
	}
	scenarios := []struct {
		name string
		opts cache.ReflectorOptions
		// lw, if set, wraps the server's ListerWatcher (both paths read it).
		lw func(t *testing.T, srv *fake.Server[*corev1.Pod]) cache.ListerWatcher
		// script drives srv after inf synced and returns when the handler
		// has seen everything; the events are compared after it.
		script func(t *testing.T, srv *fake.Server[*corev1.Pod], inf cache.SharedIndexInformer[*corev1.Pod], rec *recorder)
	}{
		{
			name: "list then watch events in order",
			opts: fastReflector(),
			script: func(t *testing.T, srv *fake.Server[*corev1.Pod], inf cache.SharedIndexInformer[*corev1.Pod], rec *recorder) {
				waitWatchers(t, srv, 1)
				create(t, srv, newPod("b", "x"))
				p := srv.Objects()[0]
				update(t, srv, p)
				del(t, srv, "a", "p2")
				waitStore(t, inf, serverString(srv))
			},
		},
		{
			name: "relist after 410, paginated, with the deletions it finds",
			opts: func() cache.ReflectorOptions { o := fastReflector(); o.PageSize = 2; return o }(),
			script: func(t *testing.T, srv *fake.Server[*corev1.Pod], inf cache.SharedIndexInformer[*corev1.Pod], rec *recorder) {
				waitWatchers(t, srv, 1)
				srv.FailWatches(errConnRefused)
				create(t, srv, newPod("a", "seen"))
				srv.DropWatches()
				eventually(t, "a refused re-watch", func() bool { return countRequests(srv, "watch", nil) >= 3 })
				create(t, srv, newPod("a", "new"))
				del(t, srv, "a", "p1")
				srv.Compact()
				srv.ClearFaults()
				eventually(t, "a consistent relist", func() bool {
					return countRequests(srv, "list", func(o metav1.ListOptions) bool { return o.ResourceVersion == "" && o.Continue == "" }) == 1
				})
				waitStore(t, inf, serverString(srv))
			},
		},
		{
			name: "a continue token expiring mid-list restarts as one unpaginated list",
			opts: func() cache.ReflectorOptions { o := fastReflector(); o.PageSize = 2; return o }(),
			lw: func(t *testing.T, srv *fake.Server[*corev1.Pod]) cache.ListerWatcher {
				base := srv.ListerWatcher("")
				var once sync.Once
				return &cache.ListWatch{
					ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
						if opts.Continue != "" {
							once.Do(func() {
								create(t, srv, newPod("a", "during-the-list"))
								srv.Compact()
							})
						}
						return base.List(ctx, opts)
					},
					WatchFunc: base.Watch,
				}
			},
			script: func(t *testing.T, srv *fake.Server[*corev1.Pod], inf cache.SharedIndexInformer[*corev1.Pod], rec *recorder) {
				// The first list is at "0", in one page; expiring the watch
				// makes the relist consistent and paginated.
				waitWatchers(t, srv, 1)
				srv.Compact()
				srv.ExpireWatches()
				eventually(t, "the restarted list", func() bool { return countRequests(srv, "list", nil) == 4 })
				waitStore(t, inf, serverString(srv))
			},
		},
		{
			name: "bookmarks advance the resourceVersion",
			opts: fastReflector(),
			script: func(t *testing.T, srv *fake.Server[*corev1.Pod], inf cache.SharedIndexInformer[*corev1.Pod], rec *recorder) {
				waitWatchers(t, srv, 1)
				srv.SendBookmarks()
				create(t, srv, newPod("c", "z"))
				srv.SendBookmarks()
				eventually(t, "LastSyncResourceVersion to follow the bookmark", func() bool {
					return inf.LastSyncResourceVersion() == srv.ResourceVersion()
				})
				waitStore(t, inf, serverString(srv))
			},
		},
		{
			name: "watch-list stream, then events, then a 410 on the open watch",
			opts: watchListReflector(),
			script: func(t *testing.T, srv *fake.Server[*corev1.Pod], inf cache.SharedIndexInformer[*corev1.Pod], rec *recorder) {
				waitWatchers(t, srv, 1)
				create(t, srv, newPod("b", "x"))
				waitStore(t, inf, serverString(srv))
				create(t, srv, newPod("a", "new"))
				srv.Compact()
				srv.ExpireWatches()
				eventually(t, "a second watch-list", func() bool {
					return countRequests(srv, "watch", func(o metav1.ListOptions) bool { return o.SendInitialEvents != nil && *o.SendInitialEvents }) >= 2
				})
				// The second stream replaces every object: each is an
				// update with an unchanged resourceVersion.
				rec.WaitEvent(t, "update b/x@5->5")
				waitStore(t, inf, serverString(srv))
			},
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			results := map[string]result{}
			for _, kind := range lwKinds {
				t.Run(kind, func(t *testing.T) {
					srv := seedServer(t)
					base := srv.ListerWatcher("")
					if sc.lw != nil {
						base = sc.lw(t, srv)
					}
					inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](listerWatcherOf(t, base, kind),
						cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Reflector: sc.opts})
					rec := newRecorder()
					if _, err := inf.AddEventHandler(rec); err != nil {
						t.Fatal(err)
					}
					stop := run(t, inf)
					waitSynced(t, inf)
					sc.script(t, srv, inf, rec)
					eventually(t, "the handler to hold the server's objects", func() bool {
						return maps.Equal(rec.Versions(), serverVersions(srv))
					})
					// The handler may hold every object before the informer
					// watches again after its last list, and before it has
					// been told of every object that list replaced. Wait for
					// the watch, then for an object created on it: handlers
					// are told in order, so every kind's requests and events
					// then end alike.
					eventually(t, "the informer to watch after its last list", func() bool {
						reqs := srv.Requests()
						return len(reqs) > 0 && reqs[len(reqs)-1].Verb == "watch"
					})
					if _, err := srv.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "zz-settled"}}); err != nil {
						t.Fatal(err)
					}
					eventually(t, "the handler to be told of the object created last", func() bool {
						evs := rec.Events()
						return len(evs) > 0 && strings.HasPrefix(evs[len(evs)-1], "add a/zz-settled@")
					})
					stop()
					if err := rec.Err(); err != nil {
						t.Fatal(err)
					}
					var reqs []string
					for _, r := range srv.Requests() {
						reqs = append(reqs, fmt.Sprintf("%s rv=%q limit=%d continue=%t initial=%v", r.Verb, r.Options.ResourceVersion, r.Options.Limit, r.Options.Continue != "", r.Options.SendInitialEvents != nil))
					}
					// Refused re-watches repeat as often as the backoff
					// allows: count repeated requests once.
					results[kind] = result{events: rec.Events(), requests: slices.Compact(reqs)}
				})
			}
			want := results["objects"]
			if len(want.events) == 0 {
				t.Fatal("no events recorded over the fake server's ListerWatcher")
			}
			for _, kind := range lwKinds[1:] {
				got, ok := results[kind]
				if !ok {
					continue // its subtest failed
				}
				if !slices.Equal(got.events, want.events) {
					t.Errorf("%s: handler calls differ from the object ListerWatcher's:\n got %s\nwant %s", kind, strings.Join(got.events, "\n    "), strings.Join(want.events, "\n    "))
				}
				if !slices.Equal(got.requests, want.requests) {
					t.Errorf("%s: requests differ from the object ListerWatcher's:\n got %s\nwant %s", kind, strings.Join(got.requests, "\n    "), strings.Join(want.requests, "\n    "))
				}
			}
		})
	}
}

func serverVersions(srv *fake.Server[*corev1.Pod]) map[string]string {
	out := map[string]string{}
	for _, p := range srv.Objects() {
		out[key(p)] = p.ResourceVersion
	}
	return out
}

// TestWireListWatchReportsListErrors lists through a wire ListWatch whose
// server fails the list: the error reaches WaitForSync's reason with the
// server's status, as through List.
func TestWireListWatchReportsListErrors(t *testing.T) {
	srv := seedServer(t)
	srv.FailLists(apierrors.NewForbidden(corev1.Resource("pods"), "", fmt.Errorf("no access")))
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](listerWatcherOf(t, srv.ListerWatcher(""), "protobuf"),
		cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Reflector: fastReflector()})
	errs := &errorLog{}
	if err := inf.SetWatchErrorHandler(errs.handler); err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	eventually(t, "the Forbidden list error", func() bool { return errs.matching(apierrors.IsForbidden) })
	srv.ClearFaults()
	waitSynced(t, inf)
	waitStore(t, inf, serverString(srv))
}

// wireGoroutines are the goroutines of the runtime, the fake server, the
// wire package and the test's byte server.
func wireGoroutines() []string {
	var out []string
	for _, g := range strings.Split(allStacks(), "\n\n") {
		if strings.Contains(g, "typedinformer/runtime/cache.") || strings.Contains(g, "typedinformer/runtime/fake.") ||
			strings.Contains(g, "typedinformer/runtime/wire.") || strings.Contains(g, "runtime/cache_test.(*wireServer)") {
			out = append(out, g)
		}
	}
	return out
}

func allStacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := goruntime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestWireListWatchStopsPromptlyNoLeakedGoroutines stops informers over
// wire ListWatches while they watch, stream a watch-list, or wait in a
// list, and requires every goroutine of the runtime, of the wire package
// (read-ahead, watch decoding) and of the byte server to end.
func TestWireListWatchStopsPromptlyNoLeakedGoroutines(t *testing.T) {
	tests := []struct {
		name   string
		opts   cache.ReflectorOptions
		setup  func(srv *fake.Server[*corev1.Pod])
		synced bool
	}{
		{name: "watching", opts: fastReflector(), synced: true},
		{name: "streaming watch-list", opts: watchListReflector(), synced: true},
		{name: "in a slow list", opts: fastReflector(), setup: func(srv *fake.Server[*corev1.Pod]) { srv.SetListDelay(time.Hour) }},
	}
	for _, tt := range tests {
		for _, kind := range lwKinds[1:] {
			t.Run(tt.name+"/"+kind, func(t *testing.T) {
				eventually(t, "goroutines of earlier tests to end", func() bool { return len(wireGoroutines()) == 0 })
				srv := seedServer(t)
				if tt.setup != nil {
					tt.setup(srv)
				}
				inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](listerWatcherOf(t, srv.ListerWatcher(""), kind),
					cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Reflector: tt.opts})
				stop := run(t, inf)
				if tt.synced {
					waitSynced(t, inf)
					waitWatchers(t, srv, 1)
				}
				eventually(t, "the first request", func() bool { return len(srv.Requests()) > 0 })
				stop()
				eventually(t, "every goroutine to end", func() bool { return len(wireGoroutines()) == 0 })
			})
		}
	}
}
