// Package generators turns Kubernetes API packages into the code
// kube_codegen.sh's gen_client writes, for the typedinformer runtime: typed
// shared informers, listers and an informer factory; with
// Options.WithClientset, client-gen's versioned clientset and its fakes;
// with Options.WithApplyConfig, applyconfiguration-gen's apply
// configurations. It is the engine behind cmd/informer-gen.
//
// This package is the public face: Options (options.go), Build and Generate
// (run.go), Result with Write and Diff, InputError (errors.go), and the
// model's and output's types under their names here (model.go, output.go,
// schema.go). The work is done by one pipeline of packages, one per stage.
//
// # Pipeline
//
// Build runs one pipeline for every target and keeps the result in memory;
// Result.Write puts it on disk and Result.Diff compares it with the disk.
// The stages, in order, and the packages that hold them:
//
//  1. options (options.go, this package): flags checked, output layout
//     decided (plan.Layout: the directories and import paths of every
//     target).
//  2. load (package load): patterns resolved to packages; every file of
//     the input packages read once and parsed, with its comments, only when
//     it matters to a target; client-gen's tags; the one Loader of type
//     declarations for every package any target reads, and the one resolver
//     of names and member types; +genclient definitions and aliases followed
//     to their struct.
//  3. model (package model): the API described once: groups, versions and
//     types, client-gen's naming, the validation of the input and of the
//     names the informers' templates would emit.
//  4. plan, one planner per target (packages targets/...), each reading the
//     model and the loader and returning plan.Files (a path, the target's
//     own template, its data and an optional post-processing step):
//     - targets/informers: informers, the factory and listers;
//     - targets/clientset: the versioned clientset, its scheme, typed
//     clients and fakes;
//     - targets/applyconfig: apply configurations and the schema of their
//     internal package (--openapi-schema).
//     The apply configurations are planned while the output tree is read;
//     the others need it (planFiles, targets.go). Import names of a
//     generated file come from one plan.ImportSet.
//  5. check (package plan): the planned files of every target together
//     checked for two at one path (plan.Check), before anything is
//     rendered.
//  6. output (package output): the templates executed per file,
//     concurrently, prefixed by the header and GeneratedMarker, gofmt'ed
//     with go/format; the output tree scanned for existing, stale, foreign
//     and leftover files; files written atomically, or compared as a
//     unified diff for verify.
//
// internal/inputerr holds the InputError every stage returns, and
// internal/parallel the bounded worker pool the load and output stages
// share.
//
// # Adding a target
//
// A new target (deepcopy, defaulter, conversion, register) is one more
// package under targets/ with a Plan function that reads the model and the
// run's load.Loader and returns []plan.File, its templates beside it. Build
// calls it where planFiles calls the others; its files then go through
// plan.Check and the output stage like every other target's. It reads no
// source of its own (the Loader serves every declaration) and keeps its
// import names in a plan.ImportSet.
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
