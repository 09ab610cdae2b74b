package applyconfig

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// This file writes the structured-merge-diff schema as YAML, laid out as
// structured-merge-diff's own serialization lays it out.

// smdEmit writes the schema YAML of types followed by the untyped types,
// laid out as structured-merge-diff's own serialization lays it out.
func smdEmit(types []smdTypeDef) string {
	types = append(types,
		smdTypeDef{Name: untypedAtomic, Atom: &smdAtom{
			Scalar: "untyped",
			List:   &smdList{ElementType: smdTypeRef{NamedType: untypedAtomic}, ElementRelationship: "atomic"},
			Map:    &smdMap{ElementType: &smdTypeRef{NamedType: untypedAtomic}, ElementRelationship: "atomic"},
		}},
		smdTypeDef{Name: untypedDeduced, Atom: deducedAtom()},
	)
	e := &yamlEmitter{}
	e.line(0, "types:")
	for _, t := range types {
		e.seqItem(0, "name: "+yamlScalar(t.Name))
		e.atom(2, t.Atom)
	}
	return e.b.String()
}

type yamlEmitter struct{ b strings.Builder }

func (e *yamlEmitter) line(indent int, s string) {
	e.b.WriteString(strings.Repeat(" ", indent))
	e.b.WriteString(s)
	e.b.WriteByte('\n')
}

func (e *yamlEmitter) seqItem(indent int, s string) { e.line(indent, "- "+s) }

func (e *yamlEmitter) atom(indent int, a *smdAtom) {
	if a.Scalar != "" {
		e.line(indent, "scalar: "+a.Scalar)
	}
	if a.List != nil {
		e.line(indent, "list:")
		e.line(indent+2, "elementType:")
		e.typeRef(indent+4, a.List.ElementType)
		if a.List.ElementRelationship != "" {
			e.line(indent+2, "elementRelationship: "+a.List.ElementRelationship)
		}
		if len(a.List.Keys) > 0 {
			e.line(indent+2, "keys:")
			for _, k := range a.List.Keys {
				e.seqItem(indent+2, yamlScalar(k))
			}
		}
	}
	if a.Map != nil {
		m := a.Map
		if len(m.Fields) == 0 && len(m.Unions) == 0 && m.ElementType == nil && m.ElementRelationship == "" {
			e.line(indent, "map: {}")
			return
		}
		e.line(indent, "map:")
		if len(m.Fields) > 0 {
			e.line(indent+2, "fields:")
			for _, f := range m.Fields {
				e.seqItem(indent+2, "name: "+yamlScalar(f.Name))
				e.line(indent+4, "type:")
				e.typeRef(indent+6, f.Type)
				if f.HasDefault && !yamlEmptyValue(f.Default) {
					e.value(indent+4, "default", f.Default)
				}
			}
		}
		if len(m.Unions) > 0 {
			e.line(indent+2, "unions:")
			for _, u := range m.Unions {
				first := true
				item := func(s string) {
					if first {
						e.seqItem(indent+2, s)
						first = false
					} else {
						e.line(indent+4, s)
					}
				}
				if u.Discriminator != "" {
					item("discriminator: " + yamlScalar(u.Discriminator))
				}
				if len(u.Fields) > 0 {
					item("fields:")
					for _, f := range u.Fields {
						e.seqItem(indent+4, "fieldName: "+yamlScalar(f.FieldName))
						e.line(indent+6, "discriminatorValue: "+yamlScalar(f.DiscriminatorValue))
					}
				}
				if first {
					e.seqItem(indent+2, "{}")
				}
			}
		}
		if m.ElementType != nil {
			e.line(indent+2, "elementType:")
			e.typeRef(indent+4, *m.ElementType)
		}
		if m.ElementRelationship != "" {
			e.line(indent+2, "elementRelationship: "+m.ElementRelationship)
		}
	}
}

func (e *yamlEmitter) typeRef(indent int, r smdTypeRef) {
	if r.NamedType == "" && (r.Inlined == nil || r.Inlined.empty()) && r.ElementRelationship == "" {
		// An empty type reference; the line before ends in ":".
		e.line(indent, "{}")
		return
	}
	if r.NamedType != "" {
		e.line(indent, "namedType: "+yamlScalar(r.NamedType))
	}
	if r.Inlined != nil {
		e.atom(indent, r.Inlined)
	}
	if r.ElementRelationship != "" {
		e.line(indent, "elementRelationship: "+r.ElementRelationship)
	}
}

// yamlEmptyValue reports whether a default is one the serialization leaves
// out (omitempty): nil, or an empty string, list or map is still written by
// value, so only nil is left out.
func yamlEmptyValue(v any) bool { return v == nil }

// value writes key: v, v being a JSON value.
func (e *yamlEmitter) value(indent int, key string, v any) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			e.line(indent, key+": {}")
			return
		}
		e.line(indent, key+":")
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e.value(indent+2, yamlScalar(k), x[k])
		}
	case []any:
		if len(x) == 0 {
			e.line(indent, key+": []")
			return
		}
		e.line(indent, key+":")
		for _, item := range x {
			switch item.(type) {
			case map[string]any, []any:
				// Nested collections in defaults: written inline as JSON,
				// which YAML reads the same.
				j, _ := json.Marshal(item)
				e.seqItem(indent, string(j))
			default:
				e.seqItem(indent, yamlValue(item))
			}
		}
	default:
		e.line(indent, key+": "+yamlValue(v))
	}
}

func yamlValue(v any) string {
	switch x := v.(type) {
	case string:
		return yamlScalar(x)
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String()
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// yamlScalar writes a string plainly when YAML reads it back as the same
// string, else double-quoted.
func yamlScalar(s string) string {
	if s == "" || yamlNeedsQuotes(s) {
		// The YAML sits in a Go raw string: no backquote may appear in it.
		return strings.ReplaceAll(strconv.Quote(s), "`", `\x60`)
	}
	return s
}

func yamlNeedsQuotes(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", ".inf", "-.inf", "+.inf", ".nan":
		return true
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return true
	}
	if strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@` \t") || strings.HasSuffix(s, " ") || strings.HasSuffix(s, ":") {
		return true
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.ContainsAny(s, "\n\r\t\\`") {
		return true
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}
