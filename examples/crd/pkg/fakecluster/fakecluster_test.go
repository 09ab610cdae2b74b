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

	// edited is a copy of foo with spec data v=v and status phase phase.
	edited := func(foo *samplesv1alpha1.Foo, v, phase string) *samplesv1alpha1.Foo {
		foo = foo.DeepCopy()
		foo.Spec.Data["v"] = v
		foo.Status.Phase = phase
		return foo
	}

	// A status write from a copy whose spec is old changes only the status.
	afterSpec, err := foos.Update(ctx, edited(created, "2", "Ignored"), metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if afterSpec.Generation != 2 || afterSpec.Status.Phase != "" {
		t.Fatalf("spec update: generation %d status %+v; want 2 and the status unchanged", afterSpec.Generation, afterSpec.Status)
	}
	if _, err := foos.UpdateStatus(ctx, edited(created, "1", "Ready"), metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("status update from a stale copy: %v, want a Conflict", err)
	}
	afterStatus, err := foos.UpdateStatus(ctx, edited(afterSpec, "reverted", "Ready"), metav1.UpdateOptions{})
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
