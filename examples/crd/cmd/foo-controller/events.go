package main

import (
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// printEvents prints what the Foo and ConfigMap informers deliver. The
// handlers receive typed objects: no casts, and a tombstone is just
// finalStateUnknown=true.
func printEvents(out io.Writer, inf controller.Informers) {
	_, _ = inf.Samples.Samples().V1alpha1().Foos().Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*samplesv1alpha1.Foo]{
		AddFunc: func(foo *samplesv1alpha1.Foo, initial bool) {
			fmt.Fprintf(out, "event     Foo %s/%s added (generation %d)\n", foo.Namespace, foo.Name, foo.Generation)
		},
		UpdateFunc: func(old, foo *samplesv1alpha1.Foo) {
			fmt.Fprintf(out, "event     Foo %s/%s updated (generation %d, phase %q)\n", foo.Namespace, foo.Name, foo.Generation, foo.Status.Phase)
		},
		DeleteFunc: func(foo *samplesv1alpha1.Foo, finalStateUnknown bool) {
			fmt.Fprintf(out, "event     Foo %s/%s deleted\n", foo.Namespace, foo.Name)
		},
	})
	_, _ = inf.Kube.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.ConfigMap]{
		AddFunc: func(cm *corev1.ConfigMap, initial bool) {
			fmt.Fprintf(out, "event     ConfigMap %s/%s added %v\n", cm.Namespace, cm.Name, cm.Data)
		},
		UpdateFunc: func(old, cm *corev1.ConfigMap) {
			fmt.Fprintf(out, "event     ConfigMap %s/%s updated %v\n", cm.Namespace, cm.Name, cm.Data)
		},
		DeleteFunc: func(cm *corev1.ConfigMap, finalStateUnknown bool) {
			fmt.Fprintf(out, "event     ConfigMap %s/%s deleted\n", cm.Namespace, cm.Name)
		},
	})
}
