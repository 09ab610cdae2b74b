// Package model describes the API once for every target: the groups, their
// versions and the +genclient types (Model, Group, Version, Type), built by
// Build from the packages load read.
//
//   - model.go: the model's types and Build, which runs the steps below in
//     package order and returns the first problem found.
//   - select.go: which packages and types get code: client-gen's tags decide
//     which types get an informer (list and watch verbs), a lister (list and
//     get) and a typed client.
//   - derive.go: names derived from the input: Go names of groups and
//     versions, import names and aliases.
//   - naming.go: client-gen's naming (Namers: plurals and resources with
//     their exceptions; Go and package names of groups, versions and
//     directories).
//   - validate.go: each type, version and group checked against the others.
//   - names.go: every identifier, import name and file name the informers'
//     and listers' templates would emit for the model, checked for collisions
//     and validity before anything is planned.
//
// A target's planner reads the Model (and, for what the model does not hold,
// the run's load.Loader); nothing in this package knows a target's files.
package model
