package e2e

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Short names for the object types the tests run informers of.
type (
	configMap          = corev1.ConfigMap
	podTemplate        = corev1.PodTemplate
	unstructuredWidget = unstructured.Unstructured
)
