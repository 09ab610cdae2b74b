package testutil

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// StaticLW is a ListerWatcher for benchmarks: every List returns Items and
// every Watch returns Events, whatever the options. The caller owns both and
// feeds Events; StaticLW never copies or closes them.
type StaticLW struct {
	// Items is the list every List call returns.
	Items runtime.Object
	// Events is the watch every Watch call returns.
	Events watch.Interface
}

// List returns l.Items.
func (l *StaticLW) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return l.Items, nil
}

// Watch returns l.Events.
func (l *StaticLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return l.Events, nil
}
