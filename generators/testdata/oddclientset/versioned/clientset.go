// Package versioned is a hand-written stand-in for the client-gen clientset
// of the odd-but-valid testdata API groups (testdata/oddapis), with the
// accessors the generated informers call, under client-gen's names.
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
	ShopV1() ShopV1Interface
	ShopV2() ShopV2Interface
	ShopV3beta1() ShopV3beta1Interface
	MyThingsV1() MyThingsV1Interface
	TypeGo() TypeGoInterface
}

// ShopV1Interface is the shop.example.com/v1 client.
type ShopV1Interface interface {
	RESTClient() restclient.Interface
	Sprockets(namespace string) ListWatcher
	Cogs(namespace string) ListWatcher
	Ñandus() ListWatcher
	Wheels(namespace string) ListWatcher
	Gizmos(namespace string) ListWatcher
}

// ShopV2Interface is the shop.example.com/v2 client.
type ShopV2Interface interface {
	RESTClient() restclient.Interface
	Sprockets(namespace string) ListWatcher
	Cogs(namespace string) ListWatcher
}

// ShopV3beta1Interface is the shop.example.com/v3beta1 client.
type ShopV3beta1Interface interface {
	RESTClient() restclient.Interface
	Pods(namespace string) ListWatcher
	Nodes() ListWatcher
}

// MyThingsV1Interface is the my-things.example.com/v1 client.
type MyThingsV1Interface interface {
	RESTClient() restclient.Interface
	Things(namespace string) ListWatcher
}

// TypeGoInterface is the type.example.com/go client.
type TypeGoInterface interface {
	RESTClient() restclient.Interface
	Widgets(namespace string) ListWatcher
}
