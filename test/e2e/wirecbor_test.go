package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/wire"
)

// gadget is the Go type of the CRD TestWireCBORCustomResource creates, as
// a CRD repo would write it: typed fields of each schema type, a
// preserved-unknown-fields object and managedFields from the server.
type gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              gadgetSpec `json:"spec"`
}

type gadgetSpec struct {
	Replicas int32             `json:"replicas"`
	Ratio    float64           `json:"ratio"`
	Paused   bool              `json:"paused"`
	Selector map[string]string `json:"selector,omitempty"`
	Ports    []gadgetPort      `json:"ports,omitempty"`
	Extra    map[string]any    `json:"extra,omitempty"`
}

type gadgetPort struct {
	Name string `json:"name"`
	Port int64  `json:"port"`
}

func (g *gadget) DeepCopyObject() runtime.Object {
	b, err := json.Marshal(g)
	if err != nil {
		panic(err)
	}
	c := &gadget{}
	if err := json.Unmarshal(b, c); err != nil {
		panic(err)
	}
	return c
}

var gadgetGVR = schema.GroupVersionResource{Group: "cbor.typedinformer.dev", Version: "v1", Resource: "gadgets"}

func gadgetCRD() *apiextensionsv1.CustomResourceDefinition {
	obj := func(props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: gadgetGVR.Resource + "." + gadgetGVR.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gadgetGVR.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: pointerTo(obj(map[string]apiextensionsv1.JSONSchemaProps{
					"spec": obj(map[string]apiextensionsv1.JSONSchemaProps{
						"replicas": {Type: "integer", Format: "int32"},
						"ratio":    {Type: "number"},
						"paused":   {Type: "boolean"},
						"selector": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
						"ports": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: pointerTo(obj(map[string]apiextensionsv1.JSONSchemaProps{
							"name": {Type: "string"}, "port": {Type: "integer"},
						}))}},
						"extra": {Type: "object", XPreserveUnknownFields: pointerTo(true)},
					}),
				}))},
			}},
		},
	}
}

func gadgetObject(ns, name string, i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gadgetGVR.GroupVersion().String(), "kind": "Gadget",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"app": "gadget"}},
		"spec": map[string]any{
			"replicas": int64(i), "ratio": 0.5 + float64(i), "paused": i%2 == 0,
			"selector": map[string]any{"app": "gadget", "idx": fmt.Sprint(i)},
			"ports":    []any{map[string]any{"name": "http", "port": int64(8080 + i)}},
			"extra":    map[string]any{"n": int64(i), "f": 1.25, "s": "<&>", "list": []any{"a", true, nil}, "nested": map[string]any{"k": "v"}},
		},
	}}
}

// contentTypes records the Accept header of each request and the
// Content-Type of each response, by whether it was a watch.
type contentTypes struct {
	mu   sync.Mutex
	seen []string // "list|watch accept -> content-type"
}

func (c *contentTypes) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil && strings.Contains(r.URL.Path, gadgetGVR.Resource) {
			kind := "list"
			if r.URL.Query().Get("watch") == "true" {
				kind = "watch"
			}
			c.mu.Lock()
			c.seen = append(c.seen, fmt.Sprintf("%s %s -> %s", kind, r.Header.Get("Accept"), resp.Header.Get("Content-Type")))
			c.mu.Unlock()
		}
		return resp, err
	})
}

func (c *contentTypes) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// gadgetListWatch returns a wire.ListWatch of gadgets in ns through a
// REST client of cfg asking for ct, and what its requests recorded.
func gadgetListWatch(t *testing.T, cfg *rest.Config, ns, ct string) (*wire.ListWatch[gadget, *gadget], *contentTypes) {
	t.Helper()
	rec := &contentTypes{}
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = pointerTo(gadgetGVR.GroupVersion())
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	cfg.WrapTransport = rec.wrap
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(ctx context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
		body, err := rc.Get().Namespace(ns).Resource(gadgetGVR.Resource).
			VersionedParams(&opts, metav1.ParameterCodec).SetHeader("Accept", accept).Stream(ctx)
		return body, "", err
	}
	// gadget's Go name is not its kind, so the ListWatch is told the kind
	// every watch event object must carry.
	lw, err := wire.NewListWatch[gadget](fetch, wire.Options{ContentType: ct, GroupVersionKind: gadgetGVR.GroupVersion().WithKind("Gadget")})
	if err != nil {
		t.Fatal(err)
	}
	return lw, rec
}

