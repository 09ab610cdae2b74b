package wirediff_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/wire"
)

// negotiated is the NegotiatedSerializer every typed clientset of
// client-go v0.37 configures its REST client with (setConfigDefaults):
// client-go's scheme, with CBOR since TestMain enables ClientsAllowCBOR.
var negotiated runtime.NegotiatedSerializer

// TestMain enables client-go's ClientsAllowCBOR feature gate (read from
// the environment on first use), without which a clientset cannot decode
// CBOR, and builds the clientset's serializer.
func TestMain(m *testing.M) {
	if err := os.Setenv("KUBE_FEATURE_ClientsAllowCBOR", "true"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.ClientsAllowCBOR) {
		fmt.Fprintln(os.Stderr, "client-go's ClientsAllowCBOR feature gate is off: the CBOR comparisons would test nothing")
		os.Exit(2)
	}
	negotiated = rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion()
	os.Exit(m.Run())
}

// encoding is one of the three encodings a typed clientset can be
// configured for.
type encoding struct {
	name string
	// contentType is rest.Config.ContentType of the clientset and the
	// Content-Type of a list response.
	contentType string
	// watchType is the Content-Type of a watch response, as the API
	// server writes it.
	watchType string
	// wireType is the ListWatch's Options.ContentType.
	wireType string
}

var (
	encJSON     = encoding{"json", runtime.ContentTypeJSON, "application/json;stream=watch", wire.ContentTypeJSON}
	encProtobuf = encoding{"protobuf", runtime.ContentTypeProtobuf, "application/vnd.kubernetes.protobuf;stream=watch", wire.ContentTypeProtobuf}
	encCBOR     = encoding{"cbor", runtime.ContentTypeCBOR, runtime.ContentTypeCBORSequence, wire.ContentTypeCBOR}
	encodings   = []encoding{encJSON, encProtobuf, encCBOR}
)

// response is what the in-memory server answers a request with.
type response struct {
	code        int // 0 is 200
	contentType string
	body        []byte
}

// server is an in-memory API server (an http.RoundTripper): every GET of a
// list is answered with list, every watch with watch. When maxRead is set,
// response bodies return 1..maxRead bytes per Read, in a sequence drawn
// from seed: the same for every request, so both decoders see the same
// reads.
type server struct {
	list, watch response
	maxRead     int
	seed        uint64
}

func (s *server) respond(watching bool) (response, io.ReadCloser) {
	r := s.list
	if watching {
		r = s.watch
	}
	var body io.Reader = bytes.NewReader(r.body)
	if s.maxRead > 0 {
		body = &pieces{data: r.body, max: s.maxRead, rng: rand.New(rand.NewPCG(s.seed, uint64(len(r.body))))} //nolint:gosec // a test's reproducible sequence
	}
	return r, io.NopCloser(body)
}

func (s *server) RoundTrip(req *http.Request) (*http.Response, error) {
	r, body := s.respond(req.URL.Query().Get("watch") == "true")
	code := r.code
	if code == 0 {
		code = http.StatusOK
	}
	return &http.Response{
		StatusCode: code, Status: strconv.Itoa(code) + " " + http.StatusText(code),
		Header: http.Header{"Content-Type": []string{r.contentType}},
		Body:   body, Request: req, ContentLength: -1,
	}, nil
}

// pieces reads data in pieces of 1..max bytes.
type pieces struct {
	data []byte
	max  int
	rng  *rand.Rand
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := min(1+p.rng.IntN(p.max), len(b), len(p.data))
	copy(b, p.data[:n])
	p.data = p.data[n:]
	return n, nil
}

// target is the resource both decoders read: the item kind in a
// group-version, asked for in an encoding.
type target struct {
	gvk schema.GroupVersionKind
	enc encoding
}

func (tg target) resource() string { return strings.ToLower(tg.gvk.Kind) + "s" }

// wireResource names the resource as generated informers name it to
// runtime/wire (resource.version.group), which gives the ListWatch the
// group and version every event object must carry.
func (tg target) wireResource() string {
	return strings.TrimSuffix(tg.resource()+"."+tg.gvk.Version+"."+tg.gvk.Group, ".")
}

// fetchMode says how the ListWatch obtains the bytes.
type fetchMode int

const (
	// viaREST: wire.NewRESTFetch over the same REST client as client-go's
	// side, as generated informers fetch (the Content-Type is not passed on).
	viaREST fetchMode = iota
	// withContentType: a Fetch serving the same bytes and passing the
	// response's Content-Type.
	withContentType
)

