package v2

import "k8s.io/apimachinery/pkg/runtime"

var localSchemeBuilder = runtime.NewSchemeBuilder()
