// Package versioned is a hand-written stand-in for the client-gen clientset
// of the testdata API groups in dotted directories (testdata/dottedapis),
// with the accessors the generated informers call, under client-gen's names.
package versioned

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/generators/testdata/restclient"
)

// ListWatcher is the part of a client-gen resource client that informers use.
type ListWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Interface is the clientset.
type Interface interface {
	CiliumV2() CiliumV2Interface
	CiliumComV1() CiliumComV1Interface
	KubeflowV1() KubeflowV1Interface
	ServingV1() ServingV1Interface
}

// CiliumV2Interface is the cilium.io/v2 client.
type CiliumV2Interface interface {
	RESTClient() restclient.Interface
	CiliumNetworkPolicies(namespace string) ListWatcher
	CiliumNodes() ListWatcher
}

// CiliumComV1Interface is the cilium.com/v1 client.
type CiliumComV1Interface interface {
	RESTClient() restclient.Interface
	Policies(namespace string) ListWatcher
}

// KubeflowV1Interface is the kubeflow.org/v1 client.
type KubeflowV1Interface interface {
	RESTClient() restclient.Interface
	TFJobs(namespace string) ListWatcher
}

// ServingV1Interface is the serving.example.dev/v1 client.
type ServingV1Interface interface {
	RESTClient() restclient.Interface
	Services(namespace string) ListWatcher
}
