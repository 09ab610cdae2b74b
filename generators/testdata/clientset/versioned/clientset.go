// Package versioned is a hand-written stand-in for the client-gen clientset
// of the testdata API groups: just the accessors the generated informers
// call, with client-gen's names (ExampleV1().Policies(ns),
// CertmanagerV1(), ThirdPartyV2beta1().Buckets(), ...).
package versioned

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	certmanagerv1 "github.com/typedinformer/typedinformer/generators/testdata/apis/cert-manager/v1"
	corev1 "github.com/typedinformer/typedinformer/generators/testdata/apis/core/v1"
	examplev1 "github.com/typedinformer/typedinformer/generators/testdata/apis/example/v1"
	examplev1alpha1 "github.com/typedinformer/typedinformer/generators/testdata/apis/example/v1alpha1"
	thirdpartyv2beta1 "github.com/typedinformer/typedinformer/generators/testdata/apis/thirdparty/v2beta1"
)

// ListWatcher is the part of a client-gen resource client that informers use.
type ListWatcher[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Interface is the clientset.
type Interface interface {
	ExampleV1() ExampleV1Interface
	ExampleV1alpha1() ExampleV1alpha1Interface
	CertmanagerV1() CertmanagerV1Interface
	CoreV1() CoreV1Interface
	ThirdPartyV2beta1() ThirdPartyV2beta1Interface
}

// ExampleV1Interface is the example.com/v1 client.
type ExampleV1Interface interface {
	Widgets(namespace string) ListWatcher[*examplev1.WidgetList]
	Gadgets() ListWatcher[*examplev1.GadgetList]
	Policies(namespace string) ListWatcher[*examplev1.PolicyList]
	NodeMetricses() ListWatcher[*examplev1.NodeMetricsList]
	Reports(namespace string) ListWatcher[*examplev1.ReportList]
	Secrets(namespace string) ListWatcher[*examplev1.SecretList]
	Things(namespace string) ListWatcher[*examplev1.ThingList]
	Endpoints(namespace string) ListWatcher[*examplev1.EndpointsList]
}

// ExampleV1alpha1Interface is the example.com/v1alpha1 client.
type ExampleV1alpha1Interface interface {
	Widgets(namespace string) ListWatcher[*examplev1alpha1.WidgetList]
}

// CertmanagerV1Interface is the cert-manager.example.io/v1 client.
type CertmanagerV1Interface interface {
	Certificates(namespace string) ListWatcher[*certmanagerv1.CertificateList]
}

// CoreV1Interface is the core/v1 client.
type CoreV1Interface interface {
	Pods(namespace string) ListWatcher[*corev1.PodList]
	Nodes() ListWatcher[*corev1.NodeList]
}

// ThirdPartyV2beta1Interface is the things.example.org/v2beta1 client.
type ThirdPartyV2beta1Interface interface {
	Buckets() ListWatcher[*thirdpartyv2beta1.BucketList]
}
