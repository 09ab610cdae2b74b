package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyModeWithNothingToDo: an only-mode run over packages none of
// which carries its target's tag writes nothing and exits 0, as the
// upstream tool does, but says so on stderr in one line naming the
// patterns and the tag; a target that finds its tag says nothing.
func TestOnlyModeWithNothingToDo(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module example.com/kb\n\ngo 1.26\n",
		// A kubebuilder layout: markers, no doc.go.
		"apis/v1/groupversion_info.go": "// Package v1 is the v1 API.\n// +kubebuilder:object:generate=true\n// +groupName=kb.example.com\npackage v1\n",
		"apis/v1/types.go":             "package v1\n\n// +kubebuilder:object:root=true\n\n// Foo is an object.\ntype Foo struct {\n\tS []string\n}\n",
		"tagged/doc.go":                "// +k8s:deepcopy-gen=package\n\npackage tagged\n",
		"tagged/types.go":              "package tagged\n\n// T is copied.\ntype T struct {\n\tS []string\n}\n",
	})
	apis := filepath.Join(dir, "apis") + "/..."
	tagged := filepath.Join(dir, "tagged")
	for _, c := range []struct {
		name string
		args []string
		// want are the lines stderr must hold, in order.
		want []string
		// writes is set where the run writes a tagged package's file.
		writes bool
	}{
		{"deepcopy", []string{"--deepcopy-only", apis}, []string{"informer-gen: no package in " + apis + " has +k8s:deepcopy-gen; nothing written"}, false},
		{"register", []string{"--register-only", apis}, []string{"informer-gen: no package in " + apis + " has +k8s:register-gen or +groupName; nothing written"}, false},
		{"defaulter", []string{"--defaulter-only", apis}, []string{"informer-gen: no package in " + apis + " has +k8s:defaulter-gen; nothing written"}, false},
		{"conversion", []string{"--conversion-only", apis}, []string{"informer-gen: no package in " + apis + " has +k8s:conversion-gen; nothing written"}, false},
		{"verify", []string{"verify", "--deepcopy-only", apis}, []string{"informer-gen: no package in " + apis + " has +k8s:deepcopy-gen; nothing written"}, false},
		{"two targets, both idle", []string{"--conversion-only", "--with-deepcopy", apis}, []string{
			"informer-gen: no package in " + apis + " has +k8s:deepcopy-gen; nothing written",
			"informer-gen: no package in " + apis + " has +k8s:conversion-gen; nothing written",
		}, false},
		{"helper packages named too", []string{"--defaulter-only", "--helper-packages", apis, tagged}, []string{"informer-gen: no package in " + tagged + " " + apis + " has +k8s:defaulter-gen; nothing written"}, false},
		{"tagged", []string{"--deepcopy-only", tagged}, nil, true},
		{"one target idle", []string{"--conversion-only", "--with-deepcopy", tagged}, []string{"informer-gen: no package in " + tagged + " has +k8s:conversion-gen; nothing written"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, dir)
			code, stdout, stderr := invoke(t, c.args...)
			if code != exitOK {
				t.Fatalf("exit %d, want %d: %s", code, exitOK, stderr)
			}
			var lines []string
			if stderr != "" {
				lines = strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			}
			if stdout != "" || strings.Join(lines, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("stdout %q, stderr lines:\n%s\nwant:\n%s", stdout, strings.Join(lines, "\n"), strings.Join(c.want, "\n"))
			}
			if wrote := !sameSnapshot(before, snapshot(t, dir)); wrote != c.writes {
				t.Errorf("files written: %v, want %v", wrote, c.writes)
			}
		})
	}
}
