package load

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// TagValue is one "+name=value" (or "+name") line.
type TagValue struct {
	Value string
	Pos   string
}

// ExtractTags collects the "+name=value" lines of a comment, keyed by name,
// in order: the same reading as gengo's ExtractCommentTags with its position.
func ExtractTags(lines []CommentLine) map[string][]TagValue {
	out := map[string][]TagValue{}
	for _, l := range lines {
		rest, ok := strings.CutPrefix(l.Text, "+")
		if !ok {
			continue
		}
		name, value, _ := strings.Cut(rest, "=")
		out[name] = append(out[name], TagValue{Value: value, Pos: l.Pos})
	}
	return out
}

// supportedVerbs are the client verbs +genclient:onlyVerbs and :skipVerbs may
// name (client-gen's list).
var supportedVerbs = []string{
	"create", "update", "updateStatus", "delete", "deleteCollection",
	"get", "list", "watch", "patch", "apply", "applyStatus",
}

// readonlyVerbs are the verbs +genclient:readonly keeps.
var readonlyVerbs = []string{"get", "list", "watch"}

// knownGenclientTags are the +genclient tags client-gen understands; any
// other tag starting with "genclient" is an error.
var knownGenclientTags = []string{
	"genclient",
	"genclient:nonNamespaced",
	"genclient:noVerbs",
	"genclient:onlyVerbs",
	"genclient:skipVerbs",
	"genclient:noStatus",
	"genclient:readonly",
	"genclient:method",
}

// ClientTags is what a type's +genclient tags say about its client.
type ClientTags struct {
	GenerateClient bool
	NonNamespaced  bool
	// Verbs are the verbs the clientset has for the type.
	Verbs []string
	// TaggedVerbs are the verbs before +genclient:noVerbs: applyconfiguration-gen
	// reads a type's apply verbs from them, so a noVerbs type (policy's
	// Eviction) still gets its apply configuration.
	TaggedVerbs []string
	// InformerGen and ListerGen are false when +k8s:informer-gen=false or
	// +k8s:lister-gen=false is set on the type.
	InformerGen, ListerGen bool
	// ResourceName is the +resourceName override of the REST resource, if any.
	ResourceName string
	// ResourceNamePos is the file:line of the +resourceName tag.
	ResourceNamePos string
	// NoVerbs is +genclient:noVerbs: the client has no verb at all, not even
	// the extension methods.
	NoVerbs bool
	// NoStatus is +genclient:noStatus: no UpdateStatus or ApplyStatus.
	NoStatus bool
	// Extensions are the +genclient:method= verbs, in tag order.
	Extensions []ClientExtension
}

// ClientExtension is one +genclient:method=Name,verb=...[,subresource=...]
// [,input=...][,result=...] tag: an extra client method.
type ClientExtension struct {
	// Method is the Go name of the method ("UpdateScale").
	Method string
	// Verb is the kind of request: create, update, get, list, patch or apply.
	Verb string
	// Subresource is the REST subresource ("scale"), or "".
	Subresource string
	// Input and Result override the type the method takes and returns: a
	// type of the same package ("Scale") or a qualified one
	// ("k8s.io/api/autoscaling/v1.Scale"). "" means the tagged type.
	Input, Result string
	Pos           string
}

// extensionVerbs are the verbs +genclient:method may use (client-gen's
// supported verbs less those it cannot generate extensions for).
var extensionVerbs = []string{"create", "update", "get", "list", "patch", "apply"}

// Verbs whose input, or result, type an extension may override (client-gen's lists).
var (
	inputOverrideVerbs  = []string{"create", "update", "apply"}
	resultOverrideVerbs = []string{"create", "update", "get", "list", "patch", "apply"}
)

