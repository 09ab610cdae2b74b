package generators

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/generators/output"
)

// shapesTypes has a +genclient type whose members take every shape
// apply configurations map differently.
const shapesTypes = `package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:method=ApplyScale,verb=apply,subresource=scale,input=Foo,result=Foo

// Foo is applied.
type Foo struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec              FooSpec   ` + "`json:\"spec\"`" + `
	Status            FooStatus ` + "`json:\"status,omitempty\"`" + `
}

// FooSpec has every member shape.
type FooSpec struct {
	Inline  ` + "`json:\",inline\"`" + `
	Name     string            ` + "`json:\"name\"`" + `
	Replicas *int32            ` + "`json:\"replicas,omitempty\"`" + `
	Items    []Item            ` + "`json:\"items\"`" + `
	Tags     []string          ` + "`json:\"tags\"`" + `
	Labels   map[string]string ` + "`json:\"labels\"`" + `
	ByName   map[string]Item   ` + "`json:\"byName\"`" + `
	Maybe    *[]string         ` + "`json:\"maybe\"`" + `
	Sum      [4]byte           ` + "`json:\"sum\"`" + `
	Any      interface{}       ` + "`json:\"any\"`" + `
	Mode     Mode              ` + "`json:\"mode\"`" + `
	Hidden   string            ` + "`json:\"-\"`" + `
	Untagged string
	ZZZ_Old  string ` + "`json:\"old\"`" + `
	Aliased  ItemAlias ` + "`json:\"aliased\"`" + `
}

// Inline is embedded inline.
type Inline struct {
	Shared string ` + "`json:\"shared\"`" + `
}

// Item is a struct with an apply configuration.
type Item struct {
	Key string ` + "`json:\"key\"`" + `
}

// ItemAlias stands for Item.
type ItemAlias = Item

// Mode is not a struct.
type Mode string

// FooStatus is the status.
type FooStatus struct {
	Phase string ` + "`json:\"phase\"`" + `
}

// Unused is reachable from no applied type.
type Unused struct {
	Key string ` + "`json:\"key\"`" + `
}
`

func applyOptions(dir string) Options {
	o := fooOptions(dir)
	withApplyConfig(&o)
	return o
}

