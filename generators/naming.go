package generators

import (
	"strings"
	"unicode"

	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/types"
)

// DefaultPluralExceptions are always applied, before the caller's own
// exceptions (an entry for the same type replaces the default). k8s.io/api's
// Endpoints type is already plural and its clientset says Endpoints(ns), not
// Endpointses(ns).
var DefaultPluralExceptions = []string{"Endpoints:Endpoints"}

// namers derives Go and REST names exactly as client-gen does, through
// gengo's plural namers, so that generated calls such as
// client.CoreV1().Endpoints(ns) match the user's client-gen clientset.
type namers struct {
	publicPlural    namer.Namer
	lowercasePlural namer.Namer
}

// newNamers builds the namers for a list of "Type:Plural" exceptions.
func newNamers(exceptions []string) (namers, error) {
	m, err := parsePluralExceptions(exceptions)
	if err != nil {
		return namers{}, err
	}
	return namers{
		publicPlural:    namer.NewPublicPluralNamer(m),
		lowercasePlural: namer.NewAllLowercasePluralNamer(m),
	}, nil
}

// parsePluralExceptions turns "Type:Plural" entries into a map.
func parsePluralExceptions(exceptions []string) (map[string]string, error) {
	m := make(map[string]string, len(exceptions))
	for _, e := range exceptions {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		singular, plural, ok := strings.Cut(e, ":")
		if !ok || singular == "" || plural == "" || strings.Contains(plural, ":") {
			return nil, inputErrorf("", "--plural-exceptions: %q is not of the form Type:PluralType", e)
		}
		m[singular] = plural
	}
	return m, nil
}

// plural returns the exported plural Go name of a type ("Ingress" → "Ingresses").
func (n namers) plural(typeName string) string {
	return n.publicPlural.Name(&types.Type{Name: types.Name{Name: typeName}})
}

// resource returns the default REST resource of a type ("Ingress" → "ingresses").
func (n namers) resource(typeName string) string {
	return n.lowercasePlural.Name(&types.Type{Name: types.Name{Name: typeName}})
}

// privateName returns the unexported form of an exported name ("URLMap" → "uRLMap"),
// as gengo's private namer does.
func privateName(name string) string { return namer.IL(name) }

// groupGoName is client-gen's Go name for an API group: the +groupGoName value
// when set, else the first DNS label of the group name ("" is "core"), with
// its first letter upper-cased. Characters that cannot appear in a Go
// identifier are dropped ("cert-manager.io" → "Certmanager").
func groupGoName(group, override string) string {
	if override != "" {
		return namer.IC(override)
	}
	label := group
	if label == "" {
		label = "core"
	}
	label, _, _ = strings.Cut(label, ".")
	return namer.IC(identifierChars(label))
}

// versionGoName is client-gen's Go name for a version ("v1alpha1" → "V1alpha1").
func versionGoName(version string) string { return namer.IC(version) }

// packageName turns a directory name into a Go package name: lower case,
// with characters that cannot appear in an identifier dropped.
func packageName(dir string) string {
	name := strings.ToLower(identifierChars(dir))
	if name == "" || unicode.IsDigit(rune(name[0])) {
		name = "x" + name
	}
	return name
}

// identifierChars keeps the letters, digits and underscores of s.
func identifierChars(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

// isIdentifier reports whether s is a valid exported-or-not Go identifier.
func isIdentifier(s string) bool {
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
