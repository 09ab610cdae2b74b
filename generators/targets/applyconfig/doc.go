// Package applyconfig is the apply configurations target: the planner of
// applyconfiguration-gen's output (Plan) and the templates it renders with.
//
//   - plan.go: Plan lays out the files (one per type, the utils package and
//     the internal package) and fills their data (applyData).
//   - reach.go: which types get an apply configuration: every struct with
//     json-tagged members reachable from a +genclient type with an apply
//     verb, read through the run's load.Loader.
//   - builder.go: what each type's file declares: its fields, With and Get
//     methods, constructor and Extract functions.
//   - openapi.go, openapi_yaml.go: --openapi-schema (OpenAPIDoc, read by
//     ReadOpenAPI) turned into the structured-merge-diff schema YAML the
//     internal package embeds (SchemaYAML).
//   - templates/applyconfig_*.go.tmpl: one template per kind of file, each
//     reading like the Go it emits.
//
// Like every target it reads the model and the loader and returns
// plan.Files; it reads no source of its own.
package applyconfig
