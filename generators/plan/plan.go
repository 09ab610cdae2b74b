// Package plan is the seam between the targets and the output: every
// target's planner (package targets/...) reads the model and the run's
// loader and returns the Files it would generate; Check then looks at the
// planned files of every target together, and package output renders and
// writes them. Layout says where each target's packages go; ImportSet
// (imports.go) is the one set of import names of a generated file, for every
// planner.
//
// A new target (a defaulter, conversion or register generator, as deepcopy
// is) is one more planner package returning []File: a File's Prefix holds
// what must precede the header (a build constraint), and ImportSet names
// imports either way the upstream generators do (Add, AddFirstFree).
package plan

import (
	"sort"
	"text/template"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// File is one output file before rendering: the output stage executes
// Template with Data, adds the header and the generated marker, gofmt's the
// result and then, when set, passes it through Post.
type File struct {
	// Path is the file's absolute path.
	Path string
	// Template is the template the file is rendered from: the planning
	// target's own, one per kind of generated file.
	Template *template.Template
	// Data is what Template receives: the planning target's data type.
	Data any
	// Prefix, when set, is written before the header: lines that must
	// precede every comment, as a build constraint does.
	Prefix string
	// Post, when set, rewrites the gofmt'ed source (the clientset prunes
	// the imports a file does not use).
	Post func(src []byte) ([]byte, error)
}

// Layout is where the generated packages of every target go: directories
// and import paths. A target that is not generated has empty fields.
type Layout struct {
	InformersDir, InformersPkg string
	ListersDir, ListersPkg     string
	// ClientsetDir and ClientsetPkg are the versioned clientset's own
	// directory and package (…/clientset/versioned); "" without a clientset.
	ClientsetDir, ClientsetPkg string
	// ApplyDir and ApplyPkg are the apply configurations' root; "" without
	// them.
	ApplyDir, ApplyPkg string
}

// Check sorts every file of the run, whichever target planned it, by path
// and refuses two at one path. It runs before anything is rendered.
func Check(files []File) error {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path {
			return inputerr.Errorf("", "two generated files would be written to %s: rename one of the types behind them", files[i].Path)
		}
	}
	return nil
}
