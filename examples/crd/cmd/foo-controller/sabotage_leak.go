//go:build soak_leak

package main

import (
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
)

// sabotageReconcileEnd leaks one goroutine per reconcile: it blocks
// forever on a channel nothing ever closes. Only the soak_leak build has
// it, to prove that the soak's leak check fires.
func sabotageReconcileEnd() {
	block := make(chan struct{})
	go func() { <-block }()
}

func sabotageFence(check func() error) func() error { return check }

func sabotageInformers(controller.Informers, *rest.Config) error { return nil }
