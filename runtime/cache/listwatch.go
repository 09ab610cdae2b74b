package cache

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"
)

// ListerWatcher lists and watches one resource (optionally in one namespace)
// of an API server. List returns a list object (e.g. *corev1.PodList) whose
// items are of the informer's type; Watch returns a stream of events for the
// same resource starting after opts.ResourceVersion.
//
// Both calls must honour ctx: when it is cancelled, List returns and the
// watch's result channel is closed.
type ListerWatcher interface {
	// List returns a list object (with an Items field) and its resourceVersion.
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	// Watch streams the changes after opts.ResourceVersion.
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// ListFunc lists a resource; see ListerWatcher.List.
type ListFunc func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)

// WatchFunc watches a resource; see ListerWatcher.Watch.
type WatchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)

// ListWatch is a ListerWatcher made of two functions, typically closures over
// a typed clientset: ListFunc(ctx, opts) calls
// client.GroupV1().Things(ns).List(ctx, opts) and WatchFunc the matching Watch.
type ListWatch struct {
	ListFunc  ListFunc
	WatchFunc WatchFunc
	// DisableChunking, when set, makes the reflector list in one request
	// even when it wants a consistent, paginated list.
	DisableChunking bool
}

var errNoFunc = errors.New("cache.ListWatch: ListFunc or WatchFunc is nil")

// List calls ListFunc.
func (lw *ListWatch) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if lw.ListFunc == nil {
		return nil, errNoFunc
	}
	if lw.DisableChunking {
		opts.Limit = 0
	}
	return lw.ListFunc(ctx, opts)
}

// Watch calls WatchFunc.
func (lw *ListWatch) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if lw.WatchFunc == nil {
		return nil, errNoFunc
	}
	return lw.WatchFunc(ctx, opts)
}

// ToListWatcherWithWatchListSemantics returns lw as a ListerWatcher that
// also tells the reflector whether client can stream a watch-list: when
// client has client-go's IsWatchListSemanticsUnSupported method and it
// returns true (client-go's and client-gen's fake clientsets do), the
// reflector lists and then watches instead of asking for the initial state
// as a stream, which those clients cannot serve. Other clients, and a nil
// client, leave watch-list on. Generated informers build their
// ListerWatcher with it.
func ToListWatcherWithWatchListSemantics(lw *ListWatch, client any) ListerWatcher {
	u, ok := client.(reflector.WatchListUnsupported)
	return &clientListWatch{ListWatch: lw, unsupported: ok && u.IsWatchListSemanticsUnSupported()}
}

// clientListWatch is a ListWatch that knows whether its client streams
// watch-lists.
type clientListWatch struct {
	*ListWatch
	unsupported bool
}

// IsWatchListSemanticsUnSupported reports what the client said.
func (lw *clientListWatch) IsWatchListSemanticsUnSupported() bool { return lw.unsupported }
