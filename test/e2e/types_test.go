package e2e

import (
	corev1 "k8s.io/api/core/v1"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
)

// Short names for the object types the tests run informers of.
type (
	configMap   = corev1.ConfigMap
	podTemplate = corev1.PodTemplate
	foo         = samplesv1alpha1.Foo
)
