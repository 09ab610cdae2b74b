package main

import (
	"testing"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// A whole-cache run counts only when the server served its objects once,
// in the encoding of their kind: protobuf for typed Pods, JSON for Foos and
// unstructured Pods.
func TestCRWireServed(t *testing.T) {
	const js, pb = scenario.EncJSON, scenario.EncProtobuf
	m := func(enc string) map[string]int { return map[string]int{enc: 1} }
	for _, tc := range []struct {
		name       string
		obj        string
		lists, wls map[string]int
		wantErr    bool
	}{
		{name: "typed Pods listed as protobuf", obj: scenario.CRObjPods, lists: m(pb)},
		{name: "typed Pods streamed as protobuf", obj: scenario.CRObjPods, wls: m(pb)},
		{name: "Foos as JSON", obj: scenario.CRObjFoos, wls: m(js)},
		{name: "unstructured Pods as JSON", obj: scenario.CRObjUnstructured, lists: m(js)},
		{name: "typed Pods as JSON", obj: scenario.CRObjPods, lists: m(js), wantErr: true},
		{name: "unstructured Pods as protobuf", obj: scenario.CRObjUnstructured, lists: m(pb), wantErr: true},
		{name: "a watch-list and then a list", obj: scenario.CRObjFoos, lists: m(js), wls: m(js), wantErr: true},
		{name: "nothing served", obj: scenario.CRObjPods, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := crWireServed(tc.obj, scenario.CRWireResult{Lists: tc.lists, WatchLists: tc.wls})
			if (err != nil) != tc.wantErr {
				t.Fatalf("crWireServed = %v; want an error: %v", err, tc.wantErr)
			}
		})
	}
}
