//go:build soak_nofence

package main

import (
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
)

func sabotageReconcileEnd() {}

// sabotageFence ignores check: a leader paused past its Lease reconciles
// again at once on resuming, until its elector notices the Lease is gone.
// Only the soak_nofence build has it, to prove that the soak's check of
// reconciles started without a valid Lease fires.
func sabotageFence(func() error) func() error { return func() error { return nil } }

func sabotageInformers(controller.Informers, *rest.Config) error { return nil }
