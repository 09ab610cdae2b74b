// Package informers is the informers and listers target: the planner of
// informer-gen's and lister-gen's output (Plan) and the templates it renders
// with.
//
// plan.go lays the model out in files: the factory (factory.go,
// generic.go, internalinterfaces), a group and a version interface per
// group and version, an informer per type with list and watch verbs, a
// lister per type with list and get, and each listers package's
// expansion_generated.go (the expansion interfaces the user has not
// declared). templates/*.go.tmpl holds one template per kind of file, each
// reading like the Go it emits.
//
// Like every target it reads the model and returns plan.Files; the names
// its templates emit are checked by model.Build before it runs.
package informers
