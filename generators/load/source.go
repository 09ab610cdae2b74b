package load

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/internal/parallel"
)

// This file reads Go source files for every target: the files of packages
// in parallel, each parsed with its comments only when its bytes may matter,
// syntax errors at file:line, and the comment lines tags are read from.

// CommentLine is one line of a comment with its position, e.g.
// {Text: "+genclient:nonNamespaced", Pos: "apis/foo/v1/types.go:12"}.
type CommentLine struct {
	Text string
	Pos  string
}

// fileHead is what every reading of a file takes from it for its package:
// its name, package clause and the comment lines that may carry package tags.
type fileHead struct {
	Name        string // base name
	PackageName string
	PackagePos  string
	// Comments are every comment line of the file when it is doc.go, else the
	// lines of the package doc comment.
	Comments []CommentLine
}

// parseFiles runs parse over every file of every package concurrently, one
// FileSet per worker (no lock contention), and returns the results by package
// and file, in input order; of the files that failed, the error firstError
// picks.
func parseFiles[T any](ctx context.Context, pkgs []InputPackage, parse func(fset *token.FileSet, filename string) (T, error)) ([][]T, error) {
	type job struct{ pkg, file int }
	results := make([][]T, len(pkgs))
	var jobs []job
	for i, p := range pkgs {
		results[i] = make([]T, len(p.Files))
		for j := range p.Files {
			jobs = append(jobs, job{i, j})
		}
	}
	errs, err := parallel.ForEach(ctx, len(jobs), runtime.GOMAXPROCS(0)*2, token.NewFileSet, func(fset *token.FileSet, k int) error {
		jb := jobs[k]
		var err error
		results[jb.pkg][jb.file], err = parse(fset, pkgs[jb.pkg].Files[jb.file])
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return results, nil
}

// firstError returns the InputError with the smallest position, else the
// first other error, counting the rest as More.
func firstError(errs []error) error {
	var found []error
	for _, e := range errs {
		if e != nil {
			found = append(found, e)
		}
	}
	if len(found) == 0 {
		return nil
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Error() < found[j].Error() })
	if ie, ok := found[0].(*inputerr.InputError); ok { //nolint:errorlint // only an unwrapped InputError gets the count: rebuilding a wrapped one would drop its wrapper
		cp := *ie
		cp.More += len(found) - 1
		return &cp
	}
	return found[0]
}

// parseRelevant reads filename and, when keep says its bytes may matter,
// parses it with comments and returns the syntax with the file's head; it
// returns nil, nil, nil for a file keep skips. Without bodies, the bodies of
// its functions are left empty (blankFuncBodies). Syntax errors are
// InputErrors at their file:line.
func parseRelevant(fset *token.FileSet, filename string, keep func(base string, src []byte) bool, bodies bool) (*ast.File, *fileHead, error) {
	src, err := os.ReadFile(filename)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", filename, err)
	}
	base := filepath.Base(filename)
	if !keep(base, src) {
		return nil, nil, nil
	}
	if !bodies {
		blankFuncBodies(src)
	}
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		var list interface{ Len() int }
		if errors.As(err, &list) && list.Len() > 0 {
			return nil, nil, syntaxError(err)
		}
		return nil, nil, inputerr.Errorf(filename, "%v", err)
	}
	head := &fileHead{
		Name:        base,
		PackageName: f.Name.Name,
		PackagePos:  position(fset, f.Package),
	}
	if base == "doc.go" {
		for _, cg := range f.Comments {
			head.Comments = append(head.Comments, commentLines(fset, cg)...)
		}
	} else if f.Doc != nil {
		head.Comments = commentLines(fset, f.Doc)
	}
	return f, head, nil
}

// packageHead combines the heads of a package's files read (nil for a file
// skipped), in file order: the package name and position of the first one,
// and the package tags: all comments of doc.go (whose package clause is then
// the position), or without a doc.go the package doc comments of every file.
func packageHead(files []*fileHead) (name, pos string, tags []CommentLine) {
	var doc *fileHead
	for _, f := range files {
		if f == nil {
			continue
		}
		if name == "" {
			name, pos = f.PackageName, f.PackagePos
		}
		if f.Name == "doc.go" {
			doc = f
		}
	}
	if doc != nil {
		return name, doc.PackagePos, doc.Comments
	}
	for _, f := range files {
		if f != nil {
			tags = append(tags, f.Comments...)
		}
	}
	return name, pos, tags
}

// declTags reads the tags of a file's type declarations: the comment group
// ending on the line above the type's name, and the one ending two lines
// above that group (or above the name, when none is adjacent), as gengo
// reads them. The index of comment groups is built on first use.
type declTags struct {
	fset     *token.FileSet
	f        *ast.File
	endLines map[int]*ast.CommentGroup
}

// of returns the tag lines of ts, the farther group first.
func (d *declTags) of(ts *ast.TypeSpec) []CommentLine {
	if d.endLines == nil {
		d.endLines = make(map[int]*ast.CommentGroup, len(d.f.Comments))
		for _, cg := range d.f.Comments {
			d.endLines[d.fset.Position(cg.End()).Line] = cg
		}
	}
	line := d.fset.Position(ts.Name.Pos()).Line
	closest := d.endLines[line-1]
	var second *ast.CommentGroup
	if closest != nil {
		second = d.endLines[d.fset.Position(closest.Pos()).Line-2]
	} else {
		second = d.endLines[line-2]
	}
	return append(commentLines(d.fset, second), commentLines(d.fset, closest)...)
}

// syntaxError turns a go/scanner error list into an InputError at the first
// error's position.
func syntaxError(err error) error {
	msg := err.Error()
	// scanner.ErrorList prints "file:line:col: msg (and N more errors)".
	pos, rest, ok := strings.Cut(msg, ": ")
	if !ok {
		return inputerr.Errorf("", "%s", msg)
	}
	// Keep file:line, drop the column.
	if i := strings.LastIndexByte(pos, ':'); i > 0 {
		if _, aerr := strconv.Atoi(pos[i+1:]); aerr == nil && strings.Count(pos, ":") >= 2 {
			pos = pos[:i]
		}
	}
	return inputerr.Errorf(pos, "syntax error: %s", rest)
}

// commentLines splits a comment group into trimmed lines with positions,
// dropping the comment markers ("//", "/*", "*/").
func commentLines(fset *token.FileSet, cg *ast.CommentGroup) []CommentLine {
	if cg == nil {
		return nil
	}
	var out []CommentLine
	for _, c := range cg.List {
		p := fset.Position(c.Slash)
		if text, ok := strings.CutPrefix(c.Text, "//"); ok {
			out = append(out, CommentLine{Text: strings.Trim(text, " \t"), Pos: p.Filename + ":" + strconv.Itoa(p.Line)})
			continue
		}
		body := strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
		for i, text := range strings.Split(body, "\n") {
			out = append(out, CommentLine{Text: strings.Trim(text, " \t\r"), Pos: p.Filename + ":" + strconv.Itoa(p.Line+i)})
		}
	}
	return out
}

// position renders a token position as "file:line".
func position(fset *token.FileSet, pos token.Pos) string {
	p := fset.Position(pos)
	return p.Filename + ":" + strconv.Itoa(p.Line)
}
