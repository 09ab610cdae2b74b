package scenario

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// wireCaseEnv carries the WireOptions of one case to the test binary run
// as a fresh process; wireOutEnv names the file its result goes to.
const (
	wireCaseEnv = "TYPEDINFORMER_WIRE_TEST_CASE"
	wireOutEnv  = "TYPEDINFORMER_WIRE_TEST_OUT"
)

// Each side must sync through a real clientset and HTTP server in each
// encoding and mode, and the server must have served the path the mode
// names in the encoding asked for; the numbers are not checked. Every case
// runs in a fresh process, as the bench runs them: client-go reads its
// watch-list switch once per process.
func TestWire(t *testing.T) {
	if c := os.Getenv(wireCaseEnv); c != "" {
		runWireCase(t, c)
		return
	}
	dir := t.TempDir()
	const n = 200
	for _, pods := range []string{PodsTwoManagers, PodsRich} {
		if err := WriteWireFixture(dir, pods, n); err != nil {
			t.Fatal(err)
		}
	}
	type wcase struct {
		side       Side
		sync, pods string
	}
	cases := []wcase{
		{ClientGo, WireList, PodsTwoManagers}, {Ours, WireList, PodsTwoManagers},
		{ClientGo, WireWatchList, PodsTwoManagers}, {Ours, WireWatchList, PodsTwoManagers},
		{Ours, WireLean, PodsTwoManagers},
		{ClientGo, WireList, PodsRich}, {Ours, WireList, PodsRich},
	}
	for _, enc := range []string{EncJSON, EncProtobuf} {
		for _, c := range cases {
			t.Run(strings.Join([]string{string(c.side), c.sync, c.pods, enc}, "/"), func(t *testing.T) {
				t.Parallel()
				r := wireInProcess(t, WireOptions{Side: c.side, Enc: enc, Sync: c.sync, Pods: c.pods, N: n, Dir: dir})
				lists, watchLists := map[string]int{enc: 1}, map[string]int{}
				if c.sync != WireList {
					lists, watchLists = map[string]int{}, map[string]int{enc: 1}
				}
				if !mapsEqual(r.Lists, lists) || !mapsEqual(r.WatchLists, watchLists) || r.SyncedHeap == 0 || r.SyncPeakRSS == 0 {
					t.Fatalf("result %+v: want lists %v and watch-lists %v", r, lists, watchLists)
				}
				if wantMF := map[bool]int{true: 0, false: n}[c.sync == WireLean]; r.WithManagedFields != wantMF {
					t.Fatalf("result %+v: %d Pods reached the handler with managedFields, want %d", r, r.WithManagedFields, wantMF)
				}
				if c.sync == WireList && r.Watches < 1 {
					t.Fatalf("result %+v: want a watch after the list", r)
				}
			})
		}
	}
	t.Run("floor", func(t *testing.T) {
		t.Parallel()
		r := wireInProcess(t, WireOptions{Side: Ours, Enc: EncProtobuf, Sync: WireFloor, Pods: PodsTwoManagers, N: n, Dir: dir})
		if r.SyncSeconds <= 0 || r.SyncedHeap == 0 {
			t.Fatalf("result %+v: want a time and a heap", r)
		}
	})
	for _, o := range []WireOptions{
		{Side: ClientGo, Enc: EncJSON, Sync: WireLean, Pods: PodsTwoManagers},
		{Side: Ours, Enc: EncJSON, Sync: WireFloor, Pods: PodsTwoManagers},
		{Side: Ours, Enc: "yaml", Sync: WireList, Pods: PodsTwoManagers},
		{Side: Ours, Enc: EncJSON, Sync: WireList, Pods: "three"},
	} {
		o.N, o.Dir = n, dir
		if _, err := Wire(o); err == nil {
			t.Errorf("Wire(%+v) = nil error, want one", o)
		}
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// wireInProcess runs Wire(o) in a fresh process of this test binary.
func wireInProcess(t *testing.T, o WireOptions) WireResult {
	t.Helper()
	c, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "result.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWire$")
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "KUBE_FEATURE_") }),
		wireCaseEnv+"="+string(c), wireOutEnv+"="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%+v: %v\n%s", o, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r WireResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// runWireCase is the fresh process's side of wireInProcess.
func runWireCase(t *testing.T, c string) {
	var o WireOptions
	if err := json.Unmarshal([]byte(c), &o); err != nil {
		t.Fatal(err)
	}
	r, err := Wire(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv(wireOutEnv), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The floor must unmarshal exactly the items of the protobuf list response.
func TestProtoListItems(t *testing.T) {
	dir := t.TempDir()
	const n = 30
	if err := WriteWireFixture(dir, PodsRich, n); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(wireListPath(dir, PodsRich, EncProtobuf, n))
	if err != nil {
		t.Fatal(err)
	}
	items, err := protoListItems(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != n {
		t.Fatalf("%d items, want %d", len(items), n)
	}
	for i, it := range items {
		var p corev1.Pod
		if err := p.Unmarshal(it); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		want := DecodePod(i)
		wb, err := want.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(it, wb) || p.Name != want.Name {
			t.Fatalf("item %d (%s) is not DecodePod(%d)'s encoding", i, p.Name, i)
		}
	}
	for _, bad := range [][]byte{[]byte("{}"), []byte("k8s\x00\x12\xff")} {
		if _, err := protoListItems(bad); err == nil {
			t.Errorf("protoListItems(%q) = nil error, want one", bad)
		}
	}
}
