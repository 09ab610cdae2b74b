//go:build !soak_leak && !soak_nofence && !soak_dropdelete && !soak_connleak && !soak_notrack

package main

import (
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
)

// The sabotage hooks. This build has none of them; each soak_* build
// breaks one thing on purpose, for a test that requires the soak's check
// of that thing to fire (see test/soak).

// sabotageReconcileEnd runs after every reconcile (soak_leak leaks a
// goroutine there).
func sabotageReconcileEnd() {}

// sabotageFence returns the leader's fence check (soak_nofence returns
// one that always lets the reconcile through).
func sabotageFence(check func() error) func() error { return check }

// sabotageInformers may tamper with the informers (soak_dropdelete makes
// the ConfigMap cache drop one delete; soak_connleak opens connections to
// the API server it never closes).
func sabotageInformers(controller.Informers, *rest.Config) error { return nil }
