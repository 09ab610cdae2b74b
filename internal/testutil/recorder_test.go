package testutil

import (
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// step is one handler call fed to a Recorder.
type step struct {
	kind     string
	old, obj *corev1.Pod
	flag     bool // add: isInInitialList; delete: finalStateUnknown
}

func feed(r *Recorder[*corev1.Pod], steps []step) {
	for _, s := range steps {
		switch s.kind {
		case Add:
			r.OnAdd(s.obj, s.flag)
		case Update:
			r.OnUpdate(s.old, s.obj)
		case Delete:
			r.OnDelete(s.obj, s.flag)
		case "stop":
			r.Stop()
		}
	}
}

func p(name, rv string) *corev1.Pod { return Pod("ns", name, RV(rv)) }

// TestRecorderAcceptsConsistentStream feeds a stream that contradicts
// nothing, including a resync and a tombstone of the last delivered state.
func TestRecorderAcceptsConsistentStream(t *testing.T) {
	r := NewRecorder[*corev1.Pod]()
	feed(r, []step{
		{kind: Add, obj: p("a", "1"), flag: true},
		{kind: Add, obj: p("b", "2")},
		{kind: Update, old: p("a", "1"), obj: p("a", "3")},
		{kind: Update, old: p("a", "3"), obj: p("a", "3")},
		{kind: Delete, obj: p("a", "4")},
		{kind: Delete, obj: p("b", "2"), flag: true},
		{kind: Add, obj: p("a", "5")},
	})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.String(), "ns/a@5"; got != want {
		t.Errorf("view %q, want %q", got, want)
	}
	want := []string{
		"add ns/a@1 initial=true", "add ns/b@2 initial=false", "update ns/a@1->3", "update ns/a@3->3",
		"delete ns/a@4 unknown=false", "delete ns/b@2 unknown=true", "add ns/a@5 initial=false",
	}
	if got := r.Events(); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	if r.Tombstones() != 1 || r.MaxRV() != 5 || !r.Holds("ns/a", "5") || len(r.CallsOf("ns/b")) != 2 {
		t.Errorf("tombstones %d, max rv %d, holds a@5 %t, calls of b %v", r.Tombstones(), r.MaxRV(), r.Holds("ns/a", "5"), r.CallsOf("ns/b"))
	}
}

// TestRecorderReportsContradictions feeds one broken stream per check and
// wants exactly that check to fire.
func TestRecorderReportsContradictions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
		want  string
	}{
		{"AddOfPresentKey", []step{{kind: Add, obj: p("a", "1")}, {kind: Add, obj: p("a", "2")}}, "add ns/a@2 while 1 is held"},
		{"UpdateOfAbsentKey", []step{{kind: Update, old: p("a", "1"), obj: p("a", "2")}}, "update ns/a@2 of an absent key"},
		{"UpdateAfterDelete", []step{{kind: Add, obj: p("a", "1")}, {kind: Delete, obj: p("a", "2")}, {kind: Update, old: p("a", "2"), obj: p("a", "3")}}, "update ns/a@3 of an absent key"},
		{"UpdateWithStaleOld", []step{{kind: Add, obj: p("a", "1")}, {kind: Update, old: p("a", "1"), obj: p("a", "2")}, {kind: Update, old: p("a", "1"), obj: p("a", "3")}}, "update ns/a: old@1 but last delivered @2"},
		{"DeleteOfAbsentKey", []step{{kind: Delete, obj: p("a", "1")}}, "delete ns/a@1 of an absent key"},
		{"StaleTombstone", []step{{kind: Add, obj: p("a", "1")}, {kind: Update, old: p("a", "1"), obj: p("a", "2")}, {kind: Delete, obj: p("a", "1"), flag: true}}, "tombstone ns/a@1 but last delivered @2"},
		{"VersionGoesBack", []step{{kind: Add, obj: p("a", "5")}, {kind: Update, old: p("a", "5"), obj: p("a", "4")}}, "ns/a: resourceVersion went back from 5 to 4"},
		{"VersionGoesBackAcrossDelete", []step{{kind: Add, obj: p("a", "5")}, {kind: Delete, obj: p("a", "6")}, {kind: Add, obj: p("a", "3")}}, "ns/a: resourceVersion went back from 6 to 3"},
		{"CallAfterStop", []step{{kind: Add, obj: p("a", "1")}, {kind: "stop"}, {kind: Update, old: p("a", "1"), obj: p("a", "2")}}, "update ns/a@1->2 after the handler was removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRecorder[*corev1.Pod]()
			feed(r, tc.steps)
			if got := r.Violations(); !slices.Equal(got, []string{tc.want}) {
				t.Errorf("violations %q, want [%q]", got, tc.want)
			}
			err := r.Err()
			if err == nil || !strings.Contains(err.Error(), "handler saw 1 inconsistent notifications: "+tc.want) {
				t.Errorf("Err() = %v", err)
			}
		})
	}
}

