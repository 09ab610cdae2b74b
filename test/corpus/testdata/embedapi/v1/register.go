package v1

import "k8s.io/apimachinery/pkg/runtime/schema"

// SchemeGroupVersion is the group-version the apply configurations' utils
// package names.
var SchemeGroupVersion = schema.GroupVersion{Group: "embed.example.com", Version: "v1"}