// parseExtension reads one +genclient:method value with client-gen's rules.
func parseExtension(typeName string, v TagValue) (ClientExtension, error) {
	e := ClientExtension{Pos: v.Pos}
	parts := strings.Split(v.Value, ",")
	e.Method = strings.TrimSpace(parts[0])
	if !IsExportedIdent(e.Method) {
		return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: the method name must be an exported Go identifier (+genclient:method=Name,verb=create)", typeName, v.Value)
	}
	for _, p := range parts[1:] {
		key, val, ok := strings.Cut(p, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || strings.Contains(val, "=") {
			return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: %q is not key=value", typeName, v.Value, p)
		}
		if val == "" {
			return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: empty value for %q", typeName, v.Value, key)
		}
		switch key {
		case "verb":
			e.Verb = val
		case "subresource":
			e.Subresource = val
		case "input":
			e.Input = val
		case "result":
			e.Result = val
		default:
			return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: unknown key %q (known: verb, subresource, input, result)", typeName, v.Value, key)
		}
	}
	switch {
	case e.Verb == "":
		return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: say which verb it uses (,verb=create)", typeName, v.Value)
	case !slices.Contains(extensionVerbs, e.Verb):
		return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: verb %q cannot be used for an extension method (supported: %s)", typeName, v.Value, e.Verb, strings.Join(extensionVerbs, ", "))
	case e.Input != "" && !slices.Contains(inputOverrideVerbs, e.Verb):
		return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: input type is not supported for %q verbs (supported: %s)", typeName, v.Value, e.Verb, strings.Join(inputOverrideVerbs, ", "))
	case e.Result != "" && !slices.Contains(resultOverrideVerbs, e.Verb):
		return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: result type is not supported for %q verbs (supported: %s)", typeName, v.Value, e.Verb, strings.Join(resultOverrideVerbs, ", "))
	case e.Verb == "list" && e.Subresource != "":
		return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: a list extension on a subresource is not supported (client-gen's fake client for it does not compile)", typeName, v.Value)
	}
	for _, ref := range []string{e.Input, e.Result} {
		if ref == "" {
			continue
		}
		pkg, name := SplitTypeRef(ref)
		if !IsExportedIdent(name) || (pkg != "" && !IsImportPath(pkg)) {
			return e, inputerr.Errorf(v.Pos, "type %s: +genclient:method=%s: %q is not a type name (Name, or <import path>.Name)", typeName, v.Value, ref)
		}
	}
	return e, nil
}

// SplitTypeRef splits "k8s.io/api/autoscaling/v1.Scale" into its package
// and name; a bare "Scale" has no package.
func SplitTypeRef(ref string) (pkg, name string) {
	i := strings.LastIndex(ref, ".")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return "", ref
	}
	return ref[:i], ref[i+1:]
}

// HasVerb reports whether the clientset has verb for the type.
func (t ClientTags) HasVerb(verb string) bool { return slices.Contains(t.Verbs, verb) }

// ParseClientTags reads and validates a type's tags with client-gen's rules:
// +genclient:noVerbs removes every verb; +genclient:readonly and
// +genclient:onlyVerbs= keep only the verbs they name (together, their
// union) and then +genclient:skipVerbs= is ignored, as client-gen does;
// otherwise +genclient:skipVerbs= removes the verbs it names.
func ParseClientTags(t ParsedType) (ClientTags, error) {
	tags := ExtractTags(t.Tags)
	out := ClientTags{InformerGen: true, ListerGen: true}
	for _, l := range t.Tags {
		name, _, _ := strings.Cut(strings.TrimPrefix(l.Text, "+"), "=")
		if strings.HasPrefix(l.Text, "+genclient") && !slices.Contains(knownGenclientTags, name) {
			return out, inputerr.Errorf(l.Pos, "type %s: unknown tag +%s (known: +%s)", t.Name, name, strings.Join(knownGenclientTags, ", +"))
		}
	}
	if v, ok := tags["genclient"]; ok {
		if v[0].Value != "" {
			return out, inputerr.Errorf(v[0].Pos, "type %s: +genclient=%s is invalid: write +genclient to generate a client, or leave the tag out", t.Name, v[0].Value)
		}
		out.GenerateClient = true
	}
	for _, old := range []string{"nonNamespaced", "readonly", "noVerbs"} {
		if v, ok := tags[old]; ok {
			return out, inputerr.Errorf(v[0].Pos, "type %s: +%s is invalid, write +genclient:%s", t.Name, old, old)
		}
	}
	_, out.NonNamespaced = tags["genclient:nonNamespaced"]

	verbs := func(tag string) ([]string, error) {
		v := tags[tag]
		var vs []string
		for _, verb := range strings.Split(v[len(v)-1].Value, ",") {
			verb = strings.TrimSpace(verb)
			if verb == "" {
				continue
			}
			if !slices.Contains(supportedVerbs, verb) {
				return nil, inputerr.Errorf(v[len(v)-1].Pos, "type %s: +%s names unknown verb %q (known: %s)", t.Name, tag, verb, strings.Join(supportedVerbs, ", "))
			}
			vs = append(vs, verb)
		}
		return vs, nil
	}
	_, readonly := tags["genclient:readonly"]
	_, only := tags["genclient:onlyVerbs"]
	_, skip := tags["genclient:skipVerbs"]
	switch {
	case readonly || only:
		keep := []string{}
		if readonly {
			keep = append(keep, readonlyVerbs...)
		}
		if only {
			vs, err := verbs("genclient:onlyVerbs")
			if err != nil {
				return out, err
			}
			keep = append(keep, vs...)
		}
		for _, v := range supportedVerbs {
			if slices.Contains(keep, v) {
				out.Verbs = append(out.Verbs, v)
			}
		}
	case skip:
		vs, err := verbs("genclient:skipVerbs")
		if err != nil {
			return out, err
		}
		for _, v := range supportedVerbs {
			if !slices.Contains(vs, v) {
				out.Verbs = append(out.Verbs, v)
			}
		}
	default:
		out.Verbs = slices.Clone(supportedVerbs)
	}
	out.TaggedVerbs = out.Verbs
	if _, ok := tags["genclient:noVerbs"]; ok {
		out.Verbs = nil
		out.NoVerbs = true
	}
	_, out.NoStatus = tags["genclient:noStatus"]
	for _, v := range tags["genclient:method"] {
		e, err := parseExtension(t.Name, v)
		if err != nil {
			return out, err
		}
		out.Extensions = append(out.Extensions, e)
	}

	var err error
	if out.InformerGen, err = boolTag(t.Name, tags, "k8s:informer-gen"); err != nil {
		return out, err
	}
	if out.ListerGen, err = boolTag(t.Name, tags, "k8s:lister-gen"); err != nil {
		return out, err
	}
	if v, ok := tags["resourceName"]; ok {
		out.ResourceName, out.ResourceNamePos = strings.TrimSpace(v[0].Value), v[0].Pos
		if out.ResourceName == "" || strings.ContainsAny(out.ResourceName, "/ \"\\") {
			return out, inputerr.Errorf(v[0].Pos, "type %s: +resourceName=%q is not a resource name", t.Name, v[0].Value)
		}
	}
	return out, nil
}

// boolTag reads an activation tag that may only be "true" or "false"; absent
// means true.
func boolTag(owner string, tags map[string][]TagValue, name string) (bool, error) {
	vals, ok := tags[name]
	if !ok {
		return true, nil
	}
	result := true
	for _, v := range vals {
		switch strings.TrimSpace(v.Value) {
		case "false":
			result = false
		case "true":
		default:
			return false, inputerr.Errorf(v.Pos, "%s: +%s=%s is invalid: use +%s=false to opt out (or true)", owner, name, v.Value, name)
		}
	}
	return result, nil
}

// PackageTags is what an API package's doc.go says.
type PackageTags struct {
	Group, GroupPos string
	HasGroup        bool
	GroupGoName     string
	InformerGen     bool
	ListerGen       bool
}

// ParsePackageTags reads +groupName=, +groupGoName=, +k8s:informer-gen and
// +k8s:lister-gen from a package's tag lines. Without +groupName it falls
// back to the package's `const GroupName = "..."`, as k8s.io/api's apps,
// batch and policy packages declare their group that way.
func ParsePackageTags(p ParsedPackage) (PackageTags, error) {
	tags := ExtractTags(p.Tags)
	out := PackageTags{}
	owner := "package " + p.ImportPath
	if v, ok := tags["groupName"]; ok {
		out.Group, out.GroupPos, out.HasGroup = strings.TrimSpace(v[0].Value), v[0].Pos, true
	} else if p.GroupName != nil {
		out.Group, out.GroupPos, out.HasGroup = p.GroupName.Value, p.GroupName.Pos, true
	}
	if out.HasGroup && strings.ContainsAny(out.Group, "/ \"\\") {
		return out, inputerr.Errorf(out.GroupPos, "%s: group name %q is not a DNS name", owner, out.Group)
	}
	if v, ok := tags["groupGoName"]; ok {
		out.GroupGoName = strings.TrimSpace(v[0].Value)
		if !IsIdentifier(out.GroupGoName) {
			return out, inputerr.Errorf(v[0].Pos, "%s: +groupGoName=%q is not a Go identifier", owner, v[0].Value)
		}
	}
	var err error
	if out.InformerGen, err = boolTag(owner, tags, "k8s:informer-gen"); err != nil {
		return out, err
	}
	if out.ListerGen, err = boolTag(owner, tags, "k8s:lister-gen"); err != nil {
		return out, err
	}
	return out, nil
}

// docTags are the tags of p's package comments as register-gen and
// defaulter-gen read them: only a package with a doc.go has any.
func docTags(p *DeclPackage) map[string][]TagValue {
	for _, f := range p.Files {
		if filepath.Base(f) == "doc.go" {
			return ExtractTags(p.Tags)
		}
	}
	return nil
}

// onOrFalse splits the values of a package tag that asks for a file into
// those that do (on) and the "false" that opts out, isFalse telling
// which; both together are an error at the value that mixes them.
func onOrFalse(tag string, vs []TagValue, isFalse func(string) bool) (on []TagValue, optedOut bool, err error) {
	for _, v := range vs {
		if isFalse(v.Value) {
			optedOut = true
		} else {
			on = append(on, v)
		}
		if optedOut && len(on) > 0 {
			return nil, false, inputerr.Errorf(v.Pos, "+%s: cannot mix \"false\" with other values; got %s", tag, strings.Join(values(vs), ", "))
		}
	}
	return on, optedOut, nil
}
