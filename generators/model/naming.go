package model

import (
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/types"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// Namers derives Go and REST names exactly as client-gen does, through
// gengo's plural namers, so that generated calls such as
// client.CoreV1().Endpoints(ns) match the user's client-gen clientset.
type Namers struct {
	publicPlural    namer.Namer
	lowercasePlural namer.Namer
	privPlural      namer.Namer
	exceptions      map[string]string
}

// NewNamers builds the namers for a list of "Type:Plural" exceptions.
func NewNamers(exceptions []string) (Namers, error) {
	m, err := parsePluralExceptions(exceptions)
	if err != nil {
		return Namers{}, err
	}
	return Namers{
		publicPlural:    namer.NewPublicPluralNamer(m),
		lowercasePlural: namer.NewAllLowercasePluralNamer(m),
		privPlural:      namer.NewPrivatePluralNamer(m),
		exceptions:      m,
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
			return nil, inputerr.Errorf("", "--plural-exceptions: %q is not of the form Type:PluralType", e)
		}
		m[singular] = plural
	}
	return m, nil
}

// plural returns the exported plural Go name of a type ("Ingress" → "Ingresses").
// gengo upper-cases the first byte, not the first rune, which garbles a name
// such as "Ñandu": for a name starting with a multi-byte rune the plural is
// derived from an ASCII stand-in and the rune put back ("Ñandus").
func (n Namers) plural(typeName string) string {
	r, size := utf8.DecodeRuneInString(typeName)
	if r < utf8.RuneSelf {
		return n.publicPlural.Name(&types.Type{Name: types.Name{Name: typeName}})
	}
	if p, ok := n.exceptions[typeName]; ok {
		return p
	}
	p := n.publicPlural.Name(&types.Type{Name: types.Name{Name: "X" + typeName[size:]}})
	return string(unicode.ToUpper(r)) + p[1:]
}

// privatePlural returns client-gen's unexported plural of a type
// ("Ingress" → "ingresses"), rune-aware as plural is.
func (n Namers) privatePlural(typeName string) string {
	r, _ := utf8.DecodeRuneInString(typeName)
	if r < utf8.RuneSelf {
		return n.privPlural.Name(&types.Type{Name: types.Name{Name: typeName}})
	}
	return PrivateName(n.plural(typeName))
}

// resource returns the default REST resource of a type ("Ingress" → "ingresses").
func (n Namers) resource(typeName string) string {
	return n.lowercasePlural.Name(&types.Type{Name: types.Name{Name: typeName}})
}

// PrivateName returns the unexported form of an exported name ("URLMap" →
// "uRLMap"), as gengo's private namer does, but rune-aware ("Ñandu" → "ñandu").
// A name whose first letter has no lower-case form gets a "x" prefix.
func PrivateName(name string) string {
	r, size := utf8.DecodeRuneInString(name)
	if r < utf8.RuneSelf {
		return namer.IL(name)
	}
	l := unicode.ToLower(r)
	if l == r {
		return "x" + name
	}
	return string(l) + name[size:]
}

// GroupGoName is client-gen's Go name for an API group: the +groupGoName value
// when set, else the first DNS label of the group name ("" is "core"), with
// its first letter upper-cased. Characters that cannot appear in a Go
// identifier are dropped ("cert-manager.io" → "Certmanager").
func GroupGoName(group, override string) string {
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

// PackageName turns a directory name into a Go package name: lower case,
// with characters that cannot appear in an identifier dropped, and a "x"
// prefix when what is left is empty, the blank identifier, starts with a
// digit or is a Go keyword ("type" → "xtype", "go" → "xgo").
func PackageName(dir string) string {
	name := strings.ToLower(identifierChars(dir))
	if name == "" || name == "_" || unicode.IsDigit(rune(name[0])) || token.IsKeyword(name) {
		name = "x" + name
	}
	return name
}

// UpstreamPackageName returns the package name upstream gives a directory
// (name), when it can compile, else PackageName(fallback): upstream takes a
// directory's name as it is, which is no Go package name when it is a keyword,
// "_" or no identifier at all.
func UpstreamPackageName(name, fallback string) string {
	if token.IsIdentifier(name) && !token.IsKeyword(name) && name != "_" {
		return name
	}
	return PackageName(fallback)
}

// groupDirPackageName is upstream informer-gen's package name of a group
// directory: the directory's name up to its first dot ("cilium.io" →
// "cilium"), sanitized when that cannot compile ("cert-manager.io" →
// "certmanager").
func groupDirPackageName(dir string) string {
	first, _, _ := strings.Cut(dir, ".")
	return UpstreamPackageName(first, first)
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
