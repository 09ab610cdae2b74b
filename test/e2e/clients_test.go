package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	samplesclient "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
)

// clients bundles the clients one apiserver identity uses.
type clients struct {
	kube    kubernetes.Interface
	samples samplesclient.Interface // examples/crd's generated clientset
	dynamic dynamic.Interface
	crds    apiextensionsclient.Interface
}

func newClients(t testing.TB, cfg *rest.Config) clients {
	t.Helper()
	return clients{
		kube:    newClient(t, "kubernetes", cfg, kubernetes.NewForConfig),
		samples: newClient(t, "samples", cfg, samplesclient.NewForConfig),
		dynamic: newClient(t, "dynamic", cfg, dynamic.NewForConfig),
		crds:    newClient(t, "apiextensions", cfg, apiextensionsclient.NewForConfig),
	}
}

// newClient makes the client what of cfg with newForConfig, failing t
// with an error naming what and cfg's host.
func newClient[C any](t testing.TB, what string, cfg *rest.Config, newForConfig func(*rest.Config) (C, error)) C {
	t.Helper()
	c, err := newForConfig(cfg)
	if err != nil {
		t.Fatalf("%s client for %s: %v", what, cfg.Host, err)
	}
	return c
}

// admin returns admin clients of the cluster's main apiserver.
func admin(t testing.TB) clients { return newClients(t, cluster.AdminConfig()) }

var nsCounter atomic.Int64

// testNamespaces creates n fresh namespaces for t, named after the test.
// Namespaces are not deleted afterwards: without kube-controller-manager a
// deleted namespace never finishes terminating, and the cluster is thrown
// away at the end of the run anyway.
func testNamespaces(t testing.TB, c clients, n int) []string {
	t.Helper()
	base := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(base) > 40 {
		base = base[:40]
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", strings.Trim(base, "-"), nsCounter.Add(1))
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names[i]}}
		if _, err := c.kube.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating namespace %s: %v", names[i], err)
		}
	}
	return names
}

// adminIn returns admin clients and n fresh namespaces for t (see
// testNamespaces).
func adminIn(t testing.TB, n int) (clients, []string) {
	t.Helper()
	c := admin(t)
	return c, testNamespaces(t, c, n)
}

// testLabel returns a label value unique to t, to scope informers and lists
// to the objects t creates.
func testLabel(t testing.TB) string {
	return fmt.Sprintf("t%d", nsCounter.Add(1))
}

// labelKey is the label every test object carries with its test's value.
const labelKey = "e2e.typedinformer.dev/test"

// parallel runs fn(0..n-1) on a few workers and returns the first error.
func parallel(n int, fn func(i int) error) error {
	const workers = 16
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		mu    sync.Mutex
		first error
	)
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}
