package fakecluster

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	samplesfake "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
)

// TestUpdatesBehaveLikeAServer checks the write semantics a controller
// relies on: a stale update conflicts, the status subresource changes only
// the status, a plain update keeps the status, and generation follows the
// spec.
func TestUpdatesBehaveLikeAServer(t *testing.T) {
	ctx := context.Background()
	c := samplesfake.NewSimpleClientset()
	Simulate(c)
	foos := c.SamplesV1alpha1().Foos("shop")
	created, err := foos.Create(ctx, &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec:       samplesv1alpha1.FooSpec{Data: map[string]string{"v": "1"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Generation != 1 || created.ResourceVersion == "" {
		t.Fatalf("created: generation %d resourceVersion %q", created.Generation, created.ResourceVersion)
	}

	// A status write from a copy whose spec is old changes only the status.
	stale := created.DeepCopy()
	spec := created.DeepCopy()
	spec.Spec.Data["v"] = "2"
	spec.Status.Phase = "Ignored"
	afterSpec, err := foos.Update(ctx, spec, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if afterSpec.Generation != 2 || afterSpec.Status.Phase != "" {
		t.Fatalf("spec update: generation %d status %+v; want 2 and the status unchanged", afterSpec.Generation, afterSpec.Status)
	}
	stale.Status.Phase = "Ready"
	if _, err := foos.UpdateStatus(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("status update from a stale copy: %v, want a Conflict", err)
	}
	fresh := afterSpec.DeepCopy()
	fresh.Spec.Data["v"] = "reverted"
	fresh.Status.Phase = "Ready"
	afterStatus, err := foos.UpdateStatus(ctx, fresh, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := foos.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Data["v"] != "2" || got.Status.Phase != "Ready" || got.Generation != 2 {
		t.Fatalf("after the status update: spec %v status %q generation %d; want spec v=2, Ready, 2", got.Spec.Data, got.Status.Phase, got.Generation)
	}
	if afterStatus.ResourceVersion != got.ResourceVersion || got.ResourceVersion == afterSpec.ResourceVersion {
		t.Fatalf("resourceVersions: status update returned %s, stored %s, before %s", afterStatus.ResourceVersion, got.ResourceVersion, afterSpec.ResourceVersion)
	}

	// An update without a resourceVersion is unconditional.
	blind := got.DeepCopy()
	blind.ResourceVersion = ""
	blind.Labels = map[string]string{"a": "b"}
	if _, err := foos.Update(ctx, blind, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("unconditional update: %v", err)
	}
}
