package v1

import "k8s.io/apimachinery/pkg/runtime/schema"

// SchemeGroupVersion is the group-version of this package.
var SchemeGroupVersion = schema.GroupVersion{Group: "widgets.example.com", Version: "v1"}
