package main

import (
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// A run counts only when the server's counters show the path its mode
// names; either side falling back from a watch-list to a list is an error.
func TestWirePaths(t *testing.T) {
	const js, pb = scenario.EncJSON, scenario.EncProtobuf
	list, wl := scenario.WireList, scenario.WireWatchList
	m := func(enc string) map[string]int { return map[string]int{enc: 1} }
	for _, tc := range []struct {
		name       string
		run        wireRun
		lists, wls map[string]int
		wantErr    bool
	}{
		{name: "list as asked", run: wireRun{scenario.ClientGo, js, list}, lists: m(js)},
		{name: "watch-list as asked", run: wireRun{scenario.Ours, pb, wl}, wls: m(pb)},
		{name: "lean streams", run: wireRun{scenario.Ours, js, scenario.WireLean}, wls: m(js)},
		{name: "list in the other encoding", run: wireRun{scenario.Ours, pb, list}, lists: m(js), wantErr: true},
		{name: "list+watch asked a watch-list", run: wireRun{scenario.ClientGo, js, list}, lists: m(js), wls: m(js), wantErr: true},
		{name: "watch-list never asked", run: wireRun{scenario.ClientGo, pb, wl}, lists: m(pb), wantErr: true},
		{name: "ours falling back is an error", run: wireRun{scenario.Ours, pb, wl}, lists: m(pb), wls: m(pb), wantErr: true},
		{name: "client-go falling back is an error", run: wireRun{scenario.ClientGo, pb, wl}, lists: m(pb), wls: m(pb), wantErr: true},
		{name: "floor serves nothing", run: wireRun{scenario.Ours, pb, scenario.WireFloor}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := wirePaths(tc.run, scenario.WireResult{Lists: tc.lists, WatchLists: tc.wls})
			if (err != nil) != tc.wantErr {
				t.Fatalf("wirePaths = %v; want an error: %v", err, tc.wantErr)
			}
		})
	}
}

//go:noinline
func spinForProfile(n int) int {
	x := 0
	for i := 0; i < n; i++ {
		x = x*31 + i
	}
	return x
}

// The profile summary finds the focus function on the stacks.
func TestSummariseProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	sink := 0
	for i := 0; i < 200 && sink >= 0; i++ {
		sink += spinForProfile(1_000_000) & 1
	}
	pprof.StopCPUProfile()
	f.Close()
	sum, err := summariseProfile(path, "github.com/typedinformer/typedinformer/bench/cmd/benchtable.spinForProfile", 3)
	if err != nil {
		t.Skipf("no samples on this machine: %v", err)
	}
	if !strings.Contains(sum, "% in github.com/typedinformer/typedinformer/bench/cmd/benchtable.spinForProfile and below") || strings.Contains(sum, " 0% in") {
		t.Fatalf("summary %q: want a share in spinForProfile", sum)
	}
	if _, err := summariseProfile(filepath.Join(t.TempDir(), "none"), "x", 3); err == nil {
		t.Error("summariseProfile of a missing file: nil error")
	}
}