// TestWireCBORCustomResource lists and watches a custom resource through
// wire.ListWatch asking for CBOR, from an API server with the
// CBORServingAndStorage feature gate (which must answer CBOR) and from one
// without it (which must answer JSON), and requires the objects the
// dynamic client's JSON gives, and every event of a create, update and
// delete in order.
func TestWireCBORCustomResource(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, namespaces := adminIn(t, 1)
	ns := namespaces[0]
	if err := installCRD(ctx, c, gadgetCRD()); err != nil {
		t.Fatal(err)
	}
	// Objects are written through the main apiserver only, so etcd holds
	// what a server without the gate reads.
	gadgets := c.dynamic.Resource(gadgetGVR).Namespace(ns)
	for i := range 3 {
		if err := poll(ctx, time.Minute, func() error {
			_, err := gadgets.Create(ctx, gadgetObject(ns, fmt.Sprintf("g-%d", i), i), metav1.CreateOptions{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	want := func() []*gadget {
		ul, err := gadgets.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []*gadget
		for _, u := range ul.Items {
			// As client-go's decoders do, integers stay int64 in
			// untyped fields.
			g := &gadget{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, g); err != nil {
				t.Fatal(err)
			}
			out = append(out, normalizeGadget(t, g))
		}
		return out
	}()

	gated := extraAPIServer(t, ctx, "cbor", "--feature-gates=CBORServingAndStorage=true")
	defer cluster.StopExtraAPIServer(gated)

	for _, tc := range []struct {
		name      string
		object    string // the gadget the watch sees created
		cfg       *rest.Config
		wantList  string
		wantWatch string
	}{
		{name: "gate on: CBOR", object: "w-cbor", cfg: cluster.AdminConfigFor(gated), wantList: "application/cbor", wantWatch: "application/cbor-seq"},
		{name: "gate off: JSON", object: "w-json", cfg: cluster.AdminConfig(), wantList: "application/json", wantWatch: "application/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lw, rec := gadgetListWatch(t, tc.cfg, ns, wire.ContentTypeCBOR)
			var got []*gadget
			var lm *metav1.ListMeta
			// The new server may not serve the CRD yet: retry while it
			// answers NotFound.
			var listErr error
			if err := poll(ctx, time.Minute, func() error {
				got = nil
				lm, listErr = lw.ListItems(ctx, metav1.ListOptions{}, func(g *gadget) error {
					got = append(got, normalizeGadget(t, g))
					return nil
				})
				if apierrors.IsNotFound(listErr) {
					return listErr
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if listErr != nil {
				t.Fatal(listErr)
			}
			if len(got) != len(want) {
				t.Fatalf("listed %d gadgets, want %d", len(got), len(want))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("gadget %d differs from the dynamic client's JSON:\n got %+v\nwant %+v", i, got[i], want[i])
				}
			}

			w, err := lw.Watch(ctx, metav1.ListOptions{ResourceVersion: lm.ResourceVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			name := tc.object
			if _, err := gadgets.Create(ctx, gadgetObject(ns, name, 7), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := gadgets.Patch(ctx, name, "application/merge-patch+json", []byte(`{"spec":{"replicas":8}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := gadgets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			var events []string
			for len(events) < 3 {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						t.Fatalf("the watch ended after %v", events)
					}
					g, isGadget := ev.Object.(*gadget)
					if !isGadget {
						t.Fatalf("event %s of %T: %+v", ev.Type, ev.Object, ev.Object)
					}
					if ev.Type == watch.Bookmark {
						continue
					}
					events = append(events, fmt.Sprintf("%s %s replicas=%d extra.s=%v", ev.Type, g.Name, g.Spec.Replicas, g.Spec.Extra["s"]))
				case <-ctx.Done():
					t.Fatalf("events so far %v: %v", events, ctx.Err())
				}
			}
			wantEvents := []string{
				"ADDED " + name + " replicas=7 extra.s=<&>",
				"MODIFIED " + name + " replicas=8 extra.s=<&>",
				"DELETED " + name + " replicas=8 extra.s=<&>",
			}
			if !reflect.DeepEqual(events, wantEvents) {
				t.Errorf("events %q, want %q", events, wantEvents)
			}

			wantSeen := []string{
				"list application/cbor, application/json;q=0.9 -> " + tc.wantList,
				"watch application/cbor, application/json;q=0.9 -> " + tc.wantWatch,
			}
			seen := rec.get()
			sort.Strings(seen)
			// Polls before the CRD was served add failed lists: keep the last.
			var last []string
			for _, s := range seen {
				if strings.HasPrefix(s, "list") {
					last = []string{s}
				}
			}
			for _, s := range seen {
				if strings.HasPrefix(s, "watch") {
					last = append(last, s)
				}
			}
			if !reflect.DeepEqual(last, wantSeen) {
				t.Errorf("requests %q, want %q", seen, wantSeen)
			}
		})
	}
}

// normalizeGadget makes a gadget comparable across encodings: the
// managedFields' JSON re-encoded canonically (the server's and a
// transcoder's key order may differ), the kind cleared.
func normalizeGadget(t *testing.T, g *gadget) *gadget {
	t.Helper()
	g.TypeMeta = metav1.TypeMeta{}
	for i := range g.ManagedFields {
		f := g.ManagedFields[i].FieldsV1
		if f == nil {
			continue
		}
		var v any
		if err := json.Unmarshal(f.GetRawBytes(), &v); err != nil {
			t.Fatalf("managedFields[%d] of %s is not JSON: %v (%q)", i, g.Name, err, f.GetRawBytes())
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		g.ManagedFields[i].FieldsV1 = metav1.NewFieldsV1(string(b))
	}
	return g
}

func pointerTo[T any](v T) *T { return &v }
