package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/typedinformer/typedinformer/test/e2e/framework"
)

// exampleCRDFiles are examples/crd's CRDs: Foos (namespaced), FooClasses
// and MaintenanceWindows (cluster-scoped).
var exampleCRDFiles = []string{
	"samples.typedinformer.dev_foos.yaml",
	"samples.typedinformer.dev_fooclasses.yaml",
	"ops.typedinformer.dev_maintenancewindows.yaml",
}

var (
	crdOnce sync.Once
	crdErr  error
)

// ensureExampleCRDs installs examples/crd's CRDs once per run and waits
// until each is Established.
func ensureExampleCRDs(t testing.TB) {
	t.Helper()
	crdOnce.Do(func() {
		start := time.Now()
		crdErr = installExampleCRDs(context.Background(), admin(t))
		if crdErr == nil {
			t.Logf("example CRDs established in %v", time.Since(start).Round(time.Millisecond))
		}
	})
	if crdErr != nil {
		t.Fatal(crdErr)
	}
}

func installExampleCRDs(ctx context.Context, c clients) error {
	root, err := framework.RepoRoot()
	if err != nil {
		return err
	}
	for _, name := range exampleCRDFiles {
		path := filepath.Join(root, "examples", "crd", "config", "crd", name)
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading CRD: %w", err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return fmt.Errorf("decoding CRD %s: %w", path, err)
		}
		if err := installCRD(ctx, c, crd); err != nil {
			return err
		}
	}
	return nil
}

// installCRD creates crd (or finds it) and waits until it is Established.
func installCRD(ctx context.Context, c clients, crd *apiextensionsv1.CustomResourceDefinition) error {
	_, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
	}
	return poll(ctx, time.Minute, func() error {
		got, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("CRD %s not Established yet: %+v", crd.Name, got.Status.Conditions)
	})
}
