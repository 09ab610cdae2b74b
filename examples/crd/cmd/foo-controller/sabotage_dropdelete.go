//go:build soak_dropdelete

package main

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

func sabotageReconcileEnd() {}

// trackWrites is off in this build: its ConfigMap cache puts a deleted
// object back behind the informer's back, so a delete of the controller's
// own would never be seen applied and every read of that ConfigMap would
// wait out the tracker's timeout, turning the one dropped delete the soak
// must report into stalled reconciles everywhere.
const trackWrites = false

func sabotageFence(check func() error) func() error { return check }

// sabotageInformers makes the ConfigMap cache drop the first delete it sees:
// the object goes back into the store right after the informer removed it,
// and stays there until a relist replaces the store. Only the
// soak_dropdelete build has it, to prove that the soak's comparison of the
// caches with the server fires.
func sabotageInformers(inf controller.Informers, _ *rest.Config) error {
	cms := inf.Kube.Core().V1().ConfigMaps().Informer()
	var once sync.Once
	_, err := cms.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.ConfigMap]{
		DeleteFunc: func(cm *corev1.ConfigMap) {
			once.Do(func() { _ = cms.GetStore().Add(cm) })
		},
	})
	return err
}
