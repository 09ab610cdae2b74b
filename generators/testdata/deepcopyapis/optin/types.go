// Package optin has no package tag: only the types tagged for deepcopy get
// functions.
package optin

// +k8s:deepcopy-gen=true

// Wanted is tagged.
type Wanted struct {
	Items []Item           `json:"items"`
	ByKey map[string]*Item `json:"byKey"`
}

// Item is copied through DeepCopyInto although it gets none of its own.
type Item struct {
	Name string `json:"name"`
}

// +k8s:deepcopy-gen=true

// Names is a named slice, tagged.
type Names []string
