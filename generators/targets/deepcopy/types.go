package deepcopy

import (
	"go/token"
	"strings"

	"github.com/typedinformer/typedinformer/generators/targets/universe"
)

// Types are read as deepcopy-gen reads them (package universe): unnamed
// types identical up to byte/uint8 and rune/int32 are one, written with
// the first spelling met; a Go alias takes the shape of the type it names;
// the hand-written methods of named types are read, and a type
// expression with no kind is an error.
var typeRules = universe.Options{Tool: "deepcopy-gen", Verb: "copies", ReadMethods: true, RefuseUnsupported: true}

type typ = universe.Type

// isPrivate reports whether a name is unexported.
func isPrivate(name string) bool {
	return name == "" || !token.IsExported(strings.SplitN(name, "[", 2)[0])
}