func (m fetchMode) String() string {
	if m == viaREST {
		return "rest"
	}
	return "content-type"
}

// restClient returns a REST client over srv configured as client-go's
// typed clientset for tg's group-version configures its own (APIPath,
// GroupVersion, the generated client's NegotiatedSerializer), with the
// encoding as rest.Config.ContentType and no client-side rate limit.
func restClient(t testing.TB, srv *server, tg target) *rest.RESTClient {
	t.Helper()
	gv := tg.gvk.GroupVersion()
	cfg := &rest.Config{Host: "http://apiserver.invalid", Transport: srv, QPS: -1}
	cfg.ContentType = tg.enc.contentType
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = negotiated
	cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// listOutcome is what a user sees of a list: the items, the list's
// metadata, or an error.
type listOutcome struct {
	items []runtime.Object
	meta  metav1.ListMeta
	err   error
}

// watchOutcome is what a user sees of a watch: the error starting it, or
// every event until the result channel closes.
type watchOutcome struct {
	events []watch.Event
	err    error
	hung   bool
}

// clientGoList lists as the typed clientset's List does
// (gentype.alsoLister.list in client-go v0.37: Get, protobuf preferred,
// VersionedParams with the scheme's ParameterCodec, Do, Into a new list)
// and extracts the items and metadata the way the reflector does.
func clientGoList(ctx context.Context, rc *rest.RESTClient, tg target, opts metav1.ListOptions) listOutcome {
	list, err := scheme.Scheme.New(tg.gvk.GroupVersion().WithKind(tg.gvk.Kind + "List"))
	if err != nil {
		return listOutcome{err: fmt.Errorf("test setup: %w", err)}
	}
	if err := rc.Get().UseProtobufAsDefault().Resource(tg.resource()).VersionedParams(&opts, scheme.ParameterCodec).Do(ctx).Into(list); err != nil {
		return listOutcome{err: err}
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return listOutcome{err: fmt.Errorf("test setup: %w", err)}
	}
	lm := reflect.ValueOf(list).Elem().FieldByName("ListMeta").Interface().(metav1.ListMeta)
	return listOutcome{items: items, meta: lm}
}

// clientGoWatch watches as the typed clientset's Watch does.
func clientGoWatch(ctx context.Context, rc *rest.RESTClient, tg target, opts metav1.ListOptions) watchOutcome {
	opts.Watch = true
	return collect(rc.Get().UseProtobufAsDefault().Resource(tg.resource()).VersionedParams(&opts, scheme.ParameterCodec).Watch(ctx))
}

// newListWatch returns runtime/wire's ListWatch of tg's Go type over srv.
func newListWatch(t testing.TB, srv *server, rc *rest.RESTClient, tg target, mode fetchMode) *wire.ListWatch[wire.Item, wire.Item] {
	t.Helper()
	example, err := scheme.Scheme.New(tg.gvk)
	if err != nil {
		t.Fatal(err)
	}
	var fetch wire.Fetch
	switch mode {
	case viaREST:
		f, ok := wire.NewRESTFetch(rc, "", tg.resource())
		if !ok {
			t.Fatal("wire.NewRESTFetch refused a *rest.RESTClient")
		}
		fetch = f
	case withContentType:
		fetch = func(_ context.Context, opts metav1.ListOptions, _ string) (io.ReadCloser, string, error) {
			r, body := srv.respond(opts.Watch)
			if r.code != 0 && r.code != http.StatusOK {
				return nil, "", apierrors.NewGenericServerResponse(r.code, "GET", schema.GroupResource{}, "", string(r.body), 0, true)
			}
			return body, r.contentType, nil
		}
	}
	lw, err := wire.NewListWatchOf(fetch, example.(wire.Item), wire.Options{ContentType: tg.enc.wireType, Resource: tg.wireResource()})
	if err != nil {
		t.Fatal(err)
	}
	return lw
}

func wireList(ctx context.Context, lw *wire.ListWatch[wire.Item, wire.Item], opts metav1.ListOptions) listOutcome {
	var items []runtime.Object
	lm, err := lw.ListItems(ctx, opts, func(it wire.Item) error {
		items = append(items, it)
		return nil
	})
	if err != nil {
		return listOutcome{err: err}
	}
	return listOutcome{items: items, meta: *lm}
}

func wireWatch(ctx context.Context, lw *wire.ListWatch[wire.Item, wire.Item], opts metav1.ListOptions) watchOutcome {
	return collect(lw.Watch(ctx, opts))
}

// hangAfter bounds how long a watch over an in-memory body may take to
// close its channel: far beyond any decoding time, it only turns a hang
// into a failure instead of the test binary's timeout.
const hangAfter = 2 * time.Minute

// collect reads a watch's events until its channel closes.
func collect(w watch.Interface, err error) watchOutcome {
	if err != nil {
		return watchOutcome{err: err}
	}
	defer w.Stop()
	var out watchOutcome
	deadline := time.NewTimer(hangAfter)
	defer deadline.Stop()
	for {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				return out
			}
			out.events = append(out.events, e)
		case <-deadline.C:
			out.hung = true
			return out
		}
	}
}

