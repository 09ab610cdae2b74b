package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	runtimecontroller "github.com/typedinformer/typedinformer/runtime/controller"
)

func TestSoakNamespaceList(t *testing.T) {
	for _, tc := range []struct {
		list, single string
		want         []string
		wantErr      string
	}{
		{},
		{single: "a", want: []string{"a"}},
		{list: "a, b,c", want: []string{"a", "b", "c"}},
		{list: "a,,b", wantErr: "empty namespace name"},
		{list: "a", single: "b", wantErr: "exclusive"},
	} {
		got, err := (&soakFlags{namespaces: tc.list}).namespaceList(tc.single)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q/%q: error %v, want one containing %q", tc.list, tc.single, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q/%q: %v, %v; want %v", tc.list, tc.single, got, err, tc.want)
		}
	}
}

func TestSoakTracerPairsStartAndEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	tr, err := newTracer(path, "r1")
	if err != nil {
		t.Fatal(err)
	}
	tr.started("ns/a")
	tr.observe(runtimecontroller.Request{Namespace: "ns", Name: "a"}, controller.Created, nil)
	tr.observe(runtimecontroller.Request{Namespace: "ns", Name: "b"}, "", errors.New("boom"))
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []traceRecord
	for s := bufio.NewScanner(f); s.Scan(); {
		var r traceRecord
		if err := json.Unmarshal(s.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", s.Text(), err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 3 {
		t.Fatalf("got %d records, want 3: %+v", len(recs), recs)
	}
	start, end, orphan := recs[0], recs[1], recs[2]
	if start.Kind != "start" || end.Kind != "end" || end.Start != start.Start || end.End < end.Start ||
		end.Replica != "r1" || end.Outcome != string(controller.Created) {
		t.Errorf("start %+v and end %+v do not pair", start, end)
	}
	if orphan.Start != 0 || orphan.Error != "boom" {
		t.Errorf("an end without a start: %+v", orphan)
	}
	var nilTracer *tracer
	nilTracer.observe(runtimecontroller.Request{}, "", nil) // must not panic
}
