// Package templates holds the text/template sources informer-gen renders.
// Each template reads like the Go file it emits; the generator supplies the
// "// Code generated" marker and the license header, and gofmt's the result.
//
// The package is the generator's (package generators), not an API: the
// templates, the data they receive and FS change with the generated code,
// without notice. Import github.com/typedinformer/typedinformer/runtime/...
// for the runtime and run cmd/informer-gen for the generated code.
//
// Templates and the data they receive (see package generators):
//
//	factory_interfaces.go.tmpl  internalinterfaces/factory_interfaces.go
//	factory.go.tmpl             the SharedInformerFactory
//	generic.go.tmpl             ForResource and GenericInformer
//	group_interface.go.tmpl     <group>/interface.go
//	version_interface.go.tmpl   <group>/<version>/interface.go
//	informer.go.tmpl            <group>/<version>/<type>.go (informers)
//	lister.go.tmpl              listers/<group>/<version>/<type>.go
//	expansion.go.tmpl           listers/<group>/<version>/expansion_generated.go
package templates

import "embed"

// FS holds every *.tmpl file of this directory. It is read-only and safe for
// concurrent use.
//
//go:embed *.tmpl
var FS embed.FS
