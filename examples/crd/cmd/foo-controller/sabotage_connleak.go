//go:build soak_connleak

package main

import (
	"net"
	"net/url"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

func sabotageReconcileEnd() {}

func sabotageFence(check func() error) func() error { return check }

// connLeakEvery is how many ConfigMap notifications pass between two
// leaked connections.
const connLeakEvery = 20

// sabotageInformers opens a TCP connection to the API server's address
// every connLeakEvery-th ConfigMap notification and never closes it (no
// goroutine reads it, so only the connection check can see it). Only the
// soak_connleak build has it, to prove that the soak's count of open API
// server connections fires.
func sabotageInformers(inf controller.Informers, cfg *rest.Config) error {
	u, err := url.Parse(cfg.Host)
	if err != nil {
		return err
	}
	var (
		mu     sync.Mutex
		n      int
		leaked []net.Conn
	)
	leak := func() {
		mu.Lock()
		defer mu.Unlock()
		if n++; n%connLeakEvery != 0 {
			return
		}
		if c, err := net.Dial("tcp", u.Host); err == nil {
			leaked = append(leaked, c)
		}
	}
	_, err = inf.Kube.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.ConfigMap]{
		AddFunc:    func(*corev1.ConfigMap) { leak() },
		UpdateFunc: func(_, _ *corev1.ConfigMap) { leak() },
		DeleteFunc: func(*corev1.ConfigMap) { leak() },
	})
	return err
}
