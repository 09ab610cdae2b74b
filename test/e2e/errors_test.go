package e2e

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// waitForError waits until every informer reported a list error, so that
// a WaitForSync that times out afterwards has an error to name.
func waitForError(t *testing.T, infs ...cache.AnyInformer) {
	t.Helper()
	eventually(t, time.Minute, "informers report their list error", func() error {
		for _, inf := range infs {
			if inf.LastError() == nil {
				return fmt.Errorf("%s has no error yet", inf.Name())
			}
		}
		return nil
	})
}

// shortSyncWait runs WaitForSync with a deadline that must pass: the
// informers can never sync.
func shortSyncWait(t *testing.T, syncers ...cache.Syncer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := cache.WaitForSync(ctx, syncers...)
	if err == nil {
		t.Fatal("WaitForCacheSync returned nil for informers that cannot list")
	}
	return err
}

// checkError fails t unless err matches is, says one of whats
// (case-insensitive) and names every resource.
func checkError(t *testing.T, err error, is func(error) bool, whats []string, resources ...string) {
	t.Helper()
	var notSynced *cache.NotSyncedError
	if !errors.As(err, &notSynced) {
		t.Errorf("error %v (%T) is not a *cache.NotSyncedError", err, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
	}
	if !is(err) {
		t.Errorf("error does not unwrap to a %s API error: %v", whats[0], err)
	}
	msg := err.Error()
	if !slices.ContainsFunc(whats, func(w string) bool { return strings.Contains(strings.ToLower(msg), strings.ToLower(w)) }) {
		t.Errorf("error does not say %q: %v", whats, msg)
	}
	for _, r := range resources {
		if !strings.Contains(msg, r) {
			t.Errorf("error does not name %s: %v", r, msg)
		}
	}
}

// TestUnprivilegedUserSyncErrorSaysForbidden runs the generated Foo and
// ConfigMap informers as a user RBAC does not allow to list: waiting for
// their sync, directly or through the factories, must fail with an error
// that says Forbidden and names the resources.
func TestUnprivilegedUserSyncErrorSaysForbidden(t *testing.T) {
	ensureExampleCRDs(t)
	user := newClients(t, cluster.UnprivilegedConfig())
	samples, kube := newSamplesFactory(user), newKubeFactory(user)
	foos, cms := fooInformer(samples), configMapInformer(kube)
	runFactory(t, samples)
	runFactory(t, kube)
	waitForError(t, foos, cms)

	err := shortSyncWait(t, foos, cms)
	checkError(t, err, apierrors.IsForbidden, []string{"forbidden"}, "foos.samples.typedinformer.dev", "configmaps")
	t.Logf("cache.WaitForSync: %v", err)

	for _, f := range []struct {
		name string
		wait func(context.Context) (map[reflect.Type]bool, error)
		typ  reflect.Type
		res  string
	}{
		{"samples", samples.WaitForCacheSync, reflect.TypeFor[*foo](), "foos.samples.typedinformer.dev"},
		{"kube", kube.WaitForCacheSync, reflect.TypeFor[*configMap](), "configmaps"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		synced, err := f.wait(ctx)
		cancel()
		if err == nil {
			t.Fatalf("%s factory WaitForCacheSync returned nil for informers that cannot list", f.name)
		}
		checkError(t, err, apierrors.IsForbidden, []string{"forbidden"}, f.res)
		if s, ok := synced[f.typ]; !ok || s {
			t.Errorf("%s factory reports %v synced=%v (present %v), want false", f.name, f.typ, s, ok)
		}
	}
}

// TestMissingCRDSyncErrorSaysNotFound runs an informer for a custom
// resource no CRD defines: waiting for its sync must fail with an error
// that says NotFound and names the resource.
func TestMissingCRDSyncErrorSaysNotFound(t *testing.T) {
	gizmos := schema.GroupVersionResource{Group: "samples.typedinformer.dev", Version: "v1alpha1", Resource: "gizmos"}
	inf := newUnstructuredInformer(admin(t), gizmos, "", informerOptions{})
	runInformer(t, inf)
	waitForError(t, inf)
	err := shortSyncWait(t, inf)
	checkError(t, err, apierrors.IsNotFound,
		// The server's 404 for an unknown resource says "the server could not
		// find the requested resource"; the reflector names the resource.
		[]string{"not found", "could not find the requested resource"}, "gizmos.samples.typedinformer.dev")
	t.Logf("WaitForCacheSync: %v", err)
}
