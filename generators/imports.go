package generators

import "strconv"

// importLine is one import of a generated file.
type importLine struct{ Alias, Path string }

// importSet hands out unique import names within one file.
type importSet struct {
	byPath  map[string]string
	taken   map[string]bool
	imports []importLine
}

// newImportSet is an import set whose names stay clear of reserved: the
// names a kind of file uses for itself and its fixed imports.
func newImportSet(reserved []string) *importSet {
	s := &importSet{byPath: map[string]string{}, taken: map[string]bool{}}
	for _, n := range reserved {
		s.taken[n] = true
	}
	return s
}

// add returns the import name of pkg, preferring want.
func (s *importSet) add(pkg, want string) string {
	if a, ok := s.byPath[pkg]; ok {
		return a
	}
	a := want
	for i := 2; s.taken[a]; i++ {
		a = want + strconv.Itoa(i)
	}
	s.taken[a] = true
	s.byPath[pkg] = a
	s.imports = append(s.imports, importLine{a, pkg})
	return a
}

// fixed adds an import under exactly name (a name the templates spell out).
func (s *importSet) fixed(pkg, name string) string {
	if a, ok := s.byPath[pkg]; ok {
		return a
	}
	s.taken[name] = true
	s.byPath[pkg] = name
	s.imports = append(s.imports, importLine{name, pkg})
	return name
}
