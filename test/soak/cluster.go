package soak

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
)

// crdFiles are examples/crd's CRDs, all of which the controller watches.
var crdFiles = []string{
	"samples.typedinformer.dev_foos.yaml",
	"samples.typedinformer.dev_fooclasses.yaml",
	"ops.typedinformer.dev_maintenancewindows.yaml",
}

// clients talk to the apiserver directly, never through a proxy.
type clients struct {
	kube    kubernetes.Interface
	samples versioned.Interface
	crds    apiextensions.Interface
}

// installCRDs creates the example's CRDs and waits until each is
// Established.
func installCRDs(ctx context.Context, c clients, repoRoot string) error {
	for _, name := range crdFiles {
		path := filepath.Join(repoRoot, "examples", "crd", "config", "crd", name)
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading CRD: %w", err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return fmt.Errorf("decoding CRD %s: %w", path, err)
		}
		_, err = c.crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
		}
		if err := poll(ctx, time.Minute, func() error {
			got, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for _, cond := range got.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					return nil
				}
			}
			return fmt.Errorf("CRD %s not Established yet", crd.Name)
		}); err != nil {
			return err
		}
	}
	return nil
}

// createNamespaces creates each namespace.
func createNamespaces(ctx context.Context, kube kubernetes.Interface, names ...string) error {
	for _, n := range names {
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", n, err)
		}
	}
	return nil
}

// proxiedKubeconfig writes a copy of kubeconfig whose server is
// https://proxyAddr (the serving certificate is for 127.0.0.1, so TLS
// verifies through the proxy too).
func proxiedKubeconfig(kubeconfig, proxyAddr, out string) error {
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		return fmt.Errorf("reading %s: %w", kubeconfig, err)
	}
	for _, c := range cfg.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil {
			return fmt.Errorf("server %q in %s: %w", c.Server, kubeconfig, err)
		}
		u.Host = proxyAddr
		c.Server = u.String()
	}
	if err := clientcmd.WriteToFile(*cfg, out); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return nil
}

// poll calls f every 100ms until it returns nil, ctx ends or timeout passes;
// the error then is f's last.
func poll(ctx context.Context, timeout time.Duration, f func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %v: %w", timeout, err)
		case <-t.C:
		}
	}
}
