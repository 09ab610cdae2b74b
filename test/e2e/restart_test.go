package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// TestAPIServerRestart stops the apiserver the informers watch, changes
// objects through a second apiserver on the same etcd while it is down,
// and starts it again on the same port: every change must reach the
// caches, and the deletes the informers missed must arrive as OnDelete with
// finalStateUnknown (the restarted server no longer has the informers'
// resourceVersion in its watch cache, so they relist).
func TestAPIServerRestart(t *testing.T) {
	ensureWidgetCRD(t)
	c := admin(t)
	namespaces := testNamespaces(t, c, 2)
	wLabel, cLabel := testLabel(t), testLabel(t)
	paged := cache.ReflectorOptions{PageSize: 25}
	widgets := &outage[*unstructuredWidget]{
		o:          widgetOps(c, wLabel),
		inf:        newWidgetInformer(c, "", informerOptions{label: wLabel, reflector: paged}),
		namespaces: namespaces,
	}
	configMaps := &outage[*configMap]{
		o:          configMapOps(c, cLabel),
		inf:        newConfigMapInformer(c, "", informerOptions{label: cLabel, reflector: paged}),
		namespaces: namespaces,
	}
	widgets.prepare(t)
	configMaps.prepare(t)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	cluster.StopAPIServer()
	restarted := false
	t.Cleanup(func() {
		if !restarted { // keep the cluster usable for the tests that follow
			if err := cluster.StartAPIServer(context.Background()); err != nil {
				t.Errorf("restarting kube-apiserver: %v", err)
			}
		}
	})
	t.Logf("kube-apiserver stopped in %v", time.Since(start).Round(time.Millisecond))

	b, err := cluster.StartExtraAPIServer(ctx, "kube-apiserver-b")
	if err != nil {
		t.Fatal(err)
	}
	cb := newClients(t, cluster.AdminConfigFor(b))
	widgets.change(t, widgetOps(cb, wLabel))
	configMaps.change(t, configMapOps(cb, cLabel))
	cluster.StopExtraAPIServer(b)

	if err := cluster.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	t.Logf("outage with a second apiserver took %v", time.Since(start).Round(time.Millisecond))
	widgets.verify(t)
	configMaps.verify(t)
}
