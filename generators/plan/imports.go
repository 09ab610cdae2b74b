package plan

import (
	"go/token"
	"strconv"
)

// ImportLine is one import of a generated file.
type ImportLine struct{ Alias, Path string }

// ImportSet hands out unique import names within one file.
type ImportSet struct {
	byPath map[string]string
	taken  map[string]bool
	// Imports are the imports handed out, in the order they were added.
	Imports []ImportLine
}

// NewImportSet is an import set whose names stay clear of reserved: the
// names a kind of file uses for itself and its fixed imports.
func NewImportSet(reserved []string) *ImportSet {
	s := &ImportSet{byPath: map[string]string{}, taken: map[string]bool{}}
	for _, n := range reserved {
		s.taken[n] = true
	}
	return s
}

// Add returns the import name of pkg, preferring want.
func (s *ImportSet) Add(pkg, want string) string {
	if a, ok := s.byPath[pkg]; ok {
		return a
	}
	a := want
	for i := 2; s.taken[a]; i++ {
		a = want + strconv.Itoa(i)
	}
	s.taken[a] = true
	s.byPath[pkg] = a
	s.Imports = append(s.Imports, ImportLine{a, pkg})
	return a
}

// Fixed adds an import under exactly name (a name the templates spell out).
func (s *ImportSet) Fixed(pkg, name string) string {
	if a, ok := s.byPath[pkg]; ok {
		return a
	}
	s.taken[name] = true
	s.byPath[pkg] = name
	s.Imports = append(s.Imports, ImportLine{name, pkg})
	return name
}

// AddFirstFree returns the import name of pkg: the first of candidates no
// other import and no reserved name has (a Go keyword among them prefixed
// with "_"), as deepcopy-gen names imports.
func (s *ImportSet) AddFirstFree(pkg string, candidates []string) string {
	if a, ok := s.byPath[pkg]; ok {
		return a
	}
	for _, c := range candidates {
		if s.taken[c] {
			continue
		}
		name := c
		if token.Lookup(c).IsKeyword() {
			name = "_" + c
		}
		return s.Fixed(pkg, name)
	}
	return s.Add(pkg, candidates[len(candidates)-1])
}
