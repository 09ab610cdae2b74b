package load

import (
	"slices"
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// typeWithTags builds a ParsedType whose comment lines are lines.
func typeWithTags(lines ...string) ParsedType {
	t := ParsedType{Name: "Foo", Pos: "types.go:10"}
	for i, l := range lines {
		t.Tags = append(t.Tags, CommentLine{Text: l, Pos: "types.go:" + string(rune('1'+i))})
	}
	return t
}

func TestParseClientTags(t *testing.T) {
	all := supportedVerbs
	for _, c := range []struct {
		name          string
		lines         []string
		client        bool
		nonNamespaced bool
		verbs         []string
		informerGen   bool
		listerGen     bool
		resource      string
	}{
		{"no tags", []string{"Foo is a thing."}, false, false, all, true, true, ""},
		{"genclient", []string{"+genclient"}, true, false, all, true, true, ""},
		{"nonNamespaced", []string{"+genclient", "+genclient:nonNamespaced"}, true, true, all, true, true, ""},
		{"noVerbs", []string{"+genclient", "+genclient:noVerbs"}, true, false, nil, true, true, ""},
		{"readonly", []string{"+genclient", "+genclient:readonly"}, true, false, []string{"get", "list", "watch"}, true, true, ""},
		{"onlyVerbs", []string{"+genclient", "+genclient:onlyVerbs=create,list"}, true, false, []string{"create", "list"}, true, true, ""},
		{"readonly+onlyVerbs", []string{"+genclient", "+genclient:readonly", "+genclient:onlyVerbs=create"}, true, false, []string{"create", "get", "list", "watch"}, true, true, ""},
		{"skipVerbs", []string{"+genclient", "+genclient:skipVerbs=watch,patch"}, true, false, []string{"create", "update", "updateStatus", "delete", "deleteCollection", "get", "list", "apply", "applyStatus"}, true, true, ""},
		{"onlyVerbs wins over skipVerbs", []string{"+genclient", "+genclient:skipVerbs=get", "+genclient:onlyVerbs=get,list"}, true, false, []string{"get", "list"}, true, true, ""},
		{"method and noStatus are known", []string{"+genclient", "+genclient:noStatus", "+genclient:method=Scale,verb=get,subresource=scale"}, true, false, all, true, true, ""},
		{"type opt-outs", []string{"+genclient", "+k8s:informer-gen=false", "+k8s:lister-gen=false"}, true, false, all, false, false, ""},
		{"explicit true", []string{"+genclient", "+k8s:informer-gen=true"}, true, false, all, true, true, ""},
		{"resourceName", []string{"+genclient", "+resourceName=foozles"}, true, false, all, true, true, "foozles"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseClientTags(typeWithTags(c.lines...))
			if err != nil {
				t.Fatal(err)
			}
			if got.GenerateClient != c.client || got.NonNamespaced != c.nonNamespaced || !slices.Equal(got.Verbs, c.verbs) ||
				got.InformerGen != c.informerGen || got.ListerGen != c.listerGen || got.ResourceName != c.resource {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func TestParseClientTagsErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		want  string // substring of the error, which must start with the tag's position
	}{
		{"unknown genclient tag", []string{"+genclient", "+genclient:nonNamespace"}, "types.go:2: type Foo: unknown tag +genclient:nonNamespace"},
		{"unknown tag without genclient", []string{"+genclient:bogus"}, "types.go:1: type Foo: unknown tag +genclient:bogus"},
		{"genclient with value", []string{"+genclient=true"}, "types.go:1: type Foo: +genclient=true is invalid"},
		{"old nonNamespaced", []string{"+genclient", "+nonNamespaced=true"}, "types.go:2: type Foo: +nonNamespaced is invalid"},
		{"unknown verb", []string{"+genclient", "+genclient:onlyVerbs=get,lists"}, `types.go:2: type Foo: +genclient:onlyVerbs names unknown verb "lists"`},
		{"bad informer-gen value", []string{"+genclient", "+k8s:informer-gen=no"}, "types.go:2: Foo: +k8s:informer-gen=no is invalid"},
		{"empty resourceName", []string{"+genclient", "+resourceName="}, "types.go:2: type Foo: +resourceName"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseClientTags(typeWithTags(c.lines...))
			if err == nil || !inputerr.Is(err) || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v, want an input error starting with %q", err, c.want)
			}
		})
	}
}

func TestParsePackageTags(t *testing.T) {
	pkg := func(groupConst *StringConst, lines ...string) ParsedPackage {
		p := ParsedPackage{InputPackage: InputPackage{ImportPath: "example.com/apis/foo/v1"}, GroupName: groupConst}
		for _, l := range lines {
			p.Tags = append(p.Tags, CommentLine{Text: l, Pos: "doc.go:3"})
		}
		return p
	}
	for _, c := range []struct {
		name     string
		pkg      ParsedPackage
		group    string
		hasGroup bool
		goName   string
		inf, lst bool
	}{
		{"groupName", pkg(nil, "+groupName=foo.example.com"), "foo.example.com", true, "", true, true},
		{"empty groupName is core", pkg(nil, "+groupName="), "", true, "", true, true},
		{"tag wins over const", pkg(&StringConst{"bar", "register.go:5"}, "+groupName=foo"), "foo", true, "", true, true},
		{"const fallback", pkg(&StringConst{"apps", "register.go:5"}), "apps", true, "", true, true},
		{"no group", pkg(nil, "Package v1 is ..."), "", false, "", true, true},
		{"groupGoName and opt-outs", pkg(nil, "+groupName=x.io", "+groupGoName=Xio", "+k8s:informer-gen=false", "+k8s:lister-gen=false"), "x.io", true, "Xio", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParsePackageTags(c.pkg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Group != c.group || got.HasGroup != c.hasGroup || got.GroupGoName != c.goName || got.InformerGen != c.inf || got.ListerGen != c.lst {
				t.Errorf("got %+v", got)
			}
		})
	}
	if _, err := ParsePackageTags(pkg(nil, "+groupName=x.io", "+groupGoName=not-ok")); !inputerr.Is(err) {
		t.Errorf("bad +groupGoName: got %v, want an input error", err)
	}
}
