package wirediff_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/typedinformer/typedinformer/runtime/wire"
)

var (
	splits  = flag.Int("wirediff.splits", 1, "deliveries of every fixture body in random small reads (besides the whole body)")
	maxRead = flag.Int("wirediff.maxread", 256, "the largest read of a split delivery (each read is 1..maxread bytes)")
	only    = flag.String("wirediff.only", "", "only fixtures whose release/group.version.Kind contains this")
)

// apiVersion is the k8s.io/api release whose fixtures are read; go.mod
// requires the same.
const apiVersion = "v0.37.2"

// fixture is one round-trip fixture of k8s.io/api: an object of a kind
// that has a List type, as one release serialized it.
type fixture struct {
	release string // "HEAD", "v1.36.0", ...
	gvk     schema.GroupVersionKind
	json    []byte         // the .json file
	pb      []byte         // the .pb file (an object in its envelope); nil when missing
	obj     runtime.Object // decoded from json
}

func (f fixture) name() string {
	g := f.gvk.Group
	if g == "" {
		g = "core"
	}
	return f.release + "/" + g + "." + f.gvk.Version + "." + f.gvk.Kind
}

// loadFixtures reads the fixtures of every release directory under
// k8s.io/api's testdata.
var loadFixtures = sync.OnceValues(func() ([]fixture, error) {
	out, err := exec.Command("go", "mod", "download", "-json", "k8s.io/api@"+apiVersion).Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download k8s.io/api@%s: %w", apiVersion, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return nil, fmt.Errorf("go mod download k8s.io/api@%s: %w", apiVersion, err)
	}
	if mod.Dir == "" {
		return nil, fmt.Errorf("go mod download k8s.io/api@%s: no Dir in %s", apiVersion, out)
	}
	releases, err := os.ReadDir(filepath.Join(mod.Dir, "testdata"))
	if err != nil {
		return nil, err
	}
	var fixtures []fixture
	for _, rel := range releases {
		if !rel.IsDir() {
			continue
		}
		dir := filepath.Join(mod.Dir, "testdata", rel.Name())
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, file := range files {
			parts := strings.Split(strings.TrimSuffix(filepath.Base(file), ".json"), ".")
			if len(parts) < 3 {
				continue
			}
			gvk := schema.GroupVersionKind{Group: strings.Join(parts[:len(parts)-2], "."), Version: parts[len(parts)-2], Kind: parts[len(parts)-1]}
			if gvk.Group == "core" {
				gvk.Group = ""
			}
			if !isResource(gvk) {
				continue
			}
			f := fixture{release: rel.Name(), gvk: gvk}
			if f.json, err = os.ReadFile(file); err != nil {
				return nil, err
			}
			if pb, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".pb"); err == nil {
				f.pb = pb
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(f.json, nil, nil)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			f.obj = obj
			fixtures = append(fixtures, f)
		}
	}
	return fixtures, nil
})

// isResource reports whether gvk is a kind a ListWatch can serve: an
// object with ObjectMeta in client-go's scheme, and a List type with
// Items (which, for example, the discovery types of the core group lack).
func isResource(gvk schema.GroupVersionKind) bool {
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return false
	}
	if _, ok := obj.(wire.Item); !ok {
		return false
	}
	list, err := scheme.Scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return err == nil && meta.IsListType(list)
}

