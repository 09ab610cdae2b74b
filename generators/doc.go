// Package generators turns Kubernetes API packages into typed shared
// informers, listers and an informer factory for the typedinformer runtime.
// It is the engine behind cmd/informer-gen.
//
// # Pipeline
//
// Build runs these steps and keeps the result in memory; Result.Write puts
// it on disk and Result.Diff compares it with the disk:
//
//  1. resolve: patterns naming directories ("./apis/...") are walked
//     directly, with import paths taken from the nearest go.mod; other
//     patterns go to one `go list -find` call. No dependency is loaded.
//  2. parse (readInputs): the files of every package are read once,
//     concurrently; only files that mention +genclient, +groupName or declare
//     GroupName (and doc.go) are parsed for the informers and clients, and,
//     with the apply configurations, those with json tags for them, with
//     go/parser, for their syntax and comments. A name the apply
//     configurations look up that the files read do not declare (an alias in
//     a file without json tags) makes the package's other files read.
//  3. follow: a +genclient type that is a definition or alias of another
//     named type, or a struct embedding ObjectMeta only through another
//     struct, is followed by syntax to the struct it names, in the same
//     package, another package of the module or another module (located with
//     `go list -find`), and a definition takes the Status member of the
//     struct it is defined as. What syntax cannot settle (an instance of a
//     generic type, a dot import) is settled by type-checking just those
//     packages with golang.org/x/tools/go/packages. One loader (loader.go)
//     locates and reads every package outside the inputs, for this step and
//     for the apply configurations' resolver alike.
//  4. model: client-gen's tags decide which types get an informer (list and
//     watch verbs) and a lister (list and get); group, version and plural
//     names are client-gen's (see Group.GoName, Type.Plural).
//  5. plan and render: the informers, listers and clientset are planned
//     from the model, the apply configurations from the parsed inputs
//     (applyconfig.go); every identifier, import name and file name the
//     templates would emit is first checked for collisions and validity, and
//     the files of every target together for two at one path
//     (checkFilePaths); imports of a file get their names from one importSet
//     (imports.go); then the templates of package templates are executed per file,
//     concurrently, prefixed by the header and GeneratedMarker, and
//     gofmt'ed with go/format.
//
// # Stable output
//
// Output is sorted and byte-identical across runs and machines. The header
// (Options.HeaderFile) has its "YEAR" replaced by the year found in the
// existing file at the same path when that file starts with the same header,
// else by the year of Options.Now: regenerating never churns the year.
//
// # Errors
//
// Problems with the input are *InputError values naming file:line; they are
// all detected before anything is written.
package generators
