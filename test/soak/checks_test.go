package soak

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

func foo(ns, name, rv string, gen int64, class string, data map[string]string) samplesv1alpha1.Foo {
	return samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "-" + name), ResourceVersion: rv, Generation: gen},
		Spec:       samplesv1alpha1.FooSpec{ClassName: class, Data: data},
		Status:     samplesv1alpha1.FooStatus{ObservedGeneration: gen, Phase: controller.PhaseReady, ConfigMapName: name},
	}
}

func configMapOf(f samplesv1alpha1.Foo, rv string, data map[string]string) corev1.ConfigMap {
	return corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: f.Name, ResourceVersion: rv, UID: types.UID("cm-" + f.Name),
			Labels:          map[string]string{controller.FooLabel: f.Name},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(&f, schema.GroupVersion(samplesv1alpha1.GroupVersion).WithKind("Foo"))}},
		Data: data,
	}
}

func TestContractDivergences(t *testing.T) {
	classes := map[string]map[string]string{"base": {"a": "class", "b": "class"}}
	plain := foo("ns", "plain", "10", 1, "", map[string]string{"a": "1"})
	classed := foo("ns", "classed", "11", 2, "base", map[string]string{"a": "2"})
	stale := foo("ns", "stale", "12", 3, "", map[string]string{"a": "3"})
	stale.Status.ObservedGeneration = 2
	other := foo("ns", "other", "13", 1, "", nil)
	for _, tc := range []struct {
		name string
		foos []samplesv1alpha1.Foo
		cms  []corev1.ConfigMap
		want []string // each a substring of one divergence, in order
	}{
		{name: "all in line",
			foos: []samplesv1alpha1.Foo{plain, classed},
			cms: []corev1.ConfigMap{configMapOf(plain, "20", map[string]string{"a": "1"}),
				configMapOf(classed, "21", map[string]string{"a": "2", "b": "class"})}},
		{name: "missing ConfigMap", foos: []samplesv1alpha1.Foo{plain}, want: []string{"Foo ns/plain: no ConfigMap plain"}},
		{name: "class defaults not merged",
			foos: []samplesv1alpha1.Foo{classed},
			cms:  []corev1.ConfigMap{configMapOf(classed, "21", map[string]string{"a": "2"})},
			want: []string{"ConfigMap classed has map[a:2], want map[a:2 b:class]"}},
		{name: "drift left in place",
			foos: []samplesv1alpha1.Foo{plain},
			cms:  []corev1.ConfigMap{configMapOf(plain, "20", map[string]string{"a": "1", "drift": "x"})},
			want: []string{"ConfigMap plain has"}},
		{name: "owned by another Foo",
			foos: []samplesv1alpha1.Foo{plain},
			cms: func() []corev1.ConfigMap {
				cm := configMapOf(other, "20", map[string]string{"a": "1"})
				cm.Name = "plain"
				return []corev1.ConfigMap{cm}
			}(),
			want: []string{"not controlled by it"}},
		{name: "status behind the generation",
			foos: []samplesv1alpha1.Foo{stale},
			cms:  []corev1.ConfigMap{configMapOf(stale, "22", map[string]string{"a": "3"})},
			want: []string{`status "Ready" for generation 2, want "Ready" for 3`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := contractDivergences(tc.foos, tc.cms, classes)
			requireLines(t, got, tc.want)
		})
	}
}

func TestOrphans(t *testing.T) {
	plain := foo("ns", "plain", "10", 1, "", nil)
	gone := foo("ns", "gone", "11", 1, "", nil)
	got := orphans([]samplesv1alpha1.Foo{plain}, []corev1.ConfigMap{configMapOf(plain, "1", nil), configMapOf(gone, "2", nil),
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "noise"}}})
	requireLines(t, got, []string{"ConfigMap ns/gone outlives its Foo gone"})
}

