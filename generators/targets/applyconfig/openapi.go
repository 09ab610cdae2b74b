package applyconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// This file turns the OpenAPI v2 document given with --openapi-schema into
// the structured-merge-diff schema the internal package embeds, as
// applyconfiguration-gen does: only the definitions of the +genclient types
// with an apply verb and what they reference, each object a map of its
// properties (in name order), lists and maps with the element relationship
// their x-kubernetes-* extensions give, and the two untyped types last.

// emptySMDSchema is the schema without --openapi-schema: only the untyped
// types, so Extract functions are not generated and Parser knows no kind.
var emptySMDSchema = smdEmit(nil)

// OpenAPIDoc is the definitions of an OpenAPI v2 document.
type OpenAPIDoc struct {
	path string
	defs map[string]*oaSchema
}

// oaSchema is the part of an OpenAPI v2 schema the conversion reads.
type oaSchema struct {
	Ref        string
	Types      []string
	Format     string
	Properties map[string]*oaSchema
	// AdditionalProperties is the schema of a map's values, if given as one.
	AdditionalProperties *oaSchema
	Items                *oaSchema
	Default              any
	HasDefault           bool
	Ext                  map[string]any
	// nested are schemas to follow for references besides the above.
	nested []*oaSchema
}

// UnmarshalJSON reads a schema, keeping only what the conversion needs.
func (s *oaSchema) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for k, v := range raw {
		var err error
		switch {
		case k == "$ref":
			err = json.Unmarshal(v, &s.Ref)
		case k == "type":
			var one string
			if json.Unmarshal(v, &one) == nil {
				s.Types = []string{one}
			} else {
				err = json.Unmarshal(v, &s.Types)
			}
		case k == "format":
			err = json.Unmarshal(v, &s.Format)
		case k == "properties":
			err = json.Unmarshal(v, &s.Properties)
		case k == "additionalProperties":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				s.AdditionalProperties = &oaSchema{}
				err = json.Unmarshal(v, s.AdditionalProperties)
			}
		case k == "items":
			if bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
				var list []*oaSchema
				err = json.Unmarshal(v, &list)
				s.nested = append(s.nested, list...)
			} else {
				s.Items = &oaSchema{}
				err = json.Unmarshal(v, s.Items)
			}
		case k == "default":
			s.HasDefault = true
			d := json.NewDecoder(bytes.NewReader(v))
			d.UseNumber()
			err = d.Decode(&s.Default)
		case k == "allOf" || k == "anyOf" || k == "oneOf":
			var list []*oaSchema
			err = json.Unmarshal(v, &list)
			s.nested = append(s.nested, list...)
		case k == "not":
			n := &oaSchema{}
			err = json.Unmarshal(v, n)
			s.nested = append(s.nested, n)
		case strings.HasPrefix(k, "x-"):
			if s.Ext == nil {
				s.Ext = map[string]any{}
			}
			var x any
			err = json.Unmarshal(v, &x)
			s.Ext[k] = x
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// ReadOpenAPI reads an OpenAPI v2 document's definitions.
func ReadOpenAPI(file string) (*OpenAPIDoc, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, inputerr.Errorf("", "--openapi-schema: %v", err)
	}
	var doc struct {
		Definitions map[string]*oaSchema `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, inputerr.Errorf(file, "--openapi-schema: not an OpenAPI v2 document: %v", err)
	}
	return &OpenAPIDoc{path: file, defs: doc.Definitions}, nil
}

// refName is the definition a "$ref" names ("#/definitions/X" → "X").
func refName(ref string) (string, bool) {
	return strings.CutPrefix(ref, "#/definitions/")
}

// smdYAML converts the definitions of roots, and every definition they
// reference, to the schema YAML.
func (d *OpenAPIDoc) smdYAML(roots []string) (string, error) {
	used := map[string]*oaSchema{}
	var visit func(s *oaSchema) error
	visit = func(s *oaSchema) error {
		if s == nil {
			return nil
		}
		if s.Ref != "" {
			if name, ok := refName(s.Ref); ok {
				if _, seen := used[name]; !seen {
					def, found := d.defs[name]
					if !found {
						return inputerr.Errorf(d.path, "--openapi-schema: a schema references %s, which the document does not define", name)
					}
					used[name] = def
					if err := visit(def); err != nil {
						return err
					}
				}
			}
		}
		for _, p := range s.Properties {
			if err := visit(p); err != nil {
				return err
			}
		}
		for _, n := range append([]*oaSchema{s.Items, s.AdditionalProperties}, s.nested...) {
			if err := visit(n); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range roots {
		def := d.defs[r]
		if def == nil {
			def = &oaSchema{}
		}
		if _, seen := used[r]; seen {
			continue
		}
		used[r] = def
		if err := visit(def); err != nil {
			return "", err
		}
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	var types []smdTypeDef
	for _, n := range names {
		c := &smdConverter{name: n}
		a := c.atom(used[n], false)
		if c.err != nil {
			return "", inputerr.Errorf(d.path, "--openapi-schema: %v", c.err)
		}
		if a.empty() {
			continue // a definition that is only a reference
		}
		types = append(types, smdTypeDef{Name: n, Atom: a})
	}
	return smdEmit(types), nil
}

// The structured-merge-diff schema, as much of it as the conversion makes.
type smdTypeDef struct {
	Name string
	Atom *smdAtom
}

type smdAtom struct {
	Scalar string
	List   *smdList
	Map    *smdMap
}

func (a *smdAtom) empty() bool { return a.Scalar == "" && a.List == nil && a.Map == nil }

type smdTypeRef struct {
	NamedType           string
	Inlined             *smdAtom
	ElementRelationship string
}

type smdList struct {
	ElementType         smdTypeRef
	ElementRelationship string
	Keys                []string
}

type smdMap struct {
	Fields              []smdField
	Unions              []smdUnion
	ElementType         *smdTypeRef
	ElementRelationship string
}

type smdField struct {
	Name       string
	Type       smdTypeRef
	Default    any
	HasDefault bool
}

type smdUnion struct {
	Discriminator string
	Fields        []smdUnionField
}

type smdUnionField struct{ FieldName, DiscriminatorValue string }

const (
	untypedAtomic  = "__untyped_atomic_"
	untypedDeduced = "__untyped_deduced_"
)

// deducedAtom is the atom of an arbitrary value.
func deducedAtom() *smdAtom {
	return &smdAtom{
		Scalar: "untyped",
		List:   &smdList{ElementType: smdTypeRef{NamedType: untypedAtomic}, ElementRelationship: "atomic"},
		Map:    &smdMap{ElementType: &smdTypeRef{NamedType: untypedDeduced}, ElementRelationship: "separable"},
	}
}

// smdConverter converts one definition; the first error sticks.
type smdConverter struct {
	name string
	err  error
}

func (c *smdConverter) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%s: %s", c.name, fmt.Sprintf(format, args...))
	}
}

// atom converts a schema that is not a reference.
func (c *smdConverter) atom(s *oaSchema, preserveUnknown bool) *smdAtom {
	if s.Ref != "" {
		return &smdAtom{}
	}
	switch len(s.Types) {
	case 0:
		if len(s.Properties) > 0 {
			return c.kind(s, preserveUnknown)
		}
		return deducedAtom()
	case 1:
	default:
		c.fail("definitions with more than one type are not supported")
		return &smdAtom{}
	}
	switch t := s.Types[0]; t {
	case "object":
		if len(s.Properties) > 0 {
			return c.kind(s, preserveUnknown)
		}
		m := &smdMap{ElementRelationship: c.mapRelationship(s.Ext)}
		if s.AdditionalProperties != nil {
			r := c.ref(s.AdditionalProperties, preserveUnknown)
			m.ElementType = &r
		} else {
			m.ElementType = &smdTypeRef{Inlined: deducedAtom()}
		}
		return &smdAtom{Map: m}
	case "array":
		rel, keys := c.listRelationship(s.Ext)
		l := &smdList{ElementRelationship: rel, Keys: keys}
		if s.Items != nil {
			l.ElementType = c.ref(s.Items, preserveUnknown)
		} else {
			l.ElementType = smdTypeRef{NamedType: untypedAtomic}
		}
		return &smdAtom{List: l}
	case "integer", "number":
		if c.name == "io.k8s.apimachinery.pkg.api.resource.Quantity" {
			return &smdAtom{Scalar: "untyped"}
		}
		return &smdAtom{Scalar: "numeric"}
	case "string":
		if c.name == "io.k8s.apimachinery.pkg.api.resource.Quantity" {
			return &smdAtom{Scalar: "untyped"}
		}
		if s.Format == "" || s.Format == "byte" {
			return &smdAtom{Scalar: "string"}
		}
		return &smdAtom{Scalar: "untyped"}
	case "boolean":
		if c.name == "io.k8s.apimachinery.pkg.api.resource.Quantity" {
			return &smdAtom{Scalar: "untyped"}
		}
		return &smdAtom{Scalar: "boolean"}
	default:
		c.fail("unknown primitive type %q", t)
		return &smdAtom{}
	}
}

// kind converts an object with properties.
func (c *smdConverter) kind(s *oaSchema, preserveUnknown bool) *smdAtom {
	if p, ok := s.Ext["x-kubernetes-preserve-unknown-fields"].(bool); ok && p {
		preserveUnknown = true
	}
	m := &smdMap{}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := s.Properties[n]
		m.Fields = append(m.Fields, smdField{Name: n, Type: c.ref(p, preserveUnknown), Default: p.Default, HasDefault: p.HasDefault})
	}
	m.Unions = c.unions(s.Ext)
	if preserveUnknown {
		m.ElementType = &smdTypeRef{NamedType: untypedDeduced}
	}
	m.ElementRelationship = c.mapRelationship(s.Ext)
	return &smdAtom{Map: m}
}

// ref converts the type of a member, an element or a map value.
func (c *smdConverter) ref(s *oaSchema, preserveUnknown bool) smdTypeRef {
	if s.Ref != "" {
		name, _ := refName(s.Ref)
		if name == "io.k8s.apimachinery.pkg.runtime.RawExtension" {
			return smdTypeRef{NamedType: untypedAtomic}
		}
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		return smdTypeRef{NamedType: name, ElementRelationship: c.mapRelationship(s.Ext)}
	}
	inner := &smdConverter{name: "inlined in " + c.name}
	a := inner.atom(s, preserveUnknown)
	if inner.err != nil && c.err == nil {
		c.err = inner.err
	}
	if a.empty() {
		return smdTypeRef{NamedType: untypedAtomic}
	}
	return smdTypeRef{Inlined: a}
}

func (c *smdConverter) mapRelationship(ext map[string]any) string {
	v, ok := ext["x-kubernetes-map-type"]
	if !ok {
		return ""
	}
	switch v {
	case "atomic":
		return "atomic"
	case "granular":
		return "separable"
	}
	c.fail("unknown map type %v", v)
	return ""
}

func (c *smdConverter) listRelationship(ext map[string]any) (string, []string) {
	if v, ok := ext["x-kubernetes-list-type"]; ok {
		switch v {
		case "atomic":
			return "atomic", nil
		case "set":
			return "associative", nil
		case "map":
			keys, ok := ext["x-kubernetes-list-map-keys"].([]any)
			if !ok {
				c.fail("x-kubernetes-list-type map without x-kubernetes-list-map-keys")
				return "associative", nil
			}
			var out []string
			for _, k := range keys {
				if s, ok := k.(string); ok {
					out = append(out, s)
				}
			}
			return "associative", out
		}
		c.fail("unknown list type %v", v)
		return "atomic", nil
	}
	if v, ok := ext["x-kubernetes-patch-strategy"]; ok {
		switch v {
		case "merge", "merge,retainKeys":
			if k, ok := ext["x-kubernetes-patch-merge-key"]; ok {
				s, ok := k.(string)
				if !ok {
					c.fail("x-kubernetes-patch-merge-key %v is not a string", k)
					return "associative", nil
				}
				return "associative", []string{s}
			}
			return "associative", nil
		case "retainKeys":
			return "atomic", nil
		}
		c.fail("unknown patch strategy %v", v)
	}
	return "atomic", nil
}

func (c *smdConverter) unions(ext map[string]any) []smdUnion {
	raw, ok := ext["x-kubernetes-unions"]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		c.fail("x-kubernetes-unions is not a list")
		return nil
	}
	var out []smdUnion
	seen := map[string]bool{}
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			c.fail("x-kubernetes-unions items must be maps")
			return nil
		}
		var u smdUnion
		if d, ok := m["discriminator"]; ok {
			s, ok := d.(string)
			if !ok {
				c.fail("union discriminator %v is not a string", d)
				return nil
			}
			u.Discriminator = s
		}
		if f, ok := m["fields-to-discriminateBy"]; ok {
			fm, ok := f.(map[string]any)
			if !ok {
				c.fail("fields-to-discriminateBy must be a map of strings")
				return nil
			}
			keys := make([]string, 0, len(fm))
			for k := range fm {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			values := map[string]bool{}
			for _, k := range keys {
				v, ok := fm[k].(string)
				if !ok {
					c.fail("fields-to-discriminateBy/%s must be a string", k)
					return nil
				}
				if values[v] {
					c.fail("two union fields have the discriminator value %s", v)
					return nil
				}
				values[v] = true
				u.Fields = append(u.Fields, smdUnionField{FieldName: k, DiscriminatorValue: v})
			}
		}
		for _, n := range append([]string{u.Discriminator}, unionFieldNames(u)...) {
			if n == "" {
				continue
			}
			if seen[n] {
				c.fail("%s appears in more than one union", n)
				return nil
			}
			seen[n] = true
		}
		out = append(out, u)
	}
	return out
}

func unionFieldNames(u smdUnion) []string {
	out := make([]string, len(u.Fields))
	for i, f := range u.Fields {
		out[i] = f.FieldName
	}
	return out
}

// SchemaYAML is the structured-merge-diff schema the apply configurations'
// internal package embeds for the OpenAPI v2 document in file: the given
// definitions and every definition they reference, followed by the untyped
// types. It reads file and nothing else.
func SchemaYAML(file string, definitions []string) (string, error) {
	d, err := ReadOpenAPI(file)
	if err != nil {
		return "", err
	}
	return d.smdYAML(definitions)
}
