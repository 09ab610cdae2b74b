package model

import (
	"testing"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

func TestPluralsFollowClientGen(t *testing.T) {
	n, err := NewNamers(withDefaultExceptions([]string{"Chaos:Chaos"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, plural, resource string }{
		{"Pod", "Pods", "pods"},
		{"Endpoints", "Endpoints", "endpoints"}, // default exception
		{"Ingress", "Ingresses", "ingresses"},
		{"NodeMetrics", "NodeMetricses", "nodemetricses"},
		{"NetworkPolicy", "NetworkPolicies", "networkpolicies"},
		{"ServiceMesh", "ServiceMeshes", "servicemeshes"},
		{"Gateway", "Gateways", "gateways"},
		{"Leaf", "Leaves", "leaves"},
		{"Box", "Boxes", "boxes"},
		{"Chaos", "Chaos", "chaos"}, // caller's exception
		{"IPAddress", "IPAddresses", "ipaddresses"},
	} {
		if got := n.plural(c.name); got != c.plural {
			t.Errorf("plural(%s) = %s, want %s", c.name, got, c.plural)
		}
		if got := n.resource(c.name); got != c.resource {
			t.Errorf("resource(%s) = %s, want %s", c.name, got, c.resource)
		}
	}
}

func TestCallerExceptionOverridesDefault(t *testing.T) {
	n, err := NewNamers(withDefaultExceptions([]string{"Endpoints:Endpointses"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.plural("Endpoints"); got != "Endpointses" {
		t.Errorf("plural(Endpoints) = %s, want the caller's Endpointses", got)
	}
}

func TestGroupGoName(t *testing.T) {
	for _, c := range []struct{ group, override, want string }{
		{"", "", "Core"},
		{"apps", "", "Apps"},
		{"networking.k8s.io", "", "Networking"},
		{"flowcontrol.apiserver.k8s.io", "", "Flowcontrol"},
		{"internal.apiserver.k8s.io", "", "Internal"},
		{"rbac.authorization.k8s.io", "", "Rbac"},
		{"cert-manager.io", "", "Certmanager"},
		{"acme.cert-manager.io", "", "Acme"},
		{"things.example.org", "ThirdParty", "ThirdParty"},
		{"things.example.org", "thirdParty", "ThirdParty"},
	} {
		if got := GroupGoName(c.group, c.override); got != c.want {
			t.Errorf("groupGoName(%q, %q) = %q, want %q", c.group, c.override, got, c.want)
		}
	}
}

func TestVersionAndPackageNames(t *testing.T) {
	for _, c := range []struct{ in, goName, pkg string }{
		{"v1", "V1", "v1"},
		{"v1alpha1", "V1alpha1", "v1alpha1"},
		{"v2beta3", "V2beta3", "v2beta3"},
	} {
		if got := versionGoName(c.in); got != c.goName {
			t.Errorf("versionGoName(%s) = %s, want %s", c.in, got, c.goName)
		}
		if got := PackageName(c.in); got != c.pkg {
			t.Errorf("packageName(%s) = %s, want %s", c.in, got, c.pkg)
		}
	}
	for in, want := range map[string]string{"cert-manager": "certmanager", "Apps": "apps", "9lives": "x9lives", "a.b": "ab"} {
		if got := PackageName(in); got != want {
			t.Errorf("packageName(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestGroupDirPackageName checks upstream informer-gen's package name of a
// group directory (up to the first dot, case kept) and the sanitized name
// where upstream's cannot compile.
func TestGroupDirPackageName(t *testing.T) {
	for in, want := range map[string]string{
		"cilium.io": "cilium", "kubeflow.org": "kubeflow", "core": "core", "Serving.example.dev": "Serving",
		"cert-manager": "certmanager", "cert-manager.io": "certmanager", "type": "xtype", "go.dev": "xgo", "_": "x_", "9lives.io": "x9lives",
	} {
		if got := groupDirPackageName(in); got != want {
			t.Errorf("groupDirPackageName(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestBadPluralException(t *testing.T) {
	for _, e := range []string{"Foo", "Foo:", ":Foos", "A:B:C"} {
		if _, err := NewNamers([]string{e}); !inputerr.Is(err) {
			t.Errorf("exception %q: got %v, want an input error", e, err)
		}
	}
}

// withDefaultExceptions puts the generator's default plural exceptions
// before given, as Build does.
func withDefaultExceptions(given []string) []string {
	return append([]string{"Endpoints:Endpoints"}, given...)
}
