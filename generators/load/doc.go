// Package load is the generator's reading of its input, shared by every
// target: it is the one place that finds, reads and parses Go source, and
// the one resolver of the names written in it.
//
//   - resolve.go: ResolvePatterns turns the command-line patterns into
//     packages (InputPackage): directory patterns are walked with import
//     paths taken from the nearest go.mod, the rest go to one
//     `go list -find` call; no dependency is loaded. paths.go locates an
//     import path's directory from a known one (LocatePackage).
//   - parse.go, source.go: ReadInputs reads every file of the input packages
//     once, concurrently, and parses a file, with its comments, only when a
//     byte scan says it matters to a target; it returns the informers' and
//     clients' view (ParsedPackage: package tags, the GroupName constant,
//     +genclient types) and, when asked, the type declarations the Loader
//     serves (DeclPackage).
//   - tags.go: client-gen's tags read from comment lines (ClientTags,
//     PackageTags).
//   - load.go: the one Loader, holding the type declarations (DeclPackage,
//     TypeDecl) of every package any target reads, each read once: the
//     parsed inputs and, located through the module or one `go list -find`,
//     packages beyond them; first the files that may declare API types, the
//     rest when a name is missing.
//   - lookup.go, members.go: the one resolver: a qualifier to its import
//     path, a name to its declaration (through dot imports), a struct's
//     members (Member) and their type expressions (TypeExpr) and json tags
//     (JSONTag).
//   - follow.go: FollowDefinitions follows a +genclient type defined as or
//     aliasing another named type, or embedding ObjectMeta only through
//     another struct, to the struct it names; what syntax cannot settle (an
//     instance of a generic type, a dot import) is settled by type-checking
//     just those packages with golang.org/x/tools/go/packages.
//   - idents.go: Go identifier checks shared by the tags and the model.
//
// A target that needs a declaration, a member or a package beyond its input
// asks the run's Loader; no target reads or parses source of its own.
package load