// Comparing objects: reflect.DeepEqual, not apiequality.Semantic.DeepEqual.
// The objects are what a user's cache holds and hands out; Semantic
// equality forgives differences a user can observe (a Quantity's cached
// text and format, a Time's location, nil versus empty slices and maps)
// and would hide exactly the value differences this test is for. Where
// objects differ, the report says whether they are at least semantically
// equal, which tells a representation difference from a value one.
func sameObject(a, b runtime.Object) string {
	if reflect.DeepEqual(a, b) {
		return ""
	}
	sem := "and semantically different"
	if apiequality.Semantic.DeepEqual(a, b) {
		sem = "but semantically equal"
	}
	return fmt.Sprintf("objects differ (%s): %s", sem, firstDiff(reflect.ValueOf(a), reflect.ValueOf(b), fmt.Sprintf("%T", a)))
}

// firstDiff describes the first place where a and b differ.
func firstDiff(a, b reflect.Value, path string) string {
	if !a.IsValid() || !b.IsValid() || a.Type() != b.Type() {
		return fmt.Sprintf("%s: client-go %s, wire %s", path, show(a), show(b))
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: client-go %s, wire %s", path, show(a), show(b))
			}
			return ""
		}
		return firstDiff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if !f.IsExported() {
				if !reflect.DeepEqual(fieldOf(a, i), fieldOf(b, i)) {
					return fmt.Sprintf("%s.%s (unexported): client-go %+v, wire %+v", path, f.Name, fieldOf(a, i), fieldOf(b, i))
				}
				continue
			}
			if d := firstDiff(a.Field(i), b.Field(i), path+"."+f.Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: client-go %s, wire %s", path, show(a), show(b))
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: client-go %d elements, wire %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := firstDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: client-go %s, wire %s", path, show(a), show(b))
		}
		for _, k := range a.MapKeys() {
			if d := firstDiff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); d != "" {
				return d
			}
		}
		return ""
	}
	if a.CanInterface() && b.CanInterface() && reflect.DeepEqual(a.Interface(), b.Interface()) {
		return ""
	}
	return fmt.Sprintf("%s: client-go %s, wire %s", path, show(a), show(b))
}

// fieldOf returns the value of an unexported field, for comparing and
// printing.
func fieldOf(v reflect.Value, i int) any {
	f := v.Field(i)
	if !v.CanAddr() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		f = c.Field(i)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
}

func show(v reflect.Value) string {
	if !v.IsValid() {
		return "nothing"
	}
	if !v.CanInterface() {
		return v.String()
	}
	s := fmt.Sprintf("%T %#v", v.Interface(), v.Interface())
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// compareLists returns "" when client-go's and wire's lists agree: both
// fail, or both succeed with the same items and the same ListMeta. Two
// errors are not compared by message (each names things its own way); an
// error carrying an API Status must carry the same reason and code on
// both sides, since the reflector acts on them (410 Gone: relist).
func compareLists(cg, w listOutcome) string {
	if (cg.err == nil) != (w.err == nil) {
		return fmt.Sprintf("client-go: %s; wire: %s", listSummary(cg), listSummary(w))
	}
	if cg.err != nil {
		if apierrors.ReasonForError(cg.err) != apierrors.ReasonForError(w.err) || statusCode(cg.err) != statusCode(w.err) {
			return fmt.Sprintf("errors differ in reason or code: client-go %q (%s, %d); wire %q (%s, %d)",
				cg.err, apierrors.ReasonForError(cg.err), statusCode(cg.err), w.err, apierrors.ReasonForError(w.err), statusCode(w.err))
		}
		return ""
	}
	if len(cg.items) != len(w.items) {
		return fmt.Sprintf("client-go: %s; wire: %s", listSummary(cg), listSummary(w))
	}
	for i := range cg.items {
		if d := sameObject(cg.items[i], w.items[i]); d != "" {
			return fmt.Sprintf("item %d: %s", i, d)
		}
	}
	if !reflect.DeepEqual(cg.meta, w.meta) {
		return fmt.Sprintf("list metadata: client-go %+v; wire %+v", cg.meta, w.meta)
	}
	return ""
}

func statusCode(err error) int32 {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		return s.Status().Code
	}
	return 0
}

