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

	"github.com/typedinformer/typedinformer/generators/testdata/restclient"
)

// ListWatcher is the part of a client-gen resource client that informers
// use. client-gen's List returns the typed list (*FooList); returning it as a
// runtime.Object here keeps the generated calls compiling the same way and
// lets Fake serve lists from the runtime's fake server.
type ListWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
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
	RESTClient() restclient.Interface
	Widgets(namespace string) ListWatcher
	Gadgets() ListWatcher
	Policies(namespace string) ListWatcher
	NodeMetricses() ListWatcher
	Reports(namespace string) ListWatcher
	Secrets(namespace string) ListWatcher
	Things(namespace string) ListWatcher
	Endpoints(namespace string) ListWatcher
}

// ExampleV1alpha1Interface is the example.com/v1alpha1 client.
type ExampleV1alpha1Interface interface {
	RESTClient() restclient.Interface
	Widgets(namespace string) ListWatcher
}

// CertmanagerV1Interface is the cert-manager.example.io/v1 client.
type CertmanagerV1Interface interface {
	RESTClient() restclient.Interface
	Certificates(namespace string) ListWatcher
}

// CoreV1Interface is the core/v1 client.
type CoreV1Interface interface {
	RESTClient() restclient.Interface
	Pods(namespace string) ListWatcher
	Nodes() ListWatcher
}

// ThirdPartyV2beta1Interface is the things.example.org/v2beta1 client.
type ThirdPartyV2beta1Interface interface {
	RESTClient() restclient.Interface
	Buckets() ListWatcher
}
