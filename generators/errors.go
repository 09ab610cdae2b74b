package generators

import "github.com/typedinformer/typedinformer/generators/internal/inputerr"

// InputError is a problem with what the generator was given: a pattern that
// matches nothing, a malformed tag, a package without a group name, a bad
// flag. Pos, when set, is "file:line" of the offending input. The command
// maps it to exit code 2; no file is written when a run fails with it. Every
// stage reports its input problems as this type.
type InputError = inputerr.InputError

// IsInputError reports whether err is, or wraps, an *InputError.
func IsInputError(err error) bool {
	return inputerr.Is(err)
}
