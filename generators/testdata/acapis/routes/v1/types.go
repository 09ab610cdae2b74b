package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/generators/testdata/acshared/run"
)

// +genclient

// Route is applied.
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RouteSpec   `json:"spec"`
	Status            RouteStatus `json:"status,omitempty"`
}

// RouteSpec embeds the spec every route shares.
type RouteSpec struct {
	CommonRouteSpec `json:",inline"`
	Hostnames       []Hostname `json:"hostnames,omitempty"`
	Backend         *Backend   `json:"backend,omitempty"`
}

// Backend embeds a struct of a package that is no input, which has no
// apply configuration: its members are set as the struct declares them.
// Its Template and Type are of aliases that package declares.
type Backend struct {
	run.Container `json:",inline"`
	// TypeMeta is another package's copy: Backend is no +genclient type,
	// and its apply configuration has no GetKind.
	run.TypeMeta `json:",inline"`
	Port         int32            `json:"port,omitempty"`
	Template     *run.PodTemplate `json:"template,omitempty"`
	Type         run.ResourceType `json:"type,omitempty"`
	// Headers is of an unexported type: the apply configuration, in
	// another package, has no such member.
	Headers headers `json:"headers,omitempty"`
}

// headers is unexported.
type headers map[string]string

// CommonRouteSpec is embedded by the routes of other versions too.
type CommonRouteSpec struct {
	ParentRefs         []ParentReference `json:"parentRefs,omitempty"`
	UseDefaultGateways *Scope            `json:"useDefaultGateways,omitempty"`
}

// ParentReference names a parent. Its uint8 is spelt byte.
type ParentReference struct {
	Name     string `json:"name"`
	Priority uint8  `json:"priority,omitempty"`
}

// MatchResources selects resources.
type MatchResources struct {
	Kinds []string `json:"kinds,omitempty"`
}

// RouteStatus is the status. Its Interval is embedded through a pointer,
// inline: the apply configuration gets no With methods of its members.
type RouteStatus struct {
	*Interval `json:",inline"`
	Accepted  bool `json:"accepted"`
}

// Interval is embedded through a pointer.
type Interval struct {
	Window string `json:"window,omitempty"`
}

// Scope is not a struct.
type Scope string

// Hostname is not a struct.
type Hostname string

// +genclient

// Mirror embeds copies of meta/v1's TypeMeta and ObjectMeta from a package
// that is no input: its apply configuration embeds them as they are and
// reads its name from them.
type Mirror struct {
	run.TypeMeta   `json:",inline"`
	run.ObjectMeta `json:"metadata,omitempty"`
	Target         string `json:"target,omitempty"`
}
