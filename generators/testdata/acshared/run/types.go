// Package run is a package of structs the apply configurations' inputs
// embed but that is no input itself: it has no apply configurations.
package run

// Container is embedded inline by an input's struct.
type Container struct {
	Name      string            `json:"name"`
	Image     *string           `json:"image,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Resources Resources         `json:"resources,omitempty"`
	Limits    *Resources        `json:"limits,omitempty"`
}

// Resources is a struct without an apply configuration.
type Resources struct {
	CPU string `json:"cpu,omitempty"`
}

// Template is a struct without an apply configuration, referred to through
// an alias.
type Template struct {
	NodeName string `json:"nodeName,omitempty"`
}

// ObjectMeta is a copy of meta/v1's: a +genclient type embedding it is
// applied by the name it holds.
type ObjectMeta struct {
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// TypeMeta is a copy of meta/v1's.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}
