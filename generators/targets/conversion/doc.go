// Package conversion is the conversion target: conversion-gen's
// zz_generated.conversion.go (the name is Options.OutputFile) in each input
// package whose doc.go carries +k8s:conversion-gen, with conversion-gen's
// functions, statements and order, so that the output equals
// conversion-gen's apart from the "Code generated" line.
//
//   - plan.go: Plan, one plan.File per tagged package in the package's
//     directory, headed by pkgfile.BuildConstraint; the peer packages (the tag's,
//     then Options.BasePeerDirs and ExtraPeerDirs), the types that have a
//     peer type of the same name, and the hand-written Convert_ functions
//     of the peers and the inputs.
//   - tags.go: +k8s:conversion-gen on packages (peer packages, or false:
//     only hand-written functions registered), types and members (false),
//     +k8s:conversion-gen-external-types, +k8s:conversion-gen:explicit-from
//     on types, +k8s:conversion-fn on functions (copy-only, drop).
//   - types.go: conversion-gen's rules of the type model (package
//     universe): one *typ per type in a run, read from the run's Loader as
//     far as a rule asks.
//   - equal.go: the run's hand-written functions and which types have
//     equal memory layouts (converted by an unsafe pointer cast).
//   - gen.go: RegisterConversions and the autoConvert/Convert functions,
//     built as code.
//   - urlvalues.go: +k8s:conversion-gen:explicit-from=net/url.Values, the
//     conversion from query parameters to the tagged type (registered after
//     the conversions with peers, written after the type's own), each
//     member with a json name set from the query parameter of that name.
//
// Where conversion-gen writes code that does not compile (a member that
// "requires manual conversion" with no hand-written Convert function for
// its type, or a FIXME call for a conversion nothing provides), the run
// fails instead with an InputError at the type's or member's file:line
// naming the function to write; so is an array member converted from
// url.Values (conversion-gen sets it to nil). A +k8s:conversion-gen peer
// or external-types package that cannot be loaded, and an explicit-from
// value other than net/url.Values, are InputErrors at the tag.
package conversion
