package load

import (
	"go/token"
	"unicode"
)

// IsExportedIdent reports whether s is a Go identifier that other packages
// can refer to.
func IsExportedIdent(s string) bool { return token.IsIdentifier(s) && token.IsExported(s) }

// IsIdentifier reports whether s is a valid exported-or-not Go identifier.
func IsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}
