package generators

import (
	"embed"
	"sync"
	"text/template"

	"github.com/typedinformer/typedinformer/generators/plan"
)

// templateFS holds the templates of every target, one per kind of generated
// file, each reading like the Go file it emits (the header and the generated
// marker are added by output.Render): the informers and listers'
// (factory*.go.tmpl, generic, group_interface, version_interface, informer,
// lister, expansion), the clientset's and its fakes' (clientset, client_*,
// fake_*) and the apply configurations' (applyconfig_*). The planners name
// them in plan.File.Template.
//
//go:embed templates/*.tmpl
var templateFS embed.FS

// parsedTemplates is parsed once per process; template.Template is safe for
// concurrent Execute. The templates are embedded: failing to parse them is a
// bug, found by every test that renders.
var parsedTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").ParseFS(templateFS, "templates/*.tmpl"))
})

// newPlannedFile plans the file at p rendered from the template named tmpl
// with d.
func newPlannedFile(p, tmpl string, d templateData) plan.File {
	return plan.File{Path: p, Template: parsedTemplates().Lookup(tmpl), Data: d}
}
