//go:build soak_notrack

package main

import (
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
)

// This build reads without the write tracker: the listers hand back
// whatever the caches hold, so a reconcile that follows the controller's
// own write before its watch event arrives reads the older copy. The
// soak's stale-read check must see it.
const trackWrites = false

func sabotageReconcileEnd() {}

func sabotageFence(check func() error) func() error { return check }

func sabotageInformers(controller.Informers, *rest.Config) error { return nil }