// TestApplyConfigurations generates the apply configurations of every
// member shape and checks the builders applyconfiguration-gen would write:
// the fields and With methods per shape, the constructors, the Extract
// functions per subresource (with a schema), the types left out, ForKind,
// and that a second run changes nothing.
func TestApplyConfigurations(t *testing.T) {
	dir := t.TempDir()
	files := fooV1(shapesTypes).withMetaStub().with("schema.json", `{"definitions": {}}`)
	files["go.mod"] += ""
	writeTree(t, dir, files)
	opts := applyOptions(dir)
	opts.OpenAPISchema = "schema.json"
	res, err := Generate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ac := filepath.Join(dir, "gen", "applyconfiguration")
	read := func(rel string) string {
		t.Helper()
		return string(readFile(t, filepath.Join(ac, filepath.FromSlash(rel))))
	}
	for file, wants := range map[string][]string{
		"foo/v1/foo.go": {
			"applyconfigurationsmetav1.TypeMetaApplyConfiguration `json:\"\"`",
			"*applyconfigurationsmetav1.ObjectMetaApplyConfiguration `json:\"metadata,omitempty\"`",
			"Spec *FooSpecApplyConfiguration `json:\"spec,omitempty\"`",
			"func Foo(name, namespace string) *FooApplyConfiguration",
			"func ExtractFooFrom(foo *foov1.Foo, fieldManager string, subresource string) (*FooApplyConfiguration, error)",
			`internal.Parser().Type("com.example.bad.apis.foo.v1.Foo")`,
			"func ExtractFooScale(foo *foov1.Foo, fieldManager string) (*FooApplyConfiguration, error)",
			"func ExtractFooStatus(foo *foov1.Foo, fieldManager string) (*FooApplyConfiguration, error)",
			"func (b FooApplyConfiguration) IsApplyConfiguration() {}",
			"func (b *FooApplyConfiguration) WithName(value string) *FooApplyConfiguration {\n\tb.ensureObjectMetaApplyConfigurationExists()\n\tb.ObjectMetaApplyConfiguration.Name = &value",
			"func (b *FooApplyConfiguration) WithKind(value string) *FooApplyConfiguration {\n\tb.TypeMetaApplyConfiguration.Kind = &value",
			"func (b *FooApplyConfiguration) GetName() *string",
			"func (b *FooApplyConfiguration) GetAPIVersion() *string",
		},
		"foo/v1/foospec.go": {
			"InlineApplyConfiguration `json:\"\"`",
			"Name *string `json:\"name,omitempty\"`",
			"Replicas *int32 `json:\"replicas,omitempty\"`",
			"Items []ItemApplyConfiguration `json:\"items,omitempty\"`",
			"Tags []string `json:\"tags,omitempty\"`",
			"ByName map[string]ItemApplyConfiguration `json:\"byName,omitempty\"`",
			"Maybe *[]string `json:\"maybe,omitempty\"`",
			"Sum *[4]byte `json:\"sum,omitempty\"`",
			"Any *interface{} `json:\"any,omitempty\"`",
			"Mode *foov1.Mode `json:\"mode,omitempty\"`",
			"Aliased *ItemApplyConfiguration `json:\"aliased,omitempty\"`",
			"func FooSpec() *FooSpecApplyConfiguration",
			"func (b *FooSpecApplyConfiguration) WithShared(value string) *FooSpecApplyConfiguration {\n\tb.InlineApplyConfiguration.Shared = &value",
			"func (b *FooSpecApplyConfiguration) WithItems(values ...*ItemApplyConfiguration) *FooSpecApplyConfiguration",
			"panic(\"nil value passed to WithItems\")",
			"func (b *FooSpecApplyConfiguration) WithTags(values ...string) *FooSpecApplyConfiguration",
			"func (b *FooSpecApplyConfiguration) WithLabels(entries map[string]string) *FooSpecApplyConfiguration",
			"func (b *FooSpecApplyConfiguration) WithByName(entries map[string]ItemApplyConfiguration) *FooSpecApplyConfiguration",
			"func (b *FooSpecApplyConfiguration) WithMaybe(value []string) *FooSpecApplyConfiguration {\n\tb.Maybe = &value",
			"func (b *FooSpecApplyConfiguration) WithReplicas(value int32) *FooSpecApplyConfiguration {\n\tb.Replicas = &value",
			"func (b *FooSpecApplyConfiguration) WithAliased(value *ItemApplyConfiguration) *FooSpecApplyConfiguration {\n\tb.Aliased = value",
		},
		"utils.go": {
			`case foov1.SchemeGroupVersion.WithKind("Foo"):`,
			"return &applyconfigurationsfoov1.FooSpecApplyConfiguration{}",
			"func NewTypeConverter(scheme *runtime.Scheme) managedfields.TypeConverter",
		},
		"internal/internal.go": {"func Parser() *typed.Parser", "- name: com.example.bad.apis.foo.v1.Foo\n  scalar: untyped", "- name: __untyped_deduced_"},
	} {
		// gofmt aligns fields: compare with runs of blanks made one space.
		src := squeezeBlanks(read(file))
		for _, want := range wants {
			if !strings.Contains(src, squeezeBlanks(want)) {
				t.Errorf("%s lacks %q:\n%s", file, want, src)
			}
		}
	}
	for _, absent := range []string{"Hidden", "Untagged", "ZZZ_Old", "WithOld"} {
		if strings.Contains(read("foo/v1/foospec.go"), absent) {
			t.Errorf("foospec.go mentions %s", absent)
		}
	}
	for _, missing := range []string{"unused.go", "mode.go", "itemalias.go"} {
		if _, err := os.Stat(filepath.Join(ac, "foo", "v1", missing)); !os.IsNotExist(err) {
			t.Errorf("%s generated (%v); want none", missing, err)
		}
	}
	if client := string(readFile(t, filepath.Join(dir, "gen", "clientset", "versioned", "typed", "foo", "v1", "foo.go"))); !strings.Contains(client, "ApplyStatus(ctx context.Context, foo *applyconfigurationsfoov1.FooApplyConfiguration") {
		t.Errorf("the typed client has no ApplyStatus over the apply configuration:\n%s", client)
	}
	t.Logf("%d files", len(res.Files))

	again, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !again.UpToDate() {
		t.Errorf("second run not up to date: %d changed, %d stale", again.ChangedCount(), len(again.Stale))
	}
}

// TestReplaceApplyConfigGenOutput generates over apply configurations
// upstream's applyconfiguration-gen wrote: refused without
// ReplaceClientGenOutput (see TestBadInput); with it, its files are
// replaced, those no longer produced removed, and a hand-written file stays.
func TestReplaceApplyConfigGenOutput(t *testing.T) {
	dir := t.TempDir()
	const upstream = "// Code generated by applyconfiguration-gen. DO NOT EDIT.\n\npackage v1\n"
	writeTree(t, dir, fooV1(okTypes).withMetaStub().with(
		"gen/applyconfiguration/foo/v1/foo.go", upstream).with(
		"gen/applyconfiguration/foo/v1/gone.go", upstream).with(
		"gen/applyconfiguration/foo/v1/mine.go", "package v1\n"))
	opts := applyOptions(dir)
	opts.ReplaceClientGenOutput = true
	if _, err := Generate(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	v1 := filepath.Join(dir, "gen", "applyconfiguration", "foo", "v1")
	if !output.IsGenerated(readFile(t, filepath.Join(v1, "foo.go"))) {
		t.Error("foo.go was not replaced")
	}
	if _, err := os.Stat(filepath.Join(v1, "gone.go")); !os.IsNotExist(err) {
		t.Errorf("applyconfiguration-gen's gone.go, which no type produces, was not removed: %v", err)
	}
	if string(readFile(t, filepath.Join(v1, "mine.go"))) != "package v1\n" {
		t.Error("the hand-written mine.go was touched")
	}
}

// squeezeBlanks turns every run of spaces and tabs into one space.
func squeezeBlanks(s string) string {
	var b strings.Builder
	blank := false
	for _, r := range s {
		if r == ' ' || r == '\t' {
			if !blank {
				b.WriteByte(' ')
			}
			blank = true
			continue
		}
		blank = false
		b.WriteRune(r)
	}
	return b.String()
}