func listSummary(l listOutcome) string {
	if l.err != nil {
		return "error " + strconv.Quote(trim(l.err.Error()))
	}
	return fmt.Sprintf("%d items, metadata %+v", len(l.items), l.meta)
}

func trim(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// decodingError reports whether e is the Error event a watch ends with
// when its decoder fails: a 500 InternalError Status, which client-go's
// stream watcher builds with errors.NewClientErrorReporter and wire's
// with its own message.
func decodingError(e watch.Event) bool {
	st, ok := e.Object.(*metav1.Status)
	return ok && e.Type == watch.Error && st.Code == http.StatusInternalServerError && st.Reason == metav1.StatusReasonInternalError
}

// compareWatches returns "" when the two watches agree: both fail to
// start, or both deliver the same sequence of events and then close.
// Events are compared by type and object (reflect.DeepEqual), an ERROR
// event the server sent included. The Error event each decoder ends a
// stream with when it cannot decode it is compared by type, status, code
// and reason only: its message is each decoder's own wording of the
// failure. A quiet end (the channel closes without an Error event) must be
// quiet on both sides: the reflector re-watches after one and relists
// after an Error event.
func compareWatches(cg, w watchOutcome) string {
	if cg.hung || w.hung {
		return fmt.Sprintf("a watch did not end within %s: client-go hung %v, wire hung %v", hangAfter, cg.hung, w.hung)
	}
	if (cg.err == nil) != (w.err == nil) {
		return fmt.Sprintf("starting the watch: client-go %v; wire %v", cg.err, w.err)
	}
	if cg.err != nil {
		return ""
	}
	n := max(len(cg.events), len(w.events))
	for i := range n {
		if i >= len(cg.events) || i >= len(w.events) {
			return fmt.Sprintf("event %d: client-go %s; wire %s\nclient-go's events:\n%swire's events:\n%s", i, eventAt(cg.events, i), eventAt(w.events, i), describe(cg.events), describe(w.events))
		}
		a, b := cg.events[i], w.events[i]
		if decodingError(a) && decodingError(b) {
			continue
		}
		if a.Type != b.Type {
			return fmt.Sprintf("event %d: client-go %s; wire %s", i, eventAt(cg.events, i), eventAt(w.events, i))
		}
		if d := sameObject(a.Object, b.Object); d != "" {
			return fmt.Sprintf("event %d (%s): %s", i, a.Type, d)
		}
	}
	return ""
}

func eventAt(events []watch.Event, i int) string {
	if i >= len(events) {
		return "the end of the stream"
	}
	e := events[i]
	if decodingError(e) {
		return fmt.Sprintf("%s (decoding error: %s)", e.Type, trim(e.Object.(*metav1.Status).Message))
	}
	return fmt.Sprintf("%s %T", e.Type, e.Object)
}

func describe(events []watch.Event) string {
	var b strings.Builder
	for i := range events {
		fmt.Fprintf(&b, "  %s\n", eventAt(events, i))
	}
	return b.String()
}

// diffBodies serves list and watch bodies to both decoders of tg and
// returns every disagreement, one per line: the list (when list is set),
// the watch (when watch is set), with opts.
func diffBodies(t testing.TB, tg target, mode fetchMode, srv *server, doList, doWatch bool, opts metav1.ListOptions) []string {
	t.Helper()
	ctx := context.Background()
	rc := restClient(t, srv, tg)
	lw := newListWatch(t, srv, rc, tg, mode)
	var out []string
	if doList {
		if d := compareLists(clientGoList(ctx, rc, tg, opts), wireList(ctx, lw, opts)); d != "" {
			out = append(out, "list: "+d)
		}
	}
	if doWatch {
		if d := compareWatches(clientGoWatch(ctx, rc, tg, opts), wireWatch(ctx, lw, opts)); d != "" {
			out = append(out, "watch: "+d)
		}
	}
	return out
}
