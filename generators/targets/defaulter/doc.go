// Package defaulter is the defaulter target: defaulter-gen's
// zz_generated.defaults.go (the name is Options.OutputFile) in each input
// package tagged +k8s:defaulter-gen, with defaulter-gen's functions,
// statements and order, so that the output equals defaulter-gen's apart
// from the "Code generated" line.
//
//   - plan.go: Plan, one plan.File per tagged package, headed by
//     pkgfile.BuildConstraint; which types get a SetObjectDefaults_<Type> (the
//     package tag's member names, +k8s:defaulter-gen=true/false in the
//     comment block above a type's doc comment, the types of
//     +k8s:defaulter-gen-input's package, and only types with something
//     to default) and RegisterDefaults.
//   - funcs.go: the SetDefaults_<Type>, SetDefaults_<Type>_<Suffix> and
//     SetObjectDefaults_<Type> functions written by hand in the input
//     packages (read by load's defaultertags.go; those of a package are
//     known to the packages after it in import path order). A function so
//     named that is not a defaulter of its parameter's type is refused.
//   - types.go: types as defaulter-gen walks them, read from the run's
//     Loader (syntax only).
//   - tree.go: the call tree of a type: members, slices, arrays, maps and
//     pointers walked down to the defaulters to call and the +default
//     values to set; a type met again below itself is not walked again.
//   - gen.go: the tree written as Go statements; import names as
//     defaulter-gen's (the shortest free run of an import path's last
//     elements, taken on first use).
//
// Bad input (a malformed defaulter, a +default value that is not JSON,
// contradicting package tags) is an InputError at its file:line.
package defaulter
