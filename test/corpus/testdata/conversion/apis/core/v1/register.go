package v1

import "k8s.io/apimachinery/pkg/runtime"

var (
	localSchemeBuilder = runtime.NewSchemeBuilder()
	// AddToScheme registers the conversions.
	AddToScheme = localSchemeBuilder.AddToScheme
)