// stripTypeMeta removes the top-level kind and apiVersion members of a
// fixture's JSON (written by the serializer and indented: they are its
// first members, one a line), as the API server writes list items.
func stripTypeMeta(b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	var out [][]byte
	for i, l := range lines {
		if i > 0 && i < 4 && (bytes.HasPrefix(l, []byte(`  "kind": `)) || bytes.HasPrefix(l, []byte(`  "apiVersion": `))) {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, nil)
}

// fixtureBodies are the bodies built from one fixture in one encoding.
type fixtureBodies struct {
	list, watch, watchList []byte
}

// listMeta is the metadata of every fixture list.
var listMeta = metav1.ListMeta{ResourceVersion: "12345", Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", RemainingItemCount: func() *int64 { n := int64(7); return &n }()}

// bodies builds f's list, watch stream and watch-list stream in enc. The
// list holds the fixture twice: first as the API server lists it
// (without kind and apiVersion: protobuf never has them, JSON and CBOR
// items drop them), then with them as the fixture has them. The watch is
// ADDED, MODIFIED, a BOOKMARK, DELETED and an ERROR event (410 Expired);
// the watch-list two ADDED events, the initial-events-end BOOKMARK and a
// MODIFIED event. Event objects carry kind and apiVersion, as the API
// server writes them.
func (f fixture) bodies(enc encoding) (fixtureBodies, error) {
	var b fixtureBodies
	var items [][]byte
	var obj []byte
	var err error
	switch enc.name {
	case "json":
		items = [][]byte{stripTypeMeta(f.json), f.json}
		obj = f.json
		b.list, err = jsonList(f.gvk, listMeta, items)
	case "protobuf":
		if f.pb == nil {
			return b, errNoFixture
		}
		raw, err := unenvelope(f.pb)
		if err != nil {
			return b, err
		}
		obj = f.pb
		b.list, err = protoList(f.gvk, listMeta, [][]byte{raw, raw})
		if err != nil {
			return b, err
		}
		if err := checkProtoList(f, b.list); err != nil {
			return b, err
		}
	case "cbor":
		if obj, err = encodeObject(enc, f.obj, f.gvk); err != nil {
			return b, err
		}
		list, err := scheme.Scheme.New(f.gvk.GroupVersion().WithKind(f.gvk.Kind + "List"))
		if err != nil {
			return b, err
		}
		bare := f.obj.DeepCopyObject()
		bare.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		typed := f.obj.DeepCopyObject()
		typed.GetObjectKind().SetGroupVersionKind(f.gvk)
		if err := meta.SetList(list, []runtime.Object{bare, typed}); err != nil {
			return b, err
		}
		la, err := meta.ListAccessor(list)
		if err != nil {
			return b, err
		}
		la.SetResourceVersion(listMeta.ResourceVersion)
		la.SetContinue(listMeta.Continue)
		la.SetRemainingItemCount(listMeta.RemainingItemCount)
		if b.list, err = encodeObject(enc, list, f.gvk.GroupVersion().WithKind(f.gvk.Kind+"List")); err != nil {
			return b, err
		}
	}
	if err != nil {
		return b, err
	}
	bookmark, err := f.bookmark(enc, false)
	if err != nil {
		return b, err
	}
	end, err := f.bookmark(enc, true)
	if err != nil {
		return b, err
	}
	gone, err := encodeObject(enc, &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired,
		Message: "too old resource version: 1 (12345)"}, metav1.SchemeGroupVersion.WithKind("Status"))
	if err != nil {
		return b, err
	}
	if b.watch, err = watchBody(enc, []event{{"ADDED", obj}, {"MODIFIED", obj}, {"BOOKMARK", bookmark}, {"DELETED", obj}, {"ERROR", gone}}); err != nil {
		return b, err
	}
	b.watchList, err = watchBody(enc, []event{{"ADDED", obj}, {"ADDED", obj}, {"BOOKMARK", end}, {"MODIFIED", obj}})
	return b, err
}

var errNoFixture = fmt.Errorf("no fixture in this encoding")

// bookmark encodes a BOOKMARK event's object as the API server writes it:
// an empty object of the kind with only a resourceVersion, and the
// initial-events-end annotation when end is set.
func (f fixture) bookmark(enc encoding, end bool) ([]byte, error) {
	obj, err := scheme.Scheme.New(f.gvk)
	if err != nil {
		return nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion("12346")
	if end {
		m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return encodeObject(enc, obj, f.gvk)
}

// checkProtoList makes sure a protobuf list built by protoList is what it
// means to be (its field numbers right for this kind): decoded by the
// list type's own Unmarshal, it has the two items and the metadata.
func checkProtoList(f fixture, body []byte) error {
	list, err := scheme.Scheme.New(f.gvk.GroupVersion().WithKind(f.gvk.Kind + "List"))
	if err != nil {
		return err
	}
	raw, err := unenvelope(body)
	if err != nil {
		return err
	}
	if err := list.(interface{ Unmarshal([]byte) error }).Unmarshal(raw); err != nil {
		return fmt.Errorf("the list built does not decode: %w", err)
	}
	if n := meta.LenList(list); n != 2 {
		return fmt.Errorf("the list built decodes to %d items, want 2", n)
	}
	la, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	if la.GetResourceVersion() != listMeta.ResourceVersion {
		return fmt.Errorf("the list built has resourceVersion %q", la.GetResourceVersion())
	}
	return nil
}

// TestFixtures compares client-go and wire on every fixture, in every
// encoding, as a list, a watch stream and a watch-list stream, delivered
// whole and in -wirediff.splits deliveries of random small reads.
func TestFixtures(t *testing.T) {
	fixtures, err := loadFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if len(fixtures) < 600 {
		t.Fatalf("only %d fixtures of kinds with a List type: is k8s.io/api's testdata where it was?", len(fixtures))
	}
	kinds := map[schema.GroupVersionKind]bool{}
	for _, f := range fixtures {
		kinds[f.gvk] = true
	}
	t.Logf("%d fixtures of %d kinds with a List type", len(fixtures), len(kinds))
	for _, f := range fixtures {
		if *only != "" && !strings.Contains(f.name(), *only) {
			continue
		}
		t.Run(f.name(), func(t *testing.T) {
			t.Parallel()
			for _, enc := range encodings {
				b, err := f.bodies(enc)
				if err == errNoFixture { //nolint:errorlint // a sentinel of this file, never wrapped
					continue
				}
				if err != nil {
					t.Errorf("%s: building the bodies: %v", enc.name, err)
					continue
				}
				tg := target{gvk: f.gvk, enc: enc}
				cases := []struct {
					name    string
					srv     server
					list    bool
					watches bool
					opts    metav1.ListOptions
				}{
					{name: "list", srv: server{list: response{contentType: enc.contentType, body: b.list}}, list: true,
						opts: metav1.ListOptions{ResourceVersion: "0", Limit: 500}},
					{name: "watch", srv: server{watch: response{contentType: enc.watchType, body: b.watch}}, watches: true,
						opts: metav1.ListOptions{ResourceVersion: "12345", AllowWatchBookmarks: true}},
					{name: "watchlist", srv: server{watch: response{contentType: enc.watchType, body: b.watchList}}, watches: true,
						opts: metav1.ListOptions{SendInitialEvents: func() *bool { v := true; return &v }(), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true}},
				}
				for _, c := range cases {
					for d := 0; d <= *splits; d++ {
						srv := c.srv
						delivery := "whole"
						if d > 0 {
							srv.maxRead = *maxRead
							srv.seed = seedOf(f.name(), enc.name, c.name, d)
							delivery = fmt.Sprintf("reads of 1..%d bytes, seed %d", srv.maxRead, srv.seed)
						}
						for _, diff := range diffBodies(t, tg, viaREST, &srv, c.list, c.watches, c.opts) {
							t.Errorf("%s %s, %s: %s", enc.name, c.name, delivery, diff)
						}
					}
				}
			}
		})
	}
}

// seedOf derives a delivery's seed from its name, so that every run
// splits a body the same way and a failure can be replayed.
func seedOf(parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return h.Sum64()
}