// TestRecorderCountsBeyondTheDescribedViolations checks Err counts every
// contradiction while describing only the first maxViolations.
func TestRecorderCountsBeyondTheDescribedViolations(t *testing.T) {
	r := NewRecorder[*corev1.Pod]()
	for range maxViolations + 5 {
		r.OnDelete(p("a", "1"), false)
	}
	if n := len(r.Violations()); n != maxViolations {
		t.Errorf("%d violations described, want %d", n, maxViolations)
	}
	if err := r.Err(); err == nil || !strings.HasPrefix(err.Error(), "handler saw 25 ") {
		t.Errorf("Err() = %v", err)
	}
}

// TestRecorderBeforeAndNote checks the hook runs first with the call's kind
// and that notes join the log.
func TestRecorderBeforeAndNote(t *testing.T) {
	r := NewRecorder[*corev1.Pod]()
	var kinds []string
	r.Before = func(kind string, obj *corev1.Pod) {
		kinds = append(kinds, kind+" "+Key(obj)+" seen="+strings.Join(r.Events(), ","))
	}
	r.OnAdd(p("a", "1"), false)
	r.Note("exit %s", "ns/a")
	r.OnDelete(p("a", "1"), false)
	want := []string{"add ns/a seen=", "delete ns/a seen=add ns/a@1 initial=false,exit ns/a"}
	if !slices.Equal(kinds, want) {
		t.Errorf("hook saw %q, want %q", kinds, want)
	}
	if !r.Has("exit ns/a") || r.Len() != 3 || !slices.Equal(r.Keys(), []string{"ns/a"}) {
		t.Errorf("events %q, keys %q", r.Events(), r.Keys())
	}
}

// TestBuilders checks the options land in the metadata.
func TestBuilders(t *testing.T) {
	pod := Pod("ns", "a", Labels("k", "v", "x", "y"), RV("7"))
	if pod.Namespace != "ns" || pod.Name != "a" || pod.ResourceVersion != "7" || pod.Labels["k"] != "v" || pod.Labels["x"] != "y" {
		t.Errorf("pod %+v", pod.ObjectMeta)
	}
	if Pod("", "b", Labels()).Labels != nil || Key(Pod("", "b")) != "b" {
		t.Error("no labels, or a cluster-scoped key, came out wrong")
	}
	if cm := ConfigMap("ns", "c"); Key(cm) != "ns/c" {
		t.Errorf("configmap key %q", Key(cm))
	}
}

// TestEverFalse checks the sampler reports a condition that turned false
// once, and none for one that never does.
func TestEverFalse(t *testing.T) {
	stop := EverFalse(t, func() bool { return true })
	first := stop()
	if first || stop() != first {
		t.Error("a condition that is always true was reported false, or a second call changed the answer")
	}
	saw := make(chan struct{})
	var once sync.Once
	stop = EverFalse(t, func() bool {
		once.Do(func() { close(saw) })
		return false
	})
	<-saw
	if !stop() {
		t.Error("a condition that was false was not reported")
	}
}
