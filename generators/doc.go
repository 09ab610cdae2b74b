// Package generators turns Kubernetes API packages into the code
// kube_codegen.sh's gen_client writes, for the typedinformer runtime: typed
// shared informers, listers and an informer factory; with
// Options.WithClientset, client-gen's versioned clientset and its fakes;
// with Options.WithApplyConfig, applyconfiguration-gen's apply
// configurations. It is the engine behind cmd/informer-gen.
//
// # Pipeline
//
// Build (run.go) runs one pipeline for every target and keeps the result in
// memory; Result.Write puts it on disk and Result.Diff compares it with the
// disk.
// The stages, in order, and the files that hold them:
//
//  1. options (options.go): flags checked, output layout decided (layout:
//     the directories and import paths of every target).
//  2. resolve (resolve.go): patterns naming directories ("./apis/...") are
//     walked directly, with import paths taken from the nearest go.mod;
//     other patterns go to one `go list -find` call. No dependency is
//     loaded.
//  3. parse (parse.go, source.go, tags.go): every file of the input
//     packages is read once, concurrently (load.ReadInputs); a file is parsed,
//     with its comments, only when a byte scan says it matters to a target:
//     the informers' and clients' view (load.ParsedPackage: package tags, the
//     GroupName constant, +genclient types) and, with apply configurations,
//     the type declarations the load.Loader serves. tags.go reads client-gen's
//     tags.
//  4. load and follow (load.go, lookup.go, follow.go): one load.Loader holds
//     the type declarations of every package any target reads (load.DeclPackage,
//     load.TypeDecl), the parsed inputs and, located through the module or one
//     `go list -find`, packages beyond them, each read once: first the
//     files that may declare API types, the rest when a name is missing.
//     lookup.go is the one resolver: a qualifier to its import path, a name
//     to its declaration (through dot imports), a member's type expression
//     to a load.TypeExpr. follow.go follows a +genclient type defined as or
//     aliasing another named type, or embedding ObjectMeta only through
//     another struct, to the struct it names; what syntax cannot settle (an
//     instance of a generic type, a dot import) is settled by type-checking
//     just those packages with golang.org/x/tools/go/packages.
//  5. model (model.go, model_select.go, model_derive.go, model_validate.go,
//     naming.go): the API described once: groups, versions and types;
//     client-gen's tags decide which types get an informer (list and watch
//     verbs), a lister (list and get) and a typed client; group, version and
//     plural names are client-gen's (see Group.GoName, Type.Plural).
//  6. plan, one planner per target, each producing plannedFiles (a path, a
//     template and its templateData, plan.go):
//     - informers and listers: planFiles (plan.go);
//     - clientset and fakes: clientset.Plan (clientset.go);
//     - apply configurations: applyconfig.Plan (applyconfig.go lays
//     the files out, applyconfig_reach.go decides which types get one,
//     applyconfig_builder.go fills each file, applyconfig_members.go holds
//     what a member resolves to, openapi.go and openapi_yaml.go turn
//     --openapi-schema into the internal package's schema).
//     Import names of a generated file come from one plan.ImportSet (imports.go).
//  7. check (collisions.go): every identifier, import name and file name the
//     templates would emit is checked for collisions and validity, and the
//     planned files of every target together for two at one path
//     (checkFilePaths), before anything is rendered.
//  8. output (render.go, header.go, output.go, diff.go): the templates
//     (templates/*.tmpl, embedded) executed per file, concurrently, prefixed
//     by the header and GeneratedMarker, gofmt'ed with go/format; the output
//     tree scanned for existing, stale and foreign files; files written
//     atomically, or compared as a unified diff for verify.
//
// errors.go holds InputError, parallel.go the bounded worker pool the parse
// and render stages share.
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
