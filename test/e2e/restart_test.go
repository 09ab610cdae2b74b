package e2e

import (
	"context"
	"testing"
	"time"
)

// TestAPIServerRestart stops the apiserver the informers watch, changes
// objects through a second apiserver on the same etcd while it is down,
// and starts it again on the same port: every change must reach the
// caches, and the deletes the informers missed must arrive as OnDelete with
// finalStateUnknown (the restarted server no longer has the informers'
// resourceVersion in its watch cache, so they relist).
func TestAPIServerRestart(t *testing.T) {
	ensureExampleCRDs(t)
	c, namespaces := adminIn(t, 2)
	foos := &outage[*foo]{watched: watchedFoos(t, c), namespaces: namespaces}
	configMaps := &outage[*configMap]{watched: watchedConfigMaps(t, c), namespaces: namespaces}
	foos.prepare(t)
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
	// Stopping it twice is harmless; this one runs if the test fails first,
	// before the cleanup above restarts the main apiserver.
	t.Cleanup(func() { cluster.StopExtraAPIServer(b) })
	cb := newClients(t, cluster.AdminConfigFor(b))
	foos.change(t, fooOps(cb, foos.label))
	configMaps.change(t, configMapOps(cb, configMaps.label))
	cluster.StopExtraAPIServer(b)

	if err := cluster.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	t.Logf("outage with a second apiserver took %v", time.Since(start).Round(time.Millisecond))
	foos.verify(t)
	configMaps.verify(t)
}
