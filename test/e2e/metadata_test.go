package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"

	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/lean"
	"github.com/typedinformer/typedinformer/runtime/metadatainformer"
)

// metadataClient adapts client-go's metadata client to
// metadatainformer.Client: the adapter the package documents.
type metadataClient struct{ c metadata.Interface }

func (m metadataClient) List(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	return m.c.Resource(gvr).Namespace(ns).List(ctx, o)
}

func (m metadataClient) Watch(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (watch.Interface, error) {
	return m.c.Resource(gvr).Namespace(ns).Watch(ctx, o)
}

// TestMetadataInformerAgainstAPIServer syncs a metadata-only informer of
// ConfigMaps, built from examples/crd's generated factory's configuration,
// through client-go's metadata client, and follows changes.
func TestMetadataInformerAgainstAPIServer(t *testing.T) {
	ctx := context.Background()
	c, ns, label, o := inNewNamespace(t, configMapOps)
	o.createN(t, ctx, ns, "cm-%02d", 12)
	mc, err := metadata.NewForConfig(cluster.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	generated := newKubeFactory(c, withLabel(label))
	f := metadatainformer.NewFactoryFromBase(metadataClient{mc}, generated.Base())
	cms := f.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps"))
	runFactory(t, f)
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := f.WaitForCacheSync(waitCtx); err != nil {
		t.Fatal(err)
	}
	same := func() error {
		server, err := o.list(ctx)
		if err != nil {
			return err
		}
		cached, _ := cms.Lister().List(labels.Everything())
		got := map[string]string{}
		for _, m := range cached {
			got[key(m)] = m.ResourceVersion
		}
		if d := diffVersions(got, versions(server)); d != "" {
			return fmt.Errorf("metadata cache differs from the server: %s", d)
		}
		return nil
	}
	if err := same(); err != nil {
		t.Fatal(err)
	}
	m, err := cms.Lister().Namespace(ns).Get("cm-03")
	if err != nil {
		t.Fatal(err)
	}
	if m.Labels[labelKey] != label || len(m.ManagedFields) == 0 || m.UID == "" {
		t.Fatalf("cached metadata %+v, want labels, uid and managedFields", m.ObjectMeta)
	}
	if _, err := o.create(ctx, ns, "late", 99); err != nil {
		t.Fatal(err)
	}
	if err := o.remove(ctx, ns, "cm-00"); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the metadata cache to follow", same)
}

// TestMetadataInformerLean is the same informer with the lean mode: no
// managedFields, labels intact.
func TestMetadataInformerLean(t *testing.T) {
	ctx := context.Background()
	_, ns, label, o := inNewNamespace(t, configMapOps)
	if _, err := o.create(ctx, ns, "cm", 1); err != nil {
		t.Fatal(err)
	}
	mc, err := metadata.NewForConfig(cluster.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	f := metadatainformer.NewFactory(metadataClient{mc}, 0, withLabel(label), informers.WithLean(lean.Default()))
	cms := f.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps"))
	runFactory(t, f)
	eventually(t, time.Minute, "the lean metadata cache", func() error {
		m, err := cms.Lister().Namespace(ns).Get("cm")
		if err != nil {
			return err
		}
		if m.ManagedFields != nil || m.Labels[labelKey] != label {
			return fmt.Errorf("cached %+v, want managedFields stripped and labels kept", m.ObjectMeta)
		}
		return nil
	})
}
