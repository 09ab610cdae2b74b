// Package inputerr holds InputError, the error every stage of the generator
// returns for a problem with its input (flags, patterns, tags, API
// packages); package generators exports it under the same name.
package inputerr

import (
	"errors"
	"fmt"
)

// InputError is a problem with what the generator was given: a pattern that
// matches nothing, a malformed tag, a package without a group name, a bad
// flag. Pos, when set, is "file:line" of the offending input. The command
// maps it to exit code 2; no file is written when a run fails with it.
type InputError struct {
	Pos string
	Msg string
	// More counts further input errors found in the same run and not shown.
	More int
}

// Error returns "file:line: message" (or the message alone when Pos is empty).
func (e *InputError) Error() string {
	msg := e.Msg
	if e.Pos != "" {
		msg = e.Pos + ": " + msg
	}
	if e.More > 0 {
		msg = fmt.Sprintf("%s (and %d more input errors)", msg, e.More)
	}
	return msg
}

// Errorf builds an InputError at pos.
func Errorf(pos, format string, args ...any) *InputError {
	return &InputError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// Is reports whether err is, or wraps, an *InputError.
func Is(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
