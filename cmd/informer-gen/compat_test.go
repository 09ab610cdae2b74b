package main

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// upstreamArgs are kube_codegen.sh's informer-gen arguments for the testdata
// tree, with out standing for kube_codegen's --output-dir: upstream's
// reading, in which --output-dir is the informers directory.
func upstreamArgs(out string, extra ...string) []string {
	args := []string{
		"-v", "0",
		"--go-header-file", "../../generators/testdata/boilerplate.go.txt",
		"--output-dir", filepath.Join(out, "informers"),
		"--output-pkg", "example.com/generated/informers",
		"--versioned-clientset-package", clientset,
		"--listers-package", "example.com/generated/listers",
		"--plural-exceptions", "",
	}
	return append(append(args, extra...), apis)
}

// relSnapshot is snapshot keyed by path relative to dir.
func relSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, content := range snapshot(t, dir) {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.ToSlash(rel)] = content
	}
	return out
}

// TestUpstreamArguments runs informer-gen with kube_codegen.sh's arguments
// plus every other flag upstream informer-gen and lister-gen take, and
// expects exit 0 and the very tree our own arguments give.
func TestUpstreamArguments(t *testing.T) {
	ours := t.TempDir()
	if code, _, stderr := invoke(t, genArgs(ours)...); code != exitOK {
		t.Fatalf("our arguments: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name  string
		extra []string
	}{
		{"kube_codegen.sh", nil},
		{"every upstream flag", []string{
			"--internal-clientset-package", "example.com/generated/clientset/internalversion",
			"--lint-rules", "someRule,other",
			"--v=0", "--vmodule", "run=0",
			"--logtostderr", "--alsologtostderr=false", "--legacy_stderr_threshold_behavior=true",
			"--log_dir", "/nonexistent", "--log_file", "/nonexistent/log", "--log_file_max_size", "10",
			"--add_dir_header", "--skip_headers", "--skip_log_headers", "--one_output",
			"--stderrthreshold", "ERROR", "--alsologtostderrthreshold", "INFO", "--log_backtrace_at", "",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := invoke(t, upstreamArgs(out, c.extra...)...)
			if code != exitOK || stdout != "" || stderr != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "informers", "informers")); !os.IsNotExist(err) {
				t.Fatalf("wrote a nested informers/informers tree (stat: %v)", err)
			}
			got, want := relSnapshot(t, out), relSnapshot(t, ours)
			if !reflect.DeepEqual(keys(got), keys(want)) {
				t.Fatalf("files\n got %v\nwant %v", keys(got), keys(want))
			}
			for k := range want {
				if got[k] != want[k] {
					t.Errorf("%s differs from our arguments' output", k)
				}
			}
			verify := append([]string{"verify"}, upstreamArgs(out, c.extra...)...)
			if code, stdout, stderr := invoke(t, verify...); code != exitOK {
				t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestListersOutputDir puts the listers where --listers-output-dir says.
func TestListersOutputDir(t *testing.T) {
	out := t.TempDir()
	listers := filepath.Join(out, "somewhere", "else")
	code, _, stderr := invoke(t, upstreamArgs(out, "--listers-output-dir", listers)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{filepath.Join(listers, "core", "v1", "pod.go"), filepath.Join(out, "informers", "externalversions", "factory.go")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "listers")); !os.IsNotExist(err) {
		t.Errorf("listers also written beside the informers (stat: %v)", err)
	}
}

// TestNestedInformersTrap: neither reading of --output-dir may write
// informers/informers; both exit 2 saying what to change, writing nothing.
func TestNestedInformersTrap(t *testing.T) {
	t.Run("informers directory without --listers-package", func(t *testing.T) {
		out := t.TempDir()
		args := upstreamArgs(out)
		for i, a := range args {
			if a == "--listers-package" {
				args = append(args[:i:i], args[i+2:]...)
				break
			}
		}
		code, _, stderr := invoke(t, args...)
		if code != exitBadInput {
			t.Fatalf("exit %d, want %d: %s", code, exitBadInput, stderr)
		}
		for _, w := range []string{"informers/informers/externalversions", "add --listers-package"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr %q lacks %q", stderr, w)
			}
		}
		if files := snapshot(t, out); len(files) != 0 {
			t.Errorf("wrote %v", files)
		}
	})
	t.Run("upstream reading over a tree of ours", func(t *testing.T) {
		out := t.TempDir()
		if code, _, stderr := invoke(t, genArgs(out)...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		before := snapshot(t, out)
		code, _, stderr := invoke(t, append(genArgs(out), "--listers-package", "example.com/generated/listers")...)
		if code != exitBadInput {
			t.Fatalf("exit %d, want %d: %s", code, exitBadInput, stderr)
		}
		for _, w := range []string{"holds informers generated with --output-dir as their parent", "drop --listers-package"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr %q lacks %q", stderr, w)
			}
		}
		if !sameSnapshot(before, snapshot(t, out)) {
			t.Error("the tree changed")
		}
	})
}

// TestVerbosityForms: every form klog takes sets the verbosity, a bare -v
// means 1, and no number is read as a package pattern.
func TestVerbosityForms(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		logs bool
	}{
		{[]string{"-v", "1"}, true},
		{[]string{"-v=1"}, true},
		{[]string{"-v1"}, true},
		{[]string{"--v", "2"}, true},
		{[]string{"--v=1"}, true},
		{[]string{"-v"}, true},
		{[]string{"--verbose", "1"}, true},
		{[]string{"--verbose"}, true},
		{[]string{"-v", "0"}, false},
		{[]string{"--v=0"}, false},
		{nil, false},
	} {
		code, _, stderr := invoke(t, append(append([]string{}, c.args...), genArgs(out)...)...)
		if code != exitOK {
			t.Errorf("%q: exit %d: %s", c.args, code, stderr)
			continue
		}
		if logged := strings.Contains(stderr, `"Done"`); logged != c.logs {
			t.Errorf("%q: logged %v, want %v; stderr %q", c.args, logged, c.logs, stderr)
		}
	}
	// After another flag's value or "--", a -v is left alone.
	cmd := newRootCommand(nil, nil)
	for in, want := range map[string]string{
		"--go-header-file -v 1":  "--go-header-file -v 1",
		"-v 3 x -- -v 1":         "-v=3 x -- -v 1",
		"--verbose 2 -v --v 4 y": "--verbose=2 -v --v=4 y",
		"-v ./apis/...":          "-v ./apis/...",
	} {
		if got := strings.Join(normalizeVerbosity(cmd, strings.Fields(in)), " "); got != want {
			t.Errorf("normalizeVerbosity(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestRelativePatternForms: a directory spelled relative to the working
// directory in any form gives the same tree as ./dir/...
func TestRelativePatternForms(t *testing.T) {
	t.Chdir("../..")
	args := func(out, pattern string) []string {
		return []string{pattern, "--output-dir", out, "--output-pkg", "example.com/generated",
			"--versioned-clientset-package", clientset, "--go-header-file", "generators/testdata/boilerplate.go.txt"}
	}
	want := t.TempDir()
	if code, _, stderr := invoke(t, args(want, "./generators/testdata/apis/...")...); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wd, _ := os.Getwd()
	for _, p := range []string{"cmd/../generators/testdata/apis/...", "generators/testdata/apis/...", "./cmd/../generators/testdata/apis/...", filepath.Join(wd, "generators/testdata/apis") + "/..."} {
		out := t.TempDir()
		if code, _, stderr := invoke(t, args(out, p)...); code != exitOK {
			t.Errorf("%s: exit %d: %s", p, code, stderr)
			continue
		}
		if !reflect.DeepEqual(relSnapshot(t, out), relSnapshot(t, want)) {
			t.Errorf("%s: tree differs from ./generators/testdata/apis/...'s", p)
		}
	}
}

// TestUpstreamListersRefused: a lister written by upstream lister-gen (as
// gen_client --with-watch leaves) stops generate and verify with a message
// about kube_codegen.sh's --with-watch.
func TestUpstreamListersRefused(t *testing.T) {
	out := t.TempDir()
	p := filepath.Join(out, "listers", "core", "v1", "pod.go")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("// Code generated by lister-gen. DO NOT EDIT.\n\npackage v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"generate", "verify"} {
		code, _, stderr := invoke(t, append([]string{cmd}, upstreamArgs(out)...)...)
		if code != exitBadInput || !strings.Contains(stderr, "drop --with-watch from kube::codegen::gen_client") {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, stderr)
		}
	}
}

// listerGenArgs are kube_codegen.sh's lister-gen arguments (gen_client with
// --with-watch) for the testdata tree, with out standing for kube_codegen's
// --output-dir: lister-gen's --output-dir is the listers directory itself.
func listerGenArgs(out string) []string {
	return []string{
		"-v", "0",
		"--go-header-file", "../../generators/testdata/boilerplate.go.txt",
		"--output-dir", filepath.Join(out, "listers"),
		"--output-pkg", "example.com/generated/listers",
		"--plural-exceptions", "",
		apis,
	}
}

// TestListerGenArguments runs informer-gen with lister-gen's command line:
// exit 0, only the listers, each as our own arguments write it (the same
// paths under listers/, the same content), and verify agrees. Upstream
// lister-gen's file list is compared in examples/migration
// (TestUpstreamLayout).
func TestListerGenArguments(t *testing.T) {
	ours := t.TempDir()
	if code, _, stderr := invoke(t, genArgs(ours)...); code != exitOK {
		t.Fatalf("our arguments: exit %d: %s", code, stderr)
	}
	out := t.TempDir()
	code, stdout, stderr := invoke(t, listerGenArgs(out)...)
	if code != exitOK || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	got := relSnapshot(t, out)
	want := map[string]string{}
	for k, v := range relSnapshot(t, ours) {
		if strings.HasPrefix(k, "listers/") {
			want[k] = v
		}
	}
	if !reflect.DeepEqual(keys(got), keys(want)) {
		t.Fatalf("files\n got %v\nwant %v", keys(got), keys(want))
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("%s differs from our arguments' output", k)
		}
	}
	if code, stdout, stderr := invoke(t, append([]string{"verify"}, listerGenArgs(out)...)...); code != exitOK {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	stale := filepath.Join(out, "listers", "core", "v1", "gone.go")
	if err := os.WriteFile(stale, []byte("// Code generated by informer-gen. DO NOT EDIT.\n\npackage v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := invoke(t, append([]string{"verify"}, listerGenArgs(out)...)...); code != exitOutOfDate || !strings.Contains(stdout, "gone.go") {
		t.Errorf("verify with a stale lister: exit %d, stdout %q", code, stdout)
	}
}

// TestListerGenArgumentsRefused: lister-gen's reading of --output-dir (the
// listers directory) is refused, writing nothing, where it would put
// <group>/<version> directories beside a tree of the other readings.
func TestListerGenArgumentsRefused(t *testing.T) {
	parent := t.TempDir()
	if code, _, stderr := invoke(t, genArgs(parent)...); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	before := snapshot(t, parent)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"the parent of informers and listers", []string{apis, "--output-dir", parent, "--output-pkg", "example.com/generated"}, "add --versioned-clientset-package"},
		{"an informers directory", []string{apis, "--output-dir", filepath.Join(parent, "informers"), "--output-pkg", "example.com/generated/informers"}, "name an informers directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := invoke(t, c.args...)
			if code != exitBadInput || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q, want exit %d and %q", code, stderr, exitBadInput, c.want)
			}
			if !sameSnapshot(before, snapshot(t, parent)) {
				t.Error("the tree changed")
			}
		})
	}
}
