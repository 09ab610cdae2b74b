// Package clientset is the clientset target: the planner of client-gen's
// versioned clientset, its scheme, the typed clients and their fakes (Plan),
// and the templates it renders with (templates/clientset.go.tmpl,
// client_*.go.tmpl, fake_*.go.tmpl).
//
// plan.go builds the clientset's data from the model (clientsetData, one
// clientGroupVersion per typed client package, clientTypeData per type with
// its verbs and +genclient extensions) and lays the files out; every file's
// unused imports are pruned after rendering (pruneImports, the files'
// plan.File.Post), since the templates import what any variant may need.
//
// Like every target it reads the model and returns plan.Files.
package clientset