func TestCacheDivergences(t *testing.T) {
	a := foo("a-ns", "a", "10", 1, "", nil)
	b := foo("b-ns", "b", "11", 1, "", nil)
	cmA := configMapOf(a, "20", nil)
	foos, cms := []samplesv1alpha1.Foo{a, b}, []corev1.ConfigMap{cmA}
	// A scope holding exactly a-ns's hash.
	h := sharding.Hash("a-ns")
	onlyA := sharding.FormatRanges([]sharding.Range{{First: h, Last: h}})
	for _, tc := range []struct {
		name string
		dump cacheDump
		want []string
	}{
		{name: "equal", dump: cacheDump{Informers: map[string]map[string]string{
			"foos": {"a-ns/a": "10", "b-ns/b": "11"}, "configmaps": {"a-ns/a": "20"}}}},
		{name: "stale resourceVersion", dump: cacheDump{Informers: map[string]map[string]string{
			"foos": {"a-ns/a": "9", "b-ns/b": "11"}, "configmaps": {"a-ns/a": "20"}}},
			want: []string{"r foos cache: a-ns/a at rv 9, server 10"}},
		{name: "missing and extra", dump: cacheDump{Informers: map[string]map[string]string{
			"foos": {"a-ns/a": "10", "b-ns/b": "11", "b-ns/deleted": "5"}, "configmaps": {}}},
			want: []string{"r foos cache: b-ns/deleted (rv 5) not on the server", "r configmaps cache: missing a-ns/a"}},
		{name: "sharded scope: equal", dump: cacheDump{ShardField: string(sharding.FieldNamespace), ShardScope: onlyA,
			Informers: map[string]map[string]string{"foos": {"a-ns/a": "10"}, "configmaps": {"a-ns/a": "20"}}}},
		{name: "sharded scope: object outside it cached", dump: cacheDump{ShardField: string(sharding.FieldNamespace), ShardScope: onlyA,
			Informers: map[string]map[string]string{"foos": {"a-ns/a": "10", "b-ns/b": "11"}, "configmaps": {"a-ns/a": "20"}}},
			want: []string{"r foos cache: b-ns/b (rv 11) not on the server in its scope"}},
		{name: "bad scope", dump: cacheDump{ShardField: string(sharding.FieldNamespace), ShardScope: "nonsense"},
			want: []string{`shard scope "nonsense"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireLines(t, cacheDivergences("r", tc.dump, foos, cms), tc.want)
		})
	}
}

func TestOverlaps(t *testing.T) {
	span := func(replica, key string, start, end int64) reconcileSpan {
		return reconcileSpan{replica: replica, key: key, start: start, end: end}
	}
	for _, tc := range []struct {
		name               string
		spans              []reconcileSpan
		pausedReplica      string
		wantDouble, wantIn int
	}{
		{name: "one replica, back to back", spans: []reconcileSpan{span("r1", "k", 1, 2), span("r1", "k", 2, 3)}},
		{name: "two replicas, apart", spans: []reconcileSpan{span("r1", "k", 1, 2), span("r2", "k", 3, 4)}},
		{name: "two replicas, other keys", spans: []reconcileSpan{span("r1", "k", 1, 5), span("r2", "j", 2, 4)}},
		{name: "two replicas overlap", spans: []reconcileSpan{span("r2", "k", 2, 4), span("r1", "k", 1, 3)}, wantDouble: 1},
		{name: "nested", spans: []reconcileSpan{span("r1", "k", 1, 10), span("r2", "k", 2, 3), span("r2", "k", 4, 5)}, wantDouble: 2},
		{name: "in flight across a pause", spans: []reconcileSpan{span("r1", "k", 1, 10), span("r2", "k", 2, 3)},
			pausedReplica: "r1", wantIn: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			double, in := overlaps(tc.spans, func(s reconcileSpan) bool { return s.replica == tc.pausedReplica })
			if len(double) != tc.wantDouble || len(in) != tc.wantIn {
				t.Errorf("double %q, paused in flight %q; want %d and %d", double, in, tc.wantDouble, tc.wantIn)
			}
		})
	}
}

func TestLeaseLogHeldAt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &leaseLog{records: map[leaseRecord]bool{
		{Holder: "a", Renew: t0, Duration: 5 * time.Second}:                       true,
		{Holder: "a", Renew: t0.Add(4 * time.Second), Duration: 5 * time.Second}:  true,
		{Holder: "b", Renew: t0.Add(20 * time.Second), Duration: 5 * time.Second}: true,
		// Only the renewal right after the acquisition was seen.
		{Holder: "d", Acquire: t0.Add(30 * time.Second), Renew: t0.Add(30*time.Second + 10*time.Millisecond), Duration: 5 * time.Second}: true,
		// Acquired long before this renewal: a lapse may lie in between.
		{Holder: "e", Acquire: t0.Add(40 * time.Second), Renew: t0.Add(50 * time.Second), Duration: 5 * time.Second}: true,
	}}
	for _, tc := range []struct {
		holder string
		at     time.Duration
		want   bool
	}{
		{"a", -time.Second, false}, // before its first renewal
		{"a", 0, true},
		{"a", 8 * time.Second, true},   // the second renewal reaches 9s
		{"a", 9 * time.Second, true},   // inclusive
		{"a", 10 * time.Second, false}, // expired
		{"b", 10 * time.Second, false}, // not yet acquired
		{"b", 21 * time.Second, true},
		{"c", 21 * time.Second, false},                   // never held
		{"d", 30*time.Second + 5*time.Millisecond, true}, // between the acquisition and the renewal seen
		{"d", 30*time.Second - time.Millisecond, false},  // before the acquisition
		{"e", 42 * time.Second, false},                   // the renewal seen is too far from the acquisition
		{"e", 52 * time.Second, true},
	} {
		if got := l.heldAt(tc.holder, t0.Add(tc.at)); got != tc.want {
			t.Errorf("heldAt(%s, t0+%v) = %v, want %v", tc.holder, tc.at, got, tc.want)
		}
	}
}

func TestScheduleOpensEveryCycleWithTheRequiredFaults(t *testing.T) {
	s := newSchedule(7, nil)
	n := len(requiredFaults) + len(otherFaults)
	for cycle := range 3 {
		seen := map[string]int{}
		for i := range n {
			k := s.next()
			seen[k]++
			if i < len(requiredFaults) && !contains(requiredFaults, k) {
				t.Errorf("cycle %d: fault %d is %s, want one of %v first", cycle, i, k, requiredFaults)
			}
		}
		for _, k := range append(requiredFaults[:len(requiredFaults):len(requiredFaults)], otherFaults...) {
			if seen[k] != 1 {
				t.Errorf("cycle %d: %s injected %d times, want once", cycle, k, seen[k])
			}
		}
	}
	a, b := newSchedule(7, nil), newSchedule(7, nil)
	for range 2 * n {
		if x, y := a.next(), b.next(); x != y {
			t.Fatalf("one seed, two schedules: %s and %s", x, y)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// requireLines requires one line of got per want, each containing it.
func requireLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d divergences %q, want %d like %q", len(got), got, len(want), want)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("divergence %d: %q, want it to contain %q", i, got[i], want[i])
		}
	}
}

func TestCountConns(t *testing.T) {
	// Two rows to port 0x1F90 (8080) in the process's inodes, one in
	// another process, one to another port; a header; a short row.
	const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:A000 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 111 1 0000000000000000 20 4 30 10 -1
   1: 0100007F:A001 0100007F:1F90 08 00000000:00000000 00:00000000 00000000  1000        0 112 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:A002 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 999 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:A003 0100007F:1F91 01 00000000:00000000 00:00000000 00000000  1000        0 113 1 0000000000000000 20 4 30 10 -1
   4: 0100007F:A004
`
	mine := map[string]bool{"111": true, "112": true, "113": true}
	for _, tc := range []struct {
		name   string
		inodes map[string]bool
		port   uint64
		want   int
	}{
		{"established and close-wait to the port", mine, 8080, 2},
		{"other port", mine, 8081, 1},
		{"no sockets of the process", map[string]bool{}, 8080, 0},
		{"unused port", mine, 9000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := countConns(table, tc.inodes, tc.port); got != tc.want {
				t.Errorf("countConns = %d, want %d", got, tc.want)
			}
		})
	}
}

// countReflectors reads a debug=1 goroutine dump as the Go runtime writes
// it: groups of identical stacks with their count.
func TestCountReflectors(t *testing.T) {
	const r = "github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"
	group := func(n int, frames ...string) string {
		s := fmt.Sprintf("%d @ 0x48c4ae 0x468705 0x1231b35\n", n)
		for _, f := range frames {
			s += "#\t0x1231b34\t" + f + "+0x174\t/src/reflector.go:551\n"
		}
		return s
	}
	for _, tc := range []struct {
		name                 string
		groups               []string
		watching, reflectors int
	}{
		{name: "steady", groups: []string{
			group(6, r+".(*Reflector[...]).handleWatch", r+".(*Reflector[...]).watchLoop", r+".(*Reflector[...]).Run"),
			group(3, "net/http.(*persistConn).readLoop"),
		}, watching: 6, reflectors: 6},
		{name: "some dialling or in backoff", groups: []string{
			group(6, r+".(*Reflector[...]).handleWatch", r+".(*Reflector[...]).watchLoop", r+".(*Reflector[...]).Run"),
			group(7, "k8s.io/client-go/rest.(*Request).Watch", r+".(*Reflector[...]).watchLoop", r+".(*Reflector[...]).Run"),
			group(1, r+".(*backoff).wait", r+".(*Reflector[...]).Run"),
		}, watching: 6, reflectors: 14},
		{name: "no informers", groups: []string{group(2, "main.main")}, watching: 0, reflectors: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dump := "goroutine profile: total 42\n" + strings.Join(tc.groups, "\n")
			w, n := countReflectors(dump)
			if w != tc.watching || n != tc.reflectors {
				t.Fatalf("countReflectors = %d watching of %d, want %d of %d", w, n, tc.watching, tc.reflectors)
			}
		})
	}
}
