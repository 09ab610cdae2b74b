package generators

import "github.com/typedinformer/typedinformer/generators/targets/applyconfig"

// SchemaYAML is the structured-merge-diff schema the apply configurations'
// internal package embeds for the OpenAPI v2 document in file: the given
// definitions and every definition they reference, followed by the untyped
// types. It reads file and nothing else.
func SchemaYAML(file string, definitions []string) (string, error) {
	return applyconfig.SchemaYAML(file, definitions)
}
